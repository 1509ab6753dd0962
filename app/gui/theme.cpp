#include "theme.h"

#include <QApplication>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>

namespace strata {
namespace {

struct StartupLook {
  QString style;
  QPalette palette;
};

/** The platform's style and palette, captured before the first theme change. */
const StartupLook& startupLook() {
  static const StartupLook look{QApplication::style()->name(), QApplication::palette()};
  return look;
}

ThemeChoice g_current = ThemeChoice::System;

void useStyle(const QString& name) {
  if (QApplication::style()->name().compare(name, Qt::CaseInsensitive) != 0)
    QApplication::setStyle(QStyleFactory::create(name));
}

/** System: the start-up look, made dark when the desktop asks for dark but the platform
 *  palette is light (Qt 6.5+ reports the desktop's scheme even without a platform theme). */
void applySystemTheme() {
  const StartupLook& look = startupLook();
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  if (QGuiApplication::styleHints()->colorScheme() == Qt::ColorScheme::Dark &&
      !isDark(look.palette)) {
    useStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(darkPalette());
    return;
  }
#endif
  useStyle(look.style);
  QApplication::setPalette(look.palette);
}

}  // namespace

QPalette darkPalette() {
  const QColor window(53, 53, 53), base(35, 35, 35), text(230, 230, 230), disabled(127, 127, 127),
      highlight(42, 130, 218);
  QPalette p;
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, QColor(45, 45, 45));
  p.setColor(QPalette::ToolTipBase, window);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::PlaceholderText, disabled);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::BrightText, Qt::red);
  p.setColor(QPalette::Link, highlight.lighter(130));
  p.setColor(QPalette::Highlight, highlight);
  p.setColor(QPalette::HighlightedText, Qt::black);
  p.setColor(QPalette::Light, QColor(80, 80, 80));
  p.setColor(QPalette::Midlight, QColor(66, 66, 66));
  p.setColor(QPalette::Mid, QColor(45, 45, 45));
  p.setColor(QPalette::Dark, QColor(25, 25, 25));
  p.setColor(QPalette::Shadow, Qt::black);
  for (const auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
    p.setColor(QPalette::Disabled, role, disabled);
  p.setColor(QPalette::Disabled, QPalette::Highlight, QColor(80, 80, 80));
  return p;
}

bool isDark(const QPalette& palette) {
  return palette.color(QPalette::Window).lightness() <
         palette.color(QPalette::WindowText).lightness();
}

ThemeChoice currentTheme() { return g_current; }

void applyTheme(ThemeChoice choice) {
  startupLook();  // capture the platform look before anything changes it
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  static const bool following = [] {
    QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, qApp, [] {
      if (g_current == ThemeChoice::System) applySystemTheme();
    });
    return true;
  }();
  (void)following;
#endif
  g_current = choice;
  switch (choice) {
    case ThemeChoice::System:
      applySystemTheme();
      break;
    case ThemeChoice::Light:
      useStyle(QStringLiteral("Fusion"));
      QApplication::setPalette(QApplication::style()->standardPalette());
      break;
    case ThemeChoice::Dark:
      useStyle(QStringLiteral("Fusion"));
      QApplication::setPalette(darkPalette());
      break;
  }
}

}  // namespace strata
