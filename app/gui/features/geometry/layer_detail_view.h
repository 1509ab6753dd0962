#pragma once
// LayerDetailView: one layer up close — the leading eigenvalues of its covariance (log scale),
// the distribution of its neighbourhoods' λ_max (the quantity m_curv is the median inverse
// of), and its tokens on the first two principal axes, coloured by position or token id.
// Each plot saves as PNG or PDF. Shows a LayerDetail snapshot read on a worker thread
// (readLayerDetail); GUI thread only.
//
// The scatter reads like Google's LIT: hovering a point shows its token's text, document and
// position; a click selects it (a ring on the point) and the context strip under the scatter
// shows the text around it with the token highlighted (a click on another token there selects
// that one); a click on empty space clears both.

#include <QPointF>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/layer_detail.h"
#include "histogram_bins.h"

class QComboBox;
class QCustomPlot;
class QCPColorScale;
class QCPGraph;
class QLabel;
class QMouseEvent;
class QToolButton;

namespace strata {

class TokenContextStrip;

class LayerDetailView final : public QWidget {
  Q_OBJECT

 public:
  enum class Colouring { Position, TokenId };

  explicit LayerDetailView(std::shared_ptr<const engine::LayerDetail> detail,
                           QWidget* parent = nullptr);

  const engine::LayerDetail& detail() const { return *m_detail; }
  int64_t layer() const { return m_detail->geometry.layer; }

  /** The binned local λ_max values the histogram draws. */
  const Histogram& lambdaHistogram() const { return m_histogram; }
  /** Scatter points drawn (at most kMaxScatterPoints; every token when there are fewer). */
  int scatterPointCount() const;
  static constexpr int kMaxScatterPoints = 20000;

  void setColouring(Colouring colouring);
  Colouring colouring() const { return m_colouring; }

  /** Pixels around a point that still hover or click it. */
  static constexpr double kPickRadius = 6.0;
  /** The drawn row nearest `pixel` (scatter coordinates) within kPickRadius; −1 if none. */
  int64_t rowAt(const QPoint& pixel) const;
  /** Where row `row`'s point is drawn (scatter coordinates). */
  QPointF pixelOf(int64_t row) const;
  /** "“ total” (id 1234)\ndocument 3, position 17" — the hover text of `row`. */
  QString tokenToolTip(int64_t row) const;
  /** Selects `row` (ring on its point, context in the strip); −1 clears the selection. */
  void selectToken(int64_t row);
  int64_t selectedRow() const { return m_selected; }

  QCustomPlot* spectrumPlot() const { return m_spectrum; }
  QCustomPlot* histogramPlot() const { return m_histogramPlot; }
  QCustomPlot* scatterPlot() const { return m_scatter; }
  QComboBox* colouringBox() const { return m_colourBy; }
  QToolButton* exportButton() const { return m_export; }
  TokenContextStrip* contextStrip() const { return m_context; }

 signals:
  /** The selection changed (−1: cleared). */
  void tokenSelected(qint64 row);

 private:
  void buildSpectrum();
  void buildHistogram();
  void buildScatter();
  void colourScatter();
  void scatterMouseMove(QMouseEvent* event);
  void scatterMouseRelease(QMouseEvent* event);

  std::shared_ptr<const engine::LayerDetail> m_detail;
  Histogram m_histogram;
  Colouring m_colouring = Colouring::Position;
  QLabel* m_header;
  QComboBox* m_colourBy;
  QToolButton* m_export;
  QCustomPlot* m_spectrum;
  QCustomPlot* m_histogramPlot;
  QCustomPlot* m_scatter;
  QCPColorScale* m_colourScale = nullptr;
  QCPGraph* m_selectionMark = nullptr;
  TokenContextStrip* m_context;
  std::vector<int64_t> m_drawnRows;  // the rows the scatter draws (every token, or a stride)
  int64_t m_selected = -1;
  int64_t m_hovered = -1;
  QPoint m_pressPosition{-1000, -1000};
};

}  // namespace strata
