#include "theme.h"

#include <QApplication>
#include <QEvent>
#include <QStyle>
#include <QStyleFactory>
#include <QStyleHints>
#include <QTimer>

namespace strata {
namespace {

/** The platform's style, captured before the first theme change (System goes back to it). */
const QString& platformStyle() {
  static const QString style = QApplication::style()->name();
  return style;
}

ThemeChoice g_current = ThemeChoice::System;
bool g_systemDark = false;
bool g_applying =
    false;  ///< our own setPalette/setStyle: their change events are not the platform's

void useStyle(const QString& name) {
  if (QApplication::style()->name().compare(name, Qt::CaseInsensitive) != 0)
    QApplication::setStyle(QStyleFactory::create(name));
}

/** System: the platform's style and its current palette, made dark when Qt ≥ 6.5 reports a
 *  dark colour scheme that the platform palette does not show. */
void applySystemTheme() {
  g_applying = true;
  useStyle(platformStyle());
  // A palette with no role set resolves every role against the platform theme's palette: this
  // is the platform's palette as it is now, not as it was at start-up.
  QApplication::setPalette(QPalette());
  const bool paletteDark = isDark(QApplication::palette());
  g_systemDark = paletteDark;
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
  const Qt::ColorScheme scheme = QGuiApplication::styleHints()->colorScheme();
  if (scheme != Qt::ColorScheme::Unknown) g_systemDark = scheme == Qt::ColorScheme::Dark;
  if (g_systemDark && !paletteDark) {
    useStyle(QStringLiteral("Fusion"));
    QApplication::setPalette(darkPalette());
  }
#endif
  g_applying = false;
}

/**
 * Re-applies System when the platform reports a change: QEvent::ThemeChange (sent to each
 * top-level window) or ApplicationPaletteChange to the application that we did not cause.
 * Coalesced into one queued application, however many windows were told.
 */
class PlatformThemeFollower final : public QObject {
 public:
  using QObject::QObject;

  bool eventFilter(QObject* watched, QEvent* event) override {
    const bool themeChanged = event->type() == QEvent::ThemeChange;
    const bool paletteChanged =
        event->type() == QEvent::ApplicationPaletteChange && watched == qApp && !g_applying;
    if ((themeChanged || paletteChanged) && g_current == ThemeChoice::System && !m_queued) {
      m_queued = true;
      QTimer::singleShot(0, this, [this] {
        m_queued = false;
        if (g_current == ThemeChoice::System) applySystemTheme();
      });
    }
    return false;
  }

 private:
  bool m_queued = false;
};

void followPlatformOnce() {
  static const bool following = [] {
    qApp->installEventFilter(new PlatformThemeFollower(qApp));
#if QT_VERSION >= QT_VERSION_CHECK(6, 5, 0)
    QObject::connect(QGuiApplication::styleHints(), &QStyleHints::colorSchemeChanged, qApp, [] {
      if (g_current == ThemeChoice::System) applySystemTheme();
    });
#endif
    return true;
  }();
  (void)following;
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

bool systemLooksDark() { return g_systemDark; }

void applyTheme(ThemeChoice choice) {
  platformStyle();  // capture the platform's style before anything changes it
  followPlatformOnce();
  g_current = choice;
  switch (choice) {
    case ThemeChoice::System:
      applySystemTheme();
      break;
    case ThemeChoice::Light:
      g_applying = true;
      useStyle(QStringLiteral("Fusion"));
      QApplication::setPalette(QApplication::style()->standardPalette());
      g_applying = false;
      break;
    case ThemeChoice::Dark:
      g_applying = true;
      useStyle(QStringLiteral("Fusion"));
      QApplication::setPalette(darkPalette());
      g_applying = false;
      break;
  }
}

}  // namespace strata
