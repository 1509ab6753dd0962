#include "readable_tabs.h"

#include <algorithm>

namespace strata {

QSize ReadableTabBar::minimumTabSizeHint(int index) const {
  QSize least = QTabBar::minimumTabSizeHint(index);
  const QSize full = tabSizeHint(index);
  // The elided minimum plus the characters it dropped, never wider than the whole title.
  const int readable = least.width() + fontMetrics().averageCharWidth() * (kLeastCharacters - 3);
  least.setWidth(std::min(full.width(), std::max(least.width(), readable)));
  return least;
}

ReadableTabWidget::ReadableTabWidget(QWidget* parent) : QTabWidget(parent) {
  setTabBar(new ReadableTabBar(this));
}

}  // namespace strata
