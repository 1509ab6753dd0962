#include "geometry_table_model.h"

#include <QApplication>
#include <QBrush>
#include <QColor>
#include <QFont>
#include <QPalette>
#include <QStringList>
#include <QStyle>
#include <climits>
#include <cmath>

namespace strata {
namespace {

QString exactText(double value) {
  return geometry::isDefined(value) ? QString::number(value, 'g', 17) : QString();
}

double sortable(double value) { return geometry::isDefined(value) ? value : -HUGE_VAL; }

}  // namespace

QString geometryNumberText(double value) {
  return geometry::isDefined(value) ? QString::number(value, 'g', 4) : QStringLiteral("—");
}

QString proxyIntervalText(double value, const geometry::Interval& interval) {
  return QStringLiteral("%1 [%2, %3]")
      .arg(geometryNumberText(value), geometryNumberText(interval.low),
           geometryNumberText(interval.high));
}

QString intervalText(const geometry::Interval& interval) {
  return QStringLiteral("[%1, %2]")
      .arg(geometryNumberText(interval.low), geometryNumberText(interval.high));
}

GeometryTableModel::GeometryTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void GeometryTableModel::setReport(std::shared_ptr<const geometry::GeometryReport> report) {
  beginResetModel();
  m_report = std::move(report);
  m_series = m_report ? geometry::metricSeries(*m_report) : std::vector<geometry::MetricSeries>{};
  m_scores = {};
  endResetModel();
}

void GeometryTableModel::setScores(const geometry::LayerScores& scores) {
  m_scores = scores;
  if (rowCount() > 0) emit dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
}

void GeometryTableModel::setScoreBootstrap(const geometry::ScoreBootstrap& bootstrap) {
  m_bootstrap = bootstrap;
  if (rowCount() > 0)
    emit dataChanged(index(0, ScoreIntervalColumn), index(rowCount() - 1, BestFrequencyColumn));
}

std::vector<geometry::ProxyWarning> GeometryTableModel::warningsAt(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  const geometry::LayerGeometry& layer = m_report->layers[static_cast<std::size_t>(row)];
  std::vector<geometry::ProxyWarning> out = layer.warnings;
  for (const geometry::ProxyWarning& w : m_scores.warnings)
    if (w.layer == layer.layer) out.push_back(w);
  return out;
}

QString GeometryTableModel::warningText(int row) const {
  QStringList lines;
  for (const geometry::ProxyWarning& w : warningsAt(row))
    lines << QStringLiteral("⚠ ") + QString::fromStdString(w.text());
  return lines.join(QLatin1Char('\n'));
}

int GeometryTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !m_report ? 0 : static_cast<int>(m_report->layers.size());
}

int GeometryTableModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  const std::size_t plugins = m_series.size() > geometry::kBuiltInSeriesCount
                                  ? m_series.size() - geometry::kBuiltInSeriesCount
                                  : 0;
  return ColumnCount + static_cast<int>(plugins);
}

const geometry::MetricSeries* GeometryTableModel::seriesAt(int column) const {
  // The proxies sit between the layer and S (CurvatureColumn = 1 + kCurvatureSeries, …), the
  // plugin metrics after the fixed columns.
  std::size_t index = m_series.size();
  if (column >= CurvatureColumn && column <= EffectiveRankColumn)
    index = static_cast<std::size_t>(column - CurvatureColumn);
  else if (isIntervalColumn(column))
    index = static_cast<std::size_t>(column - CurvatureIntervalColumn);
  else if (column >= ColumnCount)
    index = geometry::kBuiltInSeriesCount + static_cast<std::size_t>(column - ColumnCount);
  return index < m_series.size() ? &m_series[index] : nullptr;
}

