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
constexpr int kRowSpacing = 2;     // pixels between two rows of controls

QSlider* makeSlider(QWidget* parent, int minimum, int maximum) {
  auto* slider = new QSlider(Qt::Horizontal, parent);
  slider->setRange(minimum, maximum);
  slider->setMinimumWidth(120);
  return slider;
}

}  // namespace

ScoreControls::ScoreControls(QWidget* parent) : QWidget(parent) {
  // One grid, so that every row's label, slider and box line up: the title and Reset, the
  // proxies' weights, the candidate range, then the plugin metrics' weights (setSeries; 0 by
  // default, so they come last: when the controls scroll beside a long table, these are what scroll
  // away).
  m_grid = new QGridLayout(this);
  m_grid->setContentsMargins(0, 0, 0, 0);
  m_grid->setColumnStretch(1, 1);
  // Tight rows: beside a table of many layers, every pixel of height counts.
  m_grid->setVerticalSpacing(kRowSpacing);

  const QString rangeTip = tr("Candidate layers for l*: S is z-scored over first..last");
  m_firstSlider = makeSlider(this, 0, 0);
  m_lastSlider = makeSlider(this, 0, 0);
  m_firstBox = new QSpinBox(this);
  m_lastBox = new QSpinBox(this);
  m_firstLabel = new QLabel(tr("First layer"), this);
  m_lastLabel = new QLabel(tr("Last layer"), this);
  m_firstSlider->setObjectName(QStringLiteral("firstLayerSlider"));
  m_lastSlider->setObjectName(QStringLiteral("lastLayerSlider"));
  m_firstBox->setObjectName(QStringLiteral("firstLayerBox"));
  m_lastBox->setObjectName(QStringLiteral("lastLayerBox"));
  for (QWidget* w : {static_cast<QWidget*>(m_firstLabel), static_cast<QWidget*>(m_lastLabel),
                     static_cast<QWidget*>(m_firstSlider), static_cast<QWidget*>(m_lastSlider),
                     static_cast<QWidget*>(m_firstBox), static_cast<QWidget*>(m_lastBox)})
    w->setToolTip(rangeTip);
  m_firstSlider->setPageStep(1);
  m_lastSlider->setPageStep(1);
  connect(m_firstSlider, &QSlider::valueChanged, this, [this](int v) { rangeChanged(true, v); });
  connect(m_firstBox, &QSpinBox::valueChanged, this, [this](int v) { rangeChanged(true, v); });
  connect(m_lastSlider, &QSlider::valueChanged, this, [this](int v) { rangeChanged(false, v); });
  connect(m_lastBox, &QSpinBox::valueChanged, this, [this](int v) { rangeChanged(false, v); });

  m_title = new QLabel(tr("<b>Score S(l)</b>"), this);
  m_reset = new QPushButton(tr("Reset"), this);
  m_reset->setToolTip(
      tr("Every weight to its default (1 for a proxy, 0 for a plugin metric) and "
         "candidates 1..L−1"));
  connect(m_reset, &QPushButton::clicked, this, &ScoreControls::reset);

  setSeries(geometry::builtInSeries());
}

void ScoreControls::layOutRows() {
  while (QLayoutItem* item = m_grid->takeAt(0)) delete item;  // the widgets stay
  // Reset on the title's row: the controls scroll beside a long table, and their top row is
  // the one always in view (below the candidates it was cut off at the default window size).
  m_grid->addWidget(m_title, 0, 0, 1, 2);
  m_grid->addWidget(m_reset, 0, 2);
  int row = 1;
  const auto add = [&](QWidget* label, QWidget* slider, QWidget* box) {
    m_grid->addWidget(label, row, 0);
    m_grid->addWidget(slider, row, 1);
    m_grid->addWidget(box, row, 2);
    ++row;
  };
  for (const WeightRow& weight : m_rows)
    if (weight.builtIn) add(weight.label, weight.slider, weight.box);
  add(m_firstLabel, m_firstSlider, m_firstBox);
  add(m_lastLabel, m_lastSlider, m_lastBox);
  for (const WeightRow& weight : m_rows)
    if (!weight.builtIn) add(weight.label, weight.slider, weight.box);
}

