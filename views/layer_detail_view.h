#pragma once
// LayerDetailView: one layer up close — the leading eigenvalues of its covariance (log scale),
// the distribution of its neighbourhoods' λ_max (the quantity m_curv is the median inverse
// of), and its tokens on the first two principal axes, coloured by position or token id.
// Each plot saves as PNG or PDF. Shows a LayerDetail snapshot read on a worker thread
// (readLayerDetail); GUI thread only.

#include <QString>
#include <QWidget>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "geometry/layer_geometry.h"
#include "geometry/pca.h"
#include "histogram_bins.h"

class QComboBox;
class QCustomPlot;
class QCPColorScale;
class QLabel;
class QToolButton;

namespace strata {

/** What the detail view shows of one layer, copied out so the store can be closed. */
struct LayerDetail {
  QString storeFile;
  int64_t hiddenSize = 0;            // d
  geometry::LayerGeometry geometry;  // proxies, intervals, spectrum, local λ_max
  geometry::PrincipalPlane plane;    // N×2 coordinates and explained shares
  std::vector<int32_t> tokenIds;     // one per row, as the store's /tokens
  std::vector<int32_t> positions;
};

/**
 * Reads `geometry.layer` of the store and projects its rows on their principal plane.
 * Blocking I/O and an N×d covariance: call from a job. Throws strata::Error.
 */
LayerDetail readLayerDetail(const std::filesystem::path& storeFile,
                            const geometry::LayerGeometry& geometry);

class LayerDetailView final : public QWidget {
  Q_OBJECT

 public:
  enum class Colouring { Position, TokenId };

  explicit LayerDetailView(std::shared_ptr<const LayerDetail> detail, QWidget* parent = nullptr);

  const LayerDetail& detail() const { return *m_detail; }
  int64_t layer() const { return m_detail->geometry.layer; }

  /** The binned local λ_max values the histogram draws. */
  const Histogram& lambdaHistogram() const { return m_histogram; }
  /** Scatter points drawn (at most kMaxScatterPoints; every token when there are fewer). */
  int scatterPointCount() const;
  static constexpr int kMaxScatterPoints = 20000;

  void setColouring(Colouring colouring);
  Colouring colouring() const { return m_colouring; }

  QCustomPlot* spectrumPlot() const { return m_spectrum; }
  QCustomPlot* histogramPlot() const { return m_histogramPlot; }
  QCustomPlot* scatterPlot() const { return m_scatter; }
  QComboBox* colouringBox() const { return m_colourBy; }
  QToolButton* exportButton() const { return m_export; }

 private:
  void buildSpectrum();
  void buildHistogram();
  void buildScatter();
  void colourScatter();

  std::shared_ptr<const LayerDetail> m_detail;
  Histogram m_histogram;
  Colouring m_colouring = Colouring::Position;
  QLabel* m_header;
  QComboBox* m_colourBy;
  QToolButton* m_export;
  QCustomPlot* m_spectrum;
  QCustomPlot* m_histogramPlot;
  QCustomPlot* m_scatter;
  QCPColorScale* m_colourScale = nullptr;
};

}  // namespace strata
