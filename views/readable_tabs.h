#pragma once
// A tab widget whose tabs stay readable however many are open: a tab never shrinks below about
// kLeastCharacters of its title (elided in the middle), so that once they no longer fit the bar
// scrolls instead of squeezing every title to "…" (review 2026-12-05: with 7–8 tabs the titles
// read "de…lt", "B…e", "Tr…ng"). Qt's own minimum for an elided tab is three characters.

#include <QTabBar>
#include <QTabWidget>

namespace strata {

class ReadableTabBar : public QTabBar {
 public:
  static constexpr int kLeastCharacters = 14;
  explicit ReadableTabBar(QWidget* parent = nullptr) : QTabBar(parent) {}

 protected:
  QSize minimumTabSizeHint(int index) const override;
};

class ReadableTabWidget : public QTabWidget {
 public:
  explicit ReadableTabWidget(QWidget* parent = nullptr);
};

}  // namespace strata
