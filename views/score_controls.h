#pragma once
// ScoreControls: the knobs of the DiHAL score — the weights w_c, w_m, w_k (a slider and a spin
// box each, 0–5) and the candidate layers first..last (a slider and a spin box each, first ≤
// last always). Every change emits settingsChanged() at once; the owner re-ranks with
// geometry::scoreLayers, which is cheap, so no debouncing is needed. GUI thread only.

#include <QWidget>
#include <cstdint>

#include "geometry/score.h"

class QDoubleSpinBox;
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
  /** Weights 1, 1, 1 and the default candidates. */
  void reset();

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
};

}  // namespace strata
