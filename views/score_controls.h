#pragma once
// ScoreControls: the knobs of the DiHAL score — one weight per metric series (a slider and a
// spin box each, 0–5: w_c, w_m, w_k for the proxies, default 1, then w_<name> for each plugin
// metric, default 0, so plugins leave S as it was until asked; setSeries makes the rows) and the
// candidate layers first..last (a slider and a spin box each, first ≤ last always). From the
// top: the title "Score S(l)" with Reset beside it, the proxies' weights, the candidates, the
// plugin metrics' weights. Every change
// emits settingsChanged() at once; the owner re-ranks with geometry::scoreSeries, which is cheap,
// so no debouncing is needed. GUI thread only.

#include <QWidget>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "geometry/metric_series.h"
#include "geometry/score.h"

class QDoubleSpinBox;
class QGridLayout;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;

namespace strata {

class ScoreControls final : public QWidget {
  Q_OBJECT

 public:
  /** Rows for the three proxies until setSeries gives the report's series. */
  explicit ScoreControls(QWidget* parent = nullptr);

  /** Layers minLayer..maxLayer can be candidates; `defaults` is what Reset restores. */
  void setLayerBounds(int64_t minLayer, int64_t maxLayer, const geometry::LayerRange& defaults);

  /** One weight per row, in series order (the proxies, then the plugin metrics). */
  geometry::ScoreWeights weights() const;
  geometry::LayerRange candidates() const;
  /** Each setter emits settingsChanged() once when something changed. setWeights sets the
   *  first weights.size() rows and leaves the others as they are. */
  void setWeights(const geometry::ScoreWeights& weights);
  void setCandidates(const geometry::LayerRange& candidates);
  /** Every weight to its series' default (1 for a proxy, 0 for a plugin metric) and the default
   *  candidates. */
  void reset();

  /**
   * One weight row per series (a label, a slider and a spin box named "<name>WeightSlider/Box").
   * Rows of series already shown keep their widgets and weight; new ones start at their default.
   * Emits settingsChanged() when the weights change.
   */
  void setSeries(const std::vector<geometry::MetricSeries>& series);
  int weightCount() const { return static_cast<int>(m_rows.size()); }
  QDoubleSpinBox* weightBox(std::size_t series) const { return m_rows[series].box; }
  QSlider* weightSlider(std::size_t series) const { return m_rows[series].slider; }
  QSpinBox* firstLayerBox() const { return m_firstBox; }
  QSpinBox* lastLayerBox() const { return m_lastBox; }
  QSlider* firstLayerSlider() const { return m_firstSlider; }
  QSlider* lastLayerSlider() const { return m_lastSlider; }
  QPushButton* resetButton() const { return m_reset; }

 signals:
  void settingsChanged();

 private:
  struct WeightRow {
    std::string name;     // the series' name
    bool builtIn = true;  // a proxy (above the candidates) or a plugin metric (below them)
    double defaultWeight = 0;
    QLabel* label = nullptr;
    QSlider* slider = nullptr;
    QDoubleSpinBox* box = nullptr;
  };
  WeightRow makeRow(const geometry::MetricSeries& series);
  /** Puts every row into the grid, in the order of the file comment. */
  void layOutRows();
  void rangeChanged(bool firstMoved, int value);
  /** Runs `change` with the widgets' own signals blocked, then emits once if anything moved. */
  template <typename Change>
  void changeQuietly(Change change);

  std::vector<WeightRow> m_rows;
  QGridLayout* m_grid;
  QLabel* m_firstLabel;
  QLabel* m_lastLabel;
  QSlider* m_firstSlider;
  QSlider* m_lastSlider;
  QSpinBox* m_firstBox;
  QSpinBox* m_lastBox;
  QLabel* m_title;
  QPushButton* m_reset;
  geometry::LayerRange m_defaults;
  geometry::ScoreWeights m_announcedWeights;  ///< as of the last settingsChanged()
  geometry::LayerRange m_announcedRange;
};

}  // namespace strata
