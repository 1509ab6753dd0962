#pragma once
// LayerDetailView: one layer up close — the leading eigenvalues of its covariance (log scale),
// the distribution of its neighbourhoods' λ_max (the quantity m_curv is the median inverse
// of), and its tokens on the first two principal axes (TokenScatter: robust axis range with the
// points beyond drawn at the edge, zoom and pan, box selection, colour by position, token id or
// ‖h‖). Each plot saves as PNG or PDF. Shows a LayerDetail snapshot read on a worker thread
// (readLayerDetail); GUI thread only.
//
// The scatter reads like Google's LIT: hovering a point shows its token's text, document and
// position; a click selects it (a ring on the point) and the context strip under the scatter
// shows the text around it with the token highlighted (a click on another token there selects
// that one); a click on empty space clears both. Beside the strip, two lists: the Outliers (the
// tokens drawn at the edge and those of largest ‖h‖ — massive activations are a finding) and the
// tokens of the last box; a click on a listed token selects it.

#include <QPointF>
#include <QString>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/layer_detail.h"
#include "histogram_bins.h"
#include "token_scatter.h"

class QComboBox;
class QCustomPlot;
class QTabWidget;
class QToolButton;
class QLabel;

namespace strata {

class TokenContextStrip;
class TokenList;

class LayerDetailView final : public QWidget {
  Q_OBJECT

 public:
  using Colouring = TokenScatter::Colouring;
  /** The Outliers list holds the clipped tokens and this many of the largest ‖h‖. */
  static constexpr std::size_t kLargestNorms = 20;

  explicit LayerDetailView(std::shared_ptr<const engine::LayerDetail> detail,
                           QWidget* parent = nullptr);

  const engine::LayerDetail& detail() const { return *m_detail; }
  int64_t layer() const { return m_detail->geometry.layer; }

  /** The binned local λ_max values the histogram draws. */
  const Histogram& lambdaHistogram() const { return m_histogram; }
  /** Scatter points drawn (at most kMaxScatterPoints; every token when there are fewer). */
  int scatterPointCount() const { return m_scatter->pointCount(); }
  static constexpr int kMaxScatterPoints = TokenScatter::kMaxPoints;

  void setColouring(Colouring colouring) { m_scatter->setColouring(colouring); }
  Colouring colouring() const { return m_scatter->colouring(); }

  /** Pixels around a point that still hover or click it. */
  static constexpr double kPickRadius = TokenScatter::kPickRadius;
  /** The drawn row nearest `pixel` (scatter coordinates) within kPickRadius; −1 if none. */
  int64_t rowAt(const QPoint& pixel) const { return m_scatter->rowAt(pixel); }
  /** Where row `row`'s point is drawn (scatter coordinates). */
  QPointF pixelOf(int64_t row) const { return m_scatter->pixelOf(row); }
  /** "“ total” (id 1234)\ndocument 3, position 17" — the hover text of `row`. */
  QString tokenToolTip(int64_t row) const { return m_scatter->tokenToolTip(row); }
  /** Selects `row` (ring on its point, context in the strip); −1 clears the selection. */
  void selectToken(int64_t row);
  int64_t selectedRow() const { return m_selected; }

  QCustomPlot* spectrumPlot() const { return m_spectrum; }
  QCustomPlot* histogramPlot() const { return m_histogramPlot; }
  QCustomPlot* scatterPlot() const { return m_scatter->plot(); }
  TokenScatter* scatter() const { return m_scatter; }
  QComboBox* colouringBox() const { return m_scatter->colouringBox(); }
  QToolButton* exportButton() const { return m_export; }
  TokenContextStrip* contextStrip() const { return m_context; }
  /** The Outliers list and the box selection's, on two tabs of `listTabs()`. */
  TokenList* outlierList() const { return m_outliers; }
  TokenList* boxList() const { return m_boxList; }
  QTabWidget* listTabs() const { return m_lists; }

 signals:
  /** The selection changed (−1: cleared). */
  void tokenSelected(qint64 row);

 private:
  void buildSpectrum();
  void buildHistogram();
  void listOutliers();
  void listBox();

  std::shared_ptr<const engine::LayerDetail> m_detail;
  Histogram m_histogram;
  QLabel* m_header;
  QToolButton* m_export;
  QCustomPlot* m_spectrum;
  QCustomPlot* m_histogramPlot;
  TokenScatter* m_scatter;
  TokenContextStrip* m_context;
  QTabWidget* m_lists;
  TokenList* m_outliers;
  TokenList* m_boxList;
  int64_t m_selected = -1;
};

}  // namespace strata