ScoreControls::WeightRow ScoreControls::makeRow(const geometry::MetricSeries& series) {
  const QString name = QString::fromStdString(series.info.name);
  const QString term = series.transform == geometry::ScoreTransform::Log
                           ? QStringLiteral("z(log %1)").arg(name)
                           : QStringLiteral("z(%1)").arg(name);
  const QString tip = tr("Weight of %1 in S (higher %2 %3 S)%4: %5")
                          .arg(term, name, series.info.higherIsBetter ? tr("raises") : tr("lowers"),
                               series.builtIn ? QString() : tr(", from a plugin"),
                               QString::fromStdString(series.info.description));
  WeightRow row;
  row.name = series.info.name;
  row.defaultWeight = series.defaultWeight();
  row.builtIn = series.builtIn;
  row.label = new QLabel(QString::fromStdString(series.weightName), this);
  row.slider = makeSlider(this, 0, static_cast<int>(kMaxWeight * kSliderSteps));
  row.box = new QDoubleSpinBox(this);
  row.box->setRange(0, kMaxWeight);
  row.box->setSingleStep(0.1);
  row.box->setDecimals(2);
  for (QWidget* w : {static_cast<QWidget*>(row.label), static_cast<QWidget*>(row.slider),
                     static_cast<QWidget*>(row.box)})
    w->setToolTip(tip);
  row.slider->setObjectName(name + QStringLiteral("WeightSlider"));
  row.box->setObjectName(name + QStringLiteral("WeightBox"));
  {
    const QSignalBlocker quietBox(row.box), quietSlider(row.slider);
    row.box->setValue(row.defaultWeight);
    row.slider->setValue(static_cast<int>(std::lround(row.defaultWeight * kSliderSteps)));
  }
  QSlider* slider = row.slider;
  QDoubleSpinBox* box = row.box;
  connect(slider, &QSlider::valueChanged, this, [this, box](int position) {
    changeQuietly([&] { box->setValue(static_cast<double>(position) / kSliderSteps); });
  });
  connect(box, &QDoubleSpinBox::valueChanged, this, [this, slider](double value) {
    changeQuietly([&] { slider->setValue(static_cast<int>(std::lround(value * kSliderSteps))); });
  });
  return row;
}

template <typename Change>
void ScoreControls::changeQuietly(Change change) {
  {
    std::vector<QWidget*> widgets{m_firstSlider, m_lastSlider, m_firstBox, m_lastBox};
    for (const WeightRow& row : m_rows) widgets.insert(widgets.end(), {row.slider, row.box});
    for (QWidget* w : widgets) w->blockSignals(true);
    change();
    for (QWidget* w : widgets) w->blockSignals(false);
  }
  // Compared with what was last announced: a spin box has its new value before we get here.
  const geometry::ScoreWeights w = weights();
  const geometry::LayerRange r = candidates();
  if (w == m_announcedWeights && r.first == m_announcedRange.first &&
      r.last == m_announcedRange.last)
    return;
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
  geometry::ScoreWeights out;
  for (const WeightRow& row : m_rows) out.push_back(row.box->value());
  return out;
}

geometry::LayerRange ScoreControls::candidates() const {
  return {m_firstBox->value(), m_lastBox->value()};
}

void ScoreControls::setWeights(const geometry::ScoreWeights& weights) {
  changeQuietly([&] {
    for (std::size_t i = 0; i < m_rows.size() && i < weights.size(); ++i) {
      m_rows[i].box->setValue(weights[i]);
      m_rows[i].slider->setValue(static_cast<int>(std::lround(weights[i] * kSliderSteps)));
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
  geometry::ScoreWeights defaults;
  for (const WeightRow& row : m_rows) defaults.push_back(row.defaultWeight);
  setWeights(defaults);
  setCandidates(m_defaults);
}

void ScoreControls::setSeries(const std::vector<geometry::MetricSeries>& series) {
  std::vector<WeightRow> rows;
  for (const geometry::MetricSeries& s : series) {
    const auto same = std::find_if(m_rows.begin(), m_rows.end(),
                                   [&](const WeightRow& row) { return row.name == s.info.name; });
    if (same == m_rows.end()) {
      rows.push_back(makeRow(s));
      continue;
    }
    rows.push_back(*same);  // the same widgets, with their weight
    m_rows.erase(same);
  }
  for (const WeightRow& gone : m_rows) {
    delete gone.label;
    delete gone.slider;
    delete gone.box;
  }
  m_rows = std::move(rows);
  layOutRows();
  changeQuietly([] {});
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
