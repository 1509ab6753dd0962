#pragma once
// ScoreControls: the knobs of the DiHAL score — the weights w_c, w_m, w_k (a slider and a spin
// box each, 0–5) and the candidate layers first..last (a slider and a spin box each, first ≤
// last always), and one weight per plugin metric (0–5, default 0, so plugins leave S as it was
// until asked; setPluginMetrics makes the rows). Every change emits settingsChanged() at once; the owner re-ranks with
// geometry::scoreLayers, which is cheap, so no debouncing is needed. GUI thread only.

#include <QWidget>
#include <cstdint>
#include <vector>

#include "geometry/layer_metric.h"
#include "geometry/score.h"

class QDoubleSpinBox;
class QGridLayout;
class QPushButton;
class QSlider;
class QSpinBox;

namespace strata {

class ScoreControls final : public QWidget {
  Q_OBJECT

 public:
  explicit ScoreControls(QWidget* parent = nullptr);

  /** Layers minLayer..maxLayer can be candidates; `defaults` is what Reset restores. */
  void setLayerBounds(int64_t minLayer, int64_t maxLayer, const geometry::LayerRange& defaults);

  geometry::ScoreWeights weights() const;
  geometry::LayerRange candidates() const;
  /** Each setter emits settingsChanged() once when something changed. */
  void setWeights(const geometry::ScoreWeights& weights);
  void setCandidates(const geometry::LayerRange& candidates);
  /** Weights 1, 1, 1, plugin weights 0 and the default candidates. */
  void reset();

  /**
   * One weight row per metric (a slider and a spin box named "<name>WeightSlider/Box"). Rows of
   * metrics already shown keep their weight; new ones start at 0. Emits settingsChanged() when
   * the weights change.
   */
  void setPluginMetrics(const std::vector<geometry::MetricInfo>& metrics);
  /** The plugin weights, in the order of setPluginMetrics' metrics. */
  std::vector<double> pluginWeights() const;
  void setPluginWeights(const std::vector<double>& weights);
  int pluginWeightCount() const { return static_cast<int>(m_pluginBoxes.size()); }
  QDoubleSpinBox* pluginWeightBox(int index) const { return m_pluginBoxes[static_cast<std::size_t>(index)]; }
  QSlider* pluginWeightSlider(int index) const {
    return m_pluginSliders[static_cast<std::size_t>(index)];
  }

  QDoubleSpinBox* curvatureWeightBox() const { return m_weightBoxes[0]; }
  QDoubleSpinBox* monotonicityWeightBox() const { return m_weightBoxes[1]; }
  QDoubleSpinBox* effectiveRankWeightBox() const { return m_weightBoxes[2]; }
  QSlider* curvatureWeightSlider() const { return m_weightSliders[0]; }
  QSlider* monotonicityWeightSlider() const { return m_weightSliders[1]; }
  QSlider* effectiveRankWeightSlider() const { return m_weightSliders[2]; }
  QSpinBox* firstLayerBox() const { return m_firstBox; }
  QSpinBox* lastLayerBox() const { return m_lastBox; }
  QSlider* firstLayerSlider() const { return m_firstSlider; }
  QSlider* lastLayerSlider() const { return m_lastSlider; }

 signals:
  void settingsChanged();

 private:
  void weightSliderMoved(int which, int position);
  void weightBoxChanged(int which, double value);
  void rangeChanged(bool firstMoved, int value);
  /** Runs `change` with the widgets' own signals blocked, then emits once if anything moved. */
  template <typename Change>
  void changeQuietly(Change change);

  QSlider* m_weightSliders[3];
  QDoubleSpinBox* m_weightBoxes[3];
  QSlider* m_firstSlider;
  QSlider* m_lastSlider;
  QSpinBox* m_firstBox;
  QSpinBox* m_lastBox;
  QPushButton* m_reset;
  geometry::LayerRange m_defaults;
  geometry::ScoreWeights m_announcedWeights;  ///< as of the last settingsChanged()
  geometry::LayerRange m_announcedRange;
  std::vector<double> m_announcedPluginWeights;
  QWidget* m_pluginRows;
  QGridLayout* m_pluginGrid;
  std::vector<std::string> m_pluginNames;
  std::vector<QSlider*> m_pluginSliders;
  std::vector<QDoubleSpinBox*> m_pluginBoxes;
};

}  // namespace strata
