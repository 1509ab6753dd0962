#include "alignment_table.h"

#include <QLocale>
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/metrics_log.h"

namespace strata {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// No model Strata trains has this many hidden states: a larger index belongs to some other
// metric, and taking it would allocate a huge row.
constexpr int kMaxLayers = 4096;

/** l of "<prefix><l>", or -1 when `name` is not such a name. */
int layerOf(const std::string& name, const std::string& prefix) {
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return -1;
  int layer = 0;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    const char c = name[i];
    if (c < '0' || c > '9') return -1;
    layer = layer * 10 + (c - '0');
    if (layer >= kMaxLayers) return -1;
  }
  return layer;
}

/** The index of `step` in the ascending `steps`; a new step is inserted in order and
 *  `onInsert(index)` keeps the caller's parallel vector aligned. */
template <typename OnInsert>
size_t rowOf(std::vector<int64_t>& steps, int64_t step, OnInsert onInsert) {
  const auto it = steps.empty() || steps.back() < step  // the usual case: a new, later step
                      ? steps.end()
                      : std::lower_bound(steps.begin(), steps.end(), step);
  const auto index = static_cast<size_t>(it - steps.begin());
  if (it == steps.end() || *it != step) {
    steps.insert(it, step);
    onInsert(index);
  }
  return index;
}

void add(StepSeries& series, int64_t step, double value) {
  const size_t row = rowOf(series.steps, step, [&](size_t index) {
    series.values.insert(series.values.begin() + static_cast<std::ptrdiff_t>(index), kNaN);
  });
  series.values[row] = value;
}

QString number(double value) { return QString::number(value, 'g', QLocale::FloatingPointShortest); }

}  // namespace

std::string cosinePrefix(CosineSource source) {
  return source == CosineSource::Training ? "align_cos_" : "val_align_cos_";
}

void AlignmentTable::append(const std::vector<engine::MetricsRecord>& records) {
  const std::string trainingPrefix = cosinePrefix(CosineSource::Training);
  const std::string validationPrefix = cosinePrefix(CosineSource::Validation);
  std::vector<std::pair<int, double>> training, validation;
  for (const engine::MetricsRecord& record : records) {
    training.clear();
    validation.clear();
    for (const auto& [name, value] : record.values) {
      if (const int l = layerOf(name, trainingPrefix); l >= 0)
        training.emplace_back(l, value);
      else if (const int v = layerOf(name, validationPrefix); v >= 0)
        validation.emplace_back(v, value);
      else if (name == "val_loss")
        add(m_valLoss, record.step, value);
      else if (name == "val_masked_acc")
        add(m_valMaskedAcc, record.step, value);
    }
    addCells(m_training, record.step, training);
    addCells(m_validation, record.step, validation);
  }
}

void AlignmentTable::addCells(CosineRows& table, int64_t step,
                              const std::vector<std::pair<int, double>>& cells) {
  if (cells.empty()) return;
  const size_t row = rowOf(table.steps, step, [&table](size_t index) {
    table.values.insert(table.values.begin() + static_cast<std::ptrdiff_t>(index),
                        std::vector<double>());
  });
  std::vector<double>& values = table.values[row];
  for (const auto& [layer, value] : cells) {
    if (values.size() <= static_cast<size_t>(layer))
      values.resize(static_cast<size_t>(layer) + 1, kNaN);
    values[static_cast<size_t>(layer)] = value;
    table.layers = std::max(table.layers, layer + 1);
  }
}

void AlignmentTable::clear() { *this = AlignmentTable(); }

double AlignmentTable::cosine(CosineSource source, size_t row, int layer) const {
  const CosineRows& table = rows(source);
  if (row >= table.values.size() || layer < 0) return kNaN;
  const std::vector<double>& cells = table.values[row];
  return static_cast<size_t>(layer) < cells.size() ? cells[static_cast<size_t>(layer)] : kNaN;
}

QString AlignmentTable::csv(CosineSource source) const {
  const CosineRows& table = rows(source);
  const QString prefix = QString::fromStdString(cosinePrefix(source));
  QString text = QStringLiteral("step");
  for (int l = 0; l < table.layers; ++l) text += QLatin1Char(',') + prefix + QString::number(l);
  text += QLatin1Char('\n');
  for (size_t row = 0; row < table.steps.size(); ++row) {
    text += QString::number(table.steps[row]);
    for (int l = 0; l < table.layers; ++l) {
      text += QLatin1Char(',');
      if (const double value = cosine(source, row, l); !std::isnan(value)) text += number(value);
    }
    text += QLatin1Char('\n');
  }
  return text;
}

}  // namespace strata
