#include "geometry_table_view.h"

#include <QHeaderView>
#include <QScrollBar>
#include <algorithm>

#include "geometry_table_model.h"

namespace strata {

GeometryTableView::GeometryTableView(QWidget* parent) : QTableView(parent) {
  horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  // Proxy cells hold two lines (value over interval): rows as tall as their contents.
  verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void GeometryTableView::setModel(QAbstractItemModel* model) {
  QTableView::setModel(model);
  // New contents, new column widths: the layout asks again for the main columns' width.
  const auto askAgain = [this] { updateGeometry(); };
  connect(model, &QAbstractItemModel::modelReset, this, askAgain);
  connect(model, &QAbstractItemModel::layoutChanged, this, askAgain);
  connect(model, &QAbstractItemModel::dataChanged, this, askAgain);
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
