#pragma once
// TokenScatter: a layer's tokens on its principal plane (the layer detail's right half, issue 41),
// readable when a few tokens of huge norm (massive activations) would otherwise squash the cloud:
//  * the axes are clipped by a rule of geometry/scatter_outliers.h (robust by default, 1–99 % or
//    the full range); the points beyond are drawn in a strip along the edge as diamonds, counted
//    in clipNote() with the most common of their tokens;
//  * the wheel zooms and a drag pans; Reset View returns to the clipped range;
//  * a drag with Shift held (or with Box Select on) selects the points in its box (boxSelected);
//  * points are coloured by position, token id or ‖h‖ (log scale), with a colour scale.
// Hovering a point shows its token (tokenToolTip); a click reports it (pointClicked, −1 for empty
// space) and the owner marks it (markSelected). Draws only: the clipping, the edge placement, the
// token counts and the box's rows come from core. GUI thread only.

#include <QPointF>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/layer_detail.h"
#include "geometry/scatter_outliers.h"

class QComboBox;
class QCustomPlot;
class QCPColorScale;
class QCPGraph;
class QCPItemStraightLine;
class QLabel;
class QMouseEvent;
class QPushButton;
class QRect;

namespace strata {

class TokenScatter final : public QWidget {
  Q_OBJECT

 public:
  enum class Colouring { Position, TokenId, Norm };
  enum class Range { Robust, Percentile, Full };

  explicit TokenScatter(std::shared_ptr<const engine::LayerDetail> detail,
                        QWidget* parent = nullptr);

  /** Points drawn (at most kMaxPoints; every token when there are fewer). */
  int pointCount() const;
  static constexpr int kMaxPoints = 20000;
  /** One scatter graph per colour band, for points inside the range and for those at the edge. */
  static constexpr int kColourGroups = 16;

  void setColouring(Colouring colouring);
  Colouring colouring() const { return m_colouring; }
  void setRange(Range range);
  Range range() const { return m_range; }
  /** The current clipping: the axis bounds and, per token, whether it is drawn at the edge. */
  const geometry::ScatterClipping& clipping() const { return m_clipping; }
  /** Where each token is drawn (N×2, plot coordinates): its place, or the edge strip. */
  const std::vector<float>& placement() const { return m_placed; }
  /** The brush of `row`'s point (invalid when it is not drawn). */
  QColor pointColour(int64_t row) const;

  /** Pixels around a point that still hover or click it. */
  static constexpr double kPickRadius = 6.0;
  /** The drawn row nearest `pixel` (plot coordinates) within kPickRadius; −1 if none. */
  int64_t rowAt(const QPoint& pixel) const;
  /** Where row `row`'s point is drawn (plot pixel coordinates). */
  QPointF pixelOf(int64_t row) const;
  /** "“ total” (id 1234)\ndocument 3, position 17\n‖h‖ 52.1" — the hover text of `row`. */
  QString tokenToolTip(int64_t row) const;
  /** The ring on `row`'s point (−1: none). */
  void markSelected(int64_t row);
  /** Selects the drawn points inside `box` (plot pixel coordinates), as a drag does. */
  void selectBox(const QRect& box);
  const std::vector<int64_t>& boxSelection() const { return m_boxRows; }
  /** Back to the clipped range (or the full one) after zooming and panning. */
  void resetView();

  QCustomPlot* plot() const { return m_plot; }
  QComboBox* colouringBox() const { return m_colourBy; }
  QComboBox* rangeBox() const { return m_rangeBox; }
  QPushButton* resetButton() const { return m_reset; }
  QPushButton* boxSelectButton() const { return m_boxSelect; }
  /** "50 of 4,050 points lie beyond the robust range, drawn at its edge (◆): ↵ ×25, ␣ ×25." —
   *  the most common of those tokens named. */
  QLabel* clipNote() const { return m_note; }

 signals:
  /** A click on the plot: the point's row, or −1 on empty space. */
  void pointClicked(qint64 row);
  /** A box was dragged: the drawn rows inside it (possibly none). */
  void boxSelected();
  /** The range changed, so did which tokens are drawn at the edge. */
  void clippingChanged();

 private:
  void clip();
  /** The most common tokens among those beyond the range: "↵ ×25, ␣ ×25". */
  QString clippedTokens() const;
  void colourPoints();
  void markBoxSelection();
  void mousePress(QMouseEvent* event);
  void mouseMove(QMouseEvent* event);
  void mouseRelease(QMouseEvent* event);

  std::shared_ptr<const engine::LayerDetail> m_detail;
  Colouring m_colouring = Colouring::Position;
  Range m_range = Range::Robust;
  geometry::ScatterClipping m_clipping;
  std::vector<float> m_placed;       // N×2: where each token is drawn
  std::vector<int64_t> m_drawnRows;  // the rows drawn (every token, or a stride)
  std::vector<int8_t> m_groupOf;     // per row: its graph's index, −1 when not drawn
  std::vector<int64_t> m_boxRows;
  QComboBox* m_colourBy;
  QComboBox* m_rangeBox;
  QPushButton* m_reset;
  QPushButton* m_boxSelect;
  QLabel* m_note;
  QCustomPlot* m_plot;
  QCPColorScale* m_colourScale = nullptr;
  QCPGraph* m_boxMark = nullptr;
  QCPGraph* m_selectionMark = nullptr;
  std::vector<QCPItemStraightLine*> m_boundLines;
  int64_t m_selectedRow = -1;
  int64_t m_hovered = -1;
  QPoint m_pressPosition{-1000, -1000};
};

}  // namespace strata
