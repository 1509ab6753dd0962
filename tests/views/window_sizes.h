#pragma once
// The window sizes the workbench review's defects are checked at (data rows of a QTest): the
// default size (1100×700), maximised — the offscreen screen is 800×600, smaller than the default
// — and 1600×1000, the window the review saw maximised. Columns: "maximised" (bool), "size"
// (QSize to resize to after showing; empty: as shown).

#include <QRect>
#include <QScreen>
#include <QSize>
#include <QString>
#include <QTest>
#include <QWidget>

namespace strata::testing {

inline void addWindowSizeRows() {
  QTest::addColumn<bool>("maximised");
  QTest::addColumn<QSize>("size");
  QTest::newRow("default size") << false << QSize();
  QTest::newRow("maximised") << true << QSize();
  QTest::newRow("1600×1000, the review's maximised window") << false << QSize(1600, 1000);
}

/** Shows `window` as the row asks (maximised or not) and returns at once; the reason to skip the
 *  row instead when the screen is too small for "maximised" to mean anything (then nothing is
 *  shown). Resize to the row's size after the window is exposed. */
inline QString showForRow(QWidget& window, bool maximised) {
  if (maximised && window.screen()->availableSize().width() < 1100)
    return QStringLiteral(
        "the screen is smaller than the default window (offscreen: 800×600); the 1600×1000 row "
        "stands for the review's maximised window");
  if (maximised)
    window.showMaximized();
  else
    window.show();
  return {};
}

/** "x,y w×h", for a failure message about where a widget or plot element sits. */
inline QString rectText(const QRect& rect) {
  return QStringLiteral("%1,%2 %3×%4")
      .arg(rect.x())
      .arg(rect.y())
      .arg(rect.width())
      .arg(rect.height());
}

}  // namespace strata::testing
