#pragma once
// GeometryTableView: the Layer Geometry table. Columns are as wide as their contents; the view
// asks for room for the main columns (layer, the proxies, S, rank: GeometryTableModel::
// kMainColumns) as its size hint and minimum width, so a layout or splitter never hides them
// behind the horizontal scroll bar. The columns after them (S's interval, l* frequency, plugin
// metrics) scroll into view. GUI thread only.

#include <QTableView>

namespace strata {

class GeometryTableView final : public QTableView {
  Q_OBJECT

 public:
  explicit GeometryTableView(QWidget* parent = nullptr);

  void setModel(QAbstractItemModel* model) override;

  /** Pixels the main columns take at the width their contents need. */
  int mainColumnsWidth() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 private:
  /** The main columns' width and what the frame and a vertical scroll bar add. */
  int neededWidth() const;
};

}  // namespace strata