QVariant GeometryTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const auto row = static_cast<std::size_t>(index.row());
  const geometry::LayerGeometry& layer = m_report->layers[row];
  const bool scored = row < m_scores.score.size();
  const double score = scored ? m_scores.score[row] : std::nan("");
  const int rank = scored ? m_scores.rank[row] : 0;
  const bool best = index.row() == bestRow();
  const geometry::Interval scoreInterval = row < m_bootstrap.score.size()
                                               ? m_bootstrap.score[row]
                                               : geometry::Interval{std::nan(""), std::nan("")};
  const double bestFrequency =
      row < m_bootstrap.bestFrequency.size() ? m_bootstrap.bestFrequency[row] : std::nan("");
  const bool excludesPoint =
      row < m_bootstrap.excludesPoint.size() && m_bootstrap.excludesPoint[row];
  const geometry::MetricSeries* series = seriesAt(index.column());
  // A layer with warnings (undefined proxies, exclusion from S) says why in every cell's tooltip.
  const QString warnings = warningText(index.row());
  if (role == Qt::ToolTipRole && !warnings.isEmpty()) return warnings;
  const bool hasInterval = series && row < series->intervals.size();
  if (series && isIntervalColumn(index.column())) {
    // A proxy's interval on its own (the value is in the main columns); sorted by its lower end
    // like S's interval.
    const geometry::Interval interval =
        hasInterval ? series->intervals[row] : geometry::Interval{std::nan(""), std::nan("")};
    if (role == Qt::DisplayRole) return intervalText(interval);
    if (role == SortRole) return sortable(interval.low);
  } else if (series) {
    if (role == Qt::DisplayRole) return geometryNumberText(series->values[row]);
    // Undefined values sort below every defined one.
    if (role == SortRole) return sortable(series->values[row]);
    // One line per cell: the interval is in the tooltip (and in the interval columns).
    if (role == Qt::ToolTipRole && hasInterval) {
      const QString tip = tr("%1 %2 (bootstrap interval)")
                              .arg(QString::fromStdString(series->info.name),
                                   proxyIntervalText(series->values[row], series->intervals[row]));
      return rank > 0 ? tip
                      : tip + QLatin1Char('\n') +
                            tr("Layer %1 is outside the candidate range").arg(layer.layer);
    }
  }

  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case LayerColumn:
          return (best ? QStringLiteral("%1  (l*)").arg(layer.layer)
                       : QString::number(layer.layer)) +
                 (warnings.isEmpty() ? QString() : QStringLiteral(" ⚠"));
        case ScoreColumn:
          return geometryNumberText(score);
        case ScoreIntervalColumn:
          return QStringLiteral("[%1, %2]%3")
              .arg(geometryNumberText(scoreInterval.low), geometryNumberText(scoreInterval.high),
                   excludesPoint ? QStringLiteral(" *") : QString());
        case BestFrequencyColumn:
          return geometry::isDefined(bestFrequency) ? QString::number(bestFrequency, 'f', 2)
                                                    : QStringLiteral("—");
        case RankColumn:
          return rank > 0 ? QString::number(rank) : QStringLiteral("—");
        default:
          return {};
      }
    case SortRole:
      switch (index.column()) {
        case LayerColumn:
          return static_cast<qlonglong>(layer.layer);
        case ScoreColumn:  // layers without a score sort below every scored one
          return sortable(score);
        case ScoreIntervalColumn:
          return sortable(scoreInterval.low);
        case BestFrequencyColumn:
          return sortable(bestFrequency);
        case RankColumn:
          return rank > 0 ? rank : INT_MAX;
        default:
          return {};
      }
    case Qt::TextAlignmentRole:
      return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
      if (best) {
        QFont font;
        font.setBold(true);
        return font;
      }
      return {};
    case Qt::BackgroundRole:
      if (best) return QBrush(QColor(255, 200, 60, 110));  // the l* row stands out in any theme
      return {};
    case Qt::DecorationRole:
      if (index.column() == LayerColumn && !warnings.isEmpty())
        return QApplication::style()->standardIcon(QStyle::SP_MessageBoxWarning);
      return {};
    case Qt::ForegroundRole:
      if (rank == 0) return QBrush(QPalette().color(QPalette::Disabled, QPalette::Text));
      return {};
    case Qt::ToolTipRole:
      if (rank == 0) return tr("Layer %1 is outside the candidate range").arg(layer.layer);
      if (index.column() == ScoreIntervalColumn && excludesPoint)
        return tr(
            "* The interval does not contain S: on resamples the z-scores of the most "
            "extreme layers shrink toward 0 (docs/geometry.md, \"Intervals\")");
      return best ? tr("l*: the layer with the highest score S") : QVariant();
    default:
      return {};
  }
}

