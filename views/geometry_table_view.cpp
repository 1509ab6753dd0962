#include "geometry_table_view.h"

#include <QEvent>
#include <QHeaderView>
#include <QScrollBar>
#include <algorithm>

#include "geometry_table_model.h"

namespace strata {
namespace {

constexpr int kRowPadding = 6;         // pixels above and below a row's line of text, together
constexpr int kMinimumRowHeight = 20;  // room for the warning icon of the layer column

}  // namespace

GeometryTableView::GeometryTableView(QWidget* parent) : QTableView(parent) {
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // One line per cell: every row the same compact height (ResizeToContents would also measure
  // every row of an 80-layer report on each re-rank).
  verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  setWordWrap(false);
  fitRowHeight();
}

void GeometryTableView::setModel(QAbstractItemModel* model) {
  QTableView::setModel(model);
  // New contents, new column widths: the layout asks again for the main columns' width.
  const auto askAgain = [this] { updateGeometry(); };
  connect(model, &QAbstractItemModel::modelReset, this, askAgain);
  connect(model, &QAbstractItemModel::layoutChanged, this, askAgain);
  connect(model, &QAbstractItemModel::dataChanged, this, askAgain);
}

void GeometryTableView::changeEvent(QEvent* event) {
  QTableView::changeEvent(event);
  if (event->type() == QEvent::FontChange || event->type() == QEvent::StyleChange) fitRowHeight();
}

void GeometryTableView::fitRowHeight() {
  const int height = compactRowHeight();
  verticalHeader()->setMinimumSectionSize(height);
  verticalHeader()->setDefaultSectionSize(height);
}

int GeometryTableView::compactRowHeight() const {
  // The l* row is bold: measure with the bold font, which is never shorter.
  QFont bold = font();
  bold.setBold(true);
  return std::max(QFontMetrics(bold).height() + kRowPadding, kMinimumRowHeight);
}

int GeometryTableView::heightForRows(int rows) const {
  // isHidden, not isVisible: this is asked before the view is first shown, too.
  const int header = horizontalHeader()->isHidden() ? 0 : horizontalHeader()->sizeHint().height();
  return header + rows * compactRowHeight() + 2 * frameWidth() +
         horizontalScrollBar()->sizeHint().height();
}

int GeometryTableView::visibleRowCount() const {
  if (!model()) return 0;
  int count = 0;
  const QRect viewportRect = viewport()->rect();
  for (int row = 0; row < model()->rowCount(); ++row) {
    const int top = rowViewportPosition(row);
    if (top >= 0 && top + rowHeight(row) <= viewportRect.height()) ++count;
  }
  return count;
}

int GeometryTableView::mainColumnsWidth() const {
  int width = 0;
  const int columns =
      model() ? std::min(model()->columnCount(), int{GeometryTableModel::kMainColumns}) : 0;
  for (int column = 0; column < columns; ++column)
    if (!isColumnHidden(column))
      width += std::max(sizeHintForColumn(column), horizontalHeader()->sectionSizeHint(column));
  return width;
}

int GeometryTableView::neededWidth() const {
  // The vertical scroll bar is counted whether shown or not: rows come and go with the report.
  return mainColumnsWidth() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width() +
         (verticalHeader()->isVisible() ? verticalHeader()->width() : 0);
}

QSize GeometryTableView::sizeHint() const {
  return {neededWidth(), QTableView::sizeHint().height()};
}

QSize GeometryTableView::minimumSizeHint() const {
  return {neededWidth(), QTableView::minimumSizeHint().height()};
}

}  // namespace strata
