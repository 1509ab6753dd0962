#pragma once
// GeometryTableView: the Layer Geometry table. Columns are as wide as their contents; the view
// asks for room for the main columns (layer, the proxies, S, rank: GeometryTableModel::
// kMainColumns) as its size hint and minimum width, so a layout or splitter never hides them
// behind the horizontal scroll bar. The columns after them (S's interval, l* frequency, the
// proxies' intervals, plugin metrics) scroll into view. Rows are one text line high, so a model
// with 30 to 80 layers shows many of them at once (heightForRows says how tall the view must be
// for a given number). GUI thread only.

#include <QTableView>

namespace strata {

class GeometryTableView final : public QTableView {
  Q_OBJECT

 public:
  explicit GeometryTableView(QWidget* parent = nullptr);

  void setModel(QAbstractItemModel* model) override;

  /** Pixels the main columns take at the width their contents need. */
  int mainColumnsWidth() const;
  /** The height of one row: a line of text and a little padding. */
  int compactRowHeight() const;
  /** The view's height that shows `rows` whole rows under the header, with the frame and the
   *  horizontal scroll bar (the columns after the main ones scroll). */
  int heightForRows(int rows) const;
  /** Rows wholly in view now. */
  int visibleRowCount() const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void changeEvent(QEvent* event) override;

 private:
  /** The main columns' width and what the frame and a vertical scroll bar add. */
  int neededWidth() const;
  void fitRowHeight();
};

}  // namespace strata