QVariant GeometryTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (const geometry::MetricSeries* series = seriesAt(section)) {
    const QString name = QString::fromStdString(series->info.name);
    const bool intervals = !series->intervals.empty();
    if (role == Qt::DisplayRole) return isIntervalColumn(section) ? name + tr(" [lo, hi]") : name;
    if (role == Qt::ToolTipRole) {
      const QString direction = series->info.higherIsBetter ? tr("higher") : tr("lower");
      QString tip = series->builtIn
                        ? QString::fromStdString(series->info.description)
                        : tr("%1 (plugin; %2 is better)\n%3")
                              .arg(QString::fromStdString(series->info.description), direction,
                                   QString::fromStdString(series->info.source));
      // How each proxy's resamples are drawn: docs/geometry.md, "Intervals".
      if (intervals) tip += tr(", with its bootstrap interval over the token resamples");
      return tip;
    }
    return {};
  }
  if (role == Qt::DisplayRole) {
    switch (section) {
      case LayerColumn:
        return tr("Layer");
      case ScoreColumn:
        return tr("S");
      case ScoreIntervalColumn:
        return tr("S [lo, hi]");
      case BestFrequencyColumn:
        return tr("l* freq");
      case RankColumn:
        return tr("Rank");
      default:
        return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case ScoreColumn:
        return tr(
            "S = w_c·z(log m_curv) + w_m·z(log m_mono) − w_k·z(log k_eff) (+ the weighted "
            "plugin metrics), z over the candidate layers");
      case ScoreIntervalColumn:
        return tr(
            "Percentile interval of S over the token resamples (S and l* recomputed on "
            "each resample, the same tokens on every layer)");
      case BestFrequencyColumn:
        return tr("Share of the token resamples whose l* is this layer");
      case RankColumn:
        return tr("1 = l*, the best candidate layer");
      default:
        return {};
    }
  }
  return {};
}

int64_t GeometryTableModel::layerAt(int row) const {
  return row >= 0 && row < rowCount() ? m_report->layers[static_cast<std::size_t>(row)].layer : -1;
}

int GeometryTableModel::rowOf(int64_t layer) const {
  for (int row = 0; row < rowCount(); ++row)
    if (layerAt(row) == layer) return row;
  return -1;
}

QString GeometryTableModel::csv() const {
  // The proxies with their bounds, the score columns, then the plugin metrics (as the CLI's CSV).
  QStringList header{QStringLiteral("layer")};
  for (const geometry::MetricSeries& series : m_series)
    if (series.builtIn)
      for (const char* suffix : {"", "_low", "_high"})
        header << QString::fromStdString(series.info.name) + QLatin1String(suffix);
  header << QStringLiteral("score,score_low,score_high,l_star_frequency,rank,best");
  for (const geometry::MetricSeries& series : m_series)
    if (!series.builtIn) header << QString::fromStdString(series.info.name);
  QStringList lines{header.join(QLatin1Char(','))};
  for (int row = 0; row < rowCount(); ++row) {
    const auto r = static_cast<std::size_t>(row);
    const bool scored = r < m_scores.score.size();
    QStringList cells{QString::number(m_report->layers[r].layer)};
    for (const geometry::MetricSeries& series : m_series)
      if (series.builtIn)
        cells << exactText(series.values[r]) << exactText(series.intervals[r].low)
              << exactText(series.intervals[r].high);
    cells << (scored ? exactText(m_scores.score[r]) : QString())
          << (r < m_bootstrap.score.size() ? exactText(m_bootstrap.score[r].low) : QString())
          << (r < m_bootstrap.score.size() ? exactText(m_bootstrap.score[r].high) : QString())
          << (r < m_bootstrap.bestFrequency.size() ? exactText(m_bootstrap.bestFrequency[r])
                                                   : QString())
          << QString::number(scored ? m_scores.rank[r] : 0)
          << (row == bestRow() ? QStringLiteral("1") : QStringLiteral("0"));
    for (const geometry::MetricSeries& series : m_series)
      if (!series.builtIn) cells << exactText(series.values[r]);
    lines << cells.join(QLatin1Char(','));
  }
  return lines.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

}  // namespace strata
