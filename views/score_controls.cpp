#include "score_controls.h"

#include <QDoubleSpinBox>
#include <QGridLayout>
#include <QLabel>
#include <QLayoutItem>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

namespace strata {
namespace {

constexpr double kMaxWeight = 5.0;
constexpr int kSliderSteps = 100;  // slider positions per unit of weight

QSlider* makeSlider(QWidget* parent, int minimum, int maximum) {
  auto* slider = new QSlider(Qt::Horizontal, parent);
  slider->setRange(minimum, maximum);
  slider->setMinimumWidth(120);
  return slider;
}

}  // namespace

ScoreControls::ScoreControls(QWidget* parent) : QWidget(parent) {
  auto* grid = new QGridLayout(this);
  grid->setContentsMargins(0, 0, 0, 0);
  grid->setColumnStretch(1, 1);

  const char* names[3] = {"w_c", "w_m", "w_k"};
  const QString tips[3] = {
      tr("Weight of z(log m_curv), the local curvature (higher curvature raises S)"),
      tr("Weight of z(log m_mono), the global monotonicity (higher monotonicity raises S)"),
      tr("Weight of z(log k_eff), the effective rank (higher rank lowers S)")};
  for (int i = 0; i < 3; ++i) {
    auto* label = new QLabel(QString::fromLatin1(names[i]), this);
    label->setToolTip(tips[i]);
    m_weightSliders[i] = makeSlider(this, 0, static_cast<int>(kMaxWeight * kSliderSteps));
    m_weightSliders[i]->setToolTip(tips[i]);
    m_weightBoxes[i] = new QDoubleSpinBox(this);
    m_weightBoxes[i]->setRange(0, kMaxWeight);
    m_weightBoxes[i]->setSingleStep(0.1);
    m_weightBoxes[i]->setDecimals(2);
    m_weightBoxes[i]->setToolTip(tips[i]);
    m_weightSliders[i]->setObjectName(QStringLiteral("%1Slider").arg(QLatin1String(names[i])));
    m_weightBoxes[i]->setObjectName(QStringLiteral("%1Box").arg(QLatin1String(names[i])));
    grid->addWidget(label, i, 0);
    grid->addWidget(m_weightSliders[i], i, 1);
    grid->addWidget(m_weightBoxes[i], i, 2);
    connect(m_weightSliders[i], &QSlider::valueChanged, this,
            [this, i](int position) { weightSliderMoved(i, position); });
    connect(m_weightBoxes[i], &QDoubleSpinBox::valueChanged, this,
            [this, i](double value) { weightBoxChanged(i, value); });
  }

  // Plugin metric weights (rows made by setPluginMetrics), between the proxies and the range.
  m_pluginRows = new QWidget(this);
  m_pluginGrid = new QGridLayout(m_pluginRows);
  m_pluginGrid->setContentsMargins(0, 0, 0, 0);
  m_pluginGrid->setColumnStretch(1, 1);
  grid->addWidget(m_pluginRows, 3, 0, 1, 3);
  m_pluginRows->hide();

  const QString rangeTip = tr("Candidate layers for l*: S is z-scored over first..last");
  m_firstSlider = makeSlider(this, 0, 0);
  m_lastSlider = makeSlider(this, 0, 0);
  m_firstBox = new QSpinBox(this);
  m_lastBox = new QSpinBox(this);
  m_firstSlider->setObjectName(QStringLiteral("firstLayerSlider"));
  m_lastSlider->setObjectName(QStringLiteral("lastLayerSlider"));
  m_firstBox->setObjectName(QStringLiteral("firstLayerBox"));
  m_lastBox->setObjectName(QStringLiteral("lastLayerBox"));
  int row = 4;
  for (auto [label, slider, box] : {std::tuple{tr("First layer"), m_firstSlider, m_firstBox},
                                    std::tuple{tr("Last layer"), m_lastSlider, m_lastBox}}) {
    auto* text = new QLabel(label, this);
    for (QWidget* w :
         {static_cast<QWidget*>(text), static_cast<QWidget*>(slider), static_cast<QWidget*>(box)})
      w->setToolTip(rangeTip);
    slider->setPageStep(1);
    grid->addWidget(text, row, 0);
    grid->addWidget(slider, row, 1);
    grid->addWidget(box, row, 2);
    ++row;
  }
  connect(m_firstSlider, &QSlider::valueChanged, this, [this](int v) { rangeChanged(true, v); });
  connect(m_firstBox, &QSpinBox::valueChanged, this, [this](int v) { rangeChanged(true, v); });
  connect(m_lastSlider, &QSlider::valueChanged, this, [this](int v) { rangeChanged(false, v); });
  connect(m_lastBox, &QSpinBox::valueChanged, this, [this](int v) { rangeChanged(false, v); });

  m_reset = new QPushButton(tr("Reset"), this);
  m_reset->setToolTip(tr("Weights 1, 1, 1 and candidates 1..L−1"));
  grid->addWidget(m_reset, row, 2);
  connect(m_reset, &QPushButton::clicked, this, &ScoreControls::reset);

  changeQuietly([this] {
    for (int i = 0; i < 3; ++i) {
      m_weightBoxes[i]->setValue(1.0);
      m_weightSliders[i]->setValue(kSliderSteps);
    }
  });
}

template <typename Change>
void ScoreControls::changeQuietly(Change change) {
  {
    const QSignalBlocker blockers[] = {
        QSignalBlocker(m_weightSliders[0]), QSignalBlocker(m_weightSliders[1]),
        QSignalBlocker(m_weightSliders[2]), QSignalBlocker(m_weightBoxes[0]),
        QSignalBlocker(m_weightBoxes[1]),   QSignalBlocker(m_weightBoxes[2]),
        QSignalBlocker(m_firstSlider),      QSignalBlocker(m_lastSlider),
        QSignalBlocker(m_firstBox),         QSignalBlocker(m_lastBox)};
    std::vector<QWidget*> plugins(m_pluginSliders.begin(), m_pluginSliders.end());
    plugins.insert(plugins.end(), m_pluginBoxes.begin(), m_pluginBoxes.end());
    for (QWidget* w : plugins) w->blockSignals(true);
    change();
    for (QWidget* w : plugins) w->blockSignals(false);
  }
  // Compared with what was last announced: a spin box has its new value before we get here.
  const geometry::ScoreWeights w = weights();
  const geometry::LayerRange r = candidates();
  if (w.curvature == m_announcedWeights.curvature &&
      w.monotonicity == m_announcedWeights.monotonicity &&
      w.effectiveRank == m_announcedWeights.effectiveRank && r.first == m_announcedRange.first &&
      r.last == m_announcedRange.last && pluginWeights() == m_announcedPluginWeights)
    return;
  m_announcedPluginWeights = pluginWeights();
  m_announcedWeights = w;
  m_announcedRange = r;
  emit settingsChanged();
}

void ScoreControls::setLayerBounds(int64_t minLayer, int64_t maxLayer,
                                   const geometry::LayerRange& defaults) {
  m_defaults = defaults;
  changeQuietly([&] {
    for (QSlider* s : {m_firstSlider, m_lastSlider})
      s->setRange(static_cast<int>(minLayer), static_cast<int>(maxLayer));
    for (QSpinBox* b : {m_firstBox, m_lastBox})
      b->setRange(static_cast<int>(minLayer), static_cast<int>(maxLayer));
  });
  setCandidates(defaults);
}

geometry::ScoreWeights ScoreControls::weights() const {
  return {m_weightBoxes[0]->value(), m_weightBoxes[1]->value(), m_weightBoxes[2]->value()};
}

geometry::LayerRange ScoreControls::candidates() const {
  return {m_firstBox->value(), m_lastBox->value()};
}

void ScoreControls::setWeights(const geometry::ScoreWeights& weights) {
  changeQuietly([&] {
    const double values[3] = {weights.curvature, weights.monotonicity, weights.effectiveRank};
    for (int i = 0; i < 3; ++i) {
      m_weightBoxes[i]->setValue(values[i]);
      m_weightSliders[i]->setValue(static_cast<int>(std::lround(values[i] * kSliderSteps)));
    }
  });
}

void ScoreControls::setCandidates(const geometry::LayerRange& candidates) {
  changeQuietly([&] {
    // Clamp into the bounds first, then keep first ≤ last.
    m_firstBox->setValue(static_cast<int>(candidates.first));
    m_lastBox->setValue(static_cast<int>(candidates.last));
    if (m_lastBox->value() < m_firstBox->value()) m_lastBox->setValue(m_firstBox->value());
    m_firstSlider->setValue(m_firstBox->value());
    m_lastSlider->setValue(m_lastBox->value());
  });
}

void ScoreControls::reset() {
  setWeights({});
  setPluginWeights(std::vector<double>(m_pluginBoxes.size(), 0.0));
  setCandidates(m_defaults);
}

void ScoreControls::setPluginMetrics(const std::vector<geometry::MetricInfo>& metrics) {
  std::vector<double> kept;
  for (const auto& m : metrics) {
    const auto it = std::find(m_pluginNames.begin(), m_pluginNames.end(), m.name);
    kept.push_back(it == m_pluginNames.end() ? 0.0
                                             : m_pluginBoxes[std::size_t(it - m_pluginNames.begin())]->value());
  }
  while (QLayoutItem* item = m_pluginGrid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  m_pluginNames.clear();
  m_pluginSliders.clear();
  m_pluginBoxes.clear();
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    const auto& m = metrics[i];
    const QString name = QString::fromStdString(m.name);
    const QString tip =
        tr("Weight of z(%1) from a plugin: %2 (higher %1 %3 S)")
            .arg(name, QString::fromStdString(m.description),
                 m.higherIsBetter ? tr("raises") : tr("lowers"));
    auto* label = new QLabel(QStringLiteral("w_%1").arg(name), m_pluginRows);
    auto* slider = makeSlider(m_pluginRows, 0, static_cast<int>(kMaxWeight * kSliderSteps));
    auto* box = new QDoubleSpinBox(m_pluginRows);
    box->setRange(0, kMaxWeight);
    box->setSingleStep(0.1);
    box->setDecimals(2);
    for (QWidget* w : {static_cast<QWidget*>(label), static_cast<QWidget*>(slider),
                       static_cast<QWidget*>(box)})
      w->setToolTip(tip);
    slider->setObjectName(name + QStringLiteral("WeightSlider"));
    box->setObjectName(name + QStringLiteral("WeightBox"));
    box->blockSignals(true);
    slider->blockSignals(true);
    box->setValue(kept[i]);
    slider->setValue(static_cast<int>(std::lround(kept[i] * kSliderSteps)));
    box->blockSignals(false);
    slider->blockSignals(false);
    const int row = static_cast<int>(i);
    m_pluginGrid->addWidget(label, row, 0);
    m_pluginGrid->addWidget(slider, row, 1);
    m_pluginGrid->addWidget(box, row, 2);
    connect(slider, &QSlider::valueChanged, this, [this, box](int position) {
      changeQuietly([&] { box->setValue(static_cast<double>(position) / kSliderSteps); });
    });
    connect(box, &QDoubleSpinBox::valueChanged, this, [this, slider](double value) {
      changeQuietly([&] { slider->setValue(static_cast<int>(std::lround(value * kSliderSteps))); });
    });
    m_pluginNames.push_back(m.name);
    m_pluginSliders.push_back(slider);
    m_pluginBoxes.push_back(box);
  }
  m_pluginRows->setVisible(!metrics.empty());
  changeQuietly([] {});
}

std::vector<double> ScoreControls::pluginWeights() const {
  std::vector<double> out;
  for (const QDoubleSpinBox* box : m_pluginBoxes) out.push_back(box->value());
  return out;
}

void ScoreControls::setPluginWeights(const std::vector<double>& weights) {
  changeQuietly([&] {
    for (std::size_t i = 0; i < m_pluginBoxes.size() && i < weights.size(); ++i) {
      m_pluginBoxes[i]->setValue(weights[i]);
      m_pluginSliders[i]->setValue(static_cast<int>(std::lround(weights[i] * kSliderSteps)));
    }
  });
}

void ScoreControls::weightSliderMoved(int which, int position) {
  changeQuietly(
      [&] { m_weightBoxes[which]->setValue(static_cast<double>(position) / kSliderSteps); });
}

void ScoreControls::weightBoxChanged(int which, double value) {
  changeQuietly([&] {
    m_weightSliders[which]->setValue(static_cast<int>(std::lround(value * kSliderSteps)));
  });
}

void ScoreControls::rangeChanged(bool firstMoved, int value) {
  changeQuietly([&] {
    // Whichever end moves pushes the other along so that first ≤ last.
    if (firstMoved) {
      m_firstBox->setValue(value);
      if (m_lastBox->value() < value) m_lastBox->setValue(value);
    } else {
      m_lastBox->setValue(value);
      if (m_firstBox->value() > value) m_firstBox->setValue(value);
    }
    m_firstSlider->setValue(m_firstBox->value());
    m_lastSlider->setValue(m_lastBox->value());
  });
}

}  // namespace strata
