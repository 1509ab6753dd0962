#pragma once
// GeometryTableModel: one row per layer of a GeometryReport, one column per metric series of it
// (geometry::metricSeries) — the three proxies, the score S and the rank under the current
// weights and candidates (the main columns, kMainColumns, which the table keeps in view), S's
// bootstrap interval, how often the layer is l* over the resamples, the three proxies' bootstrap
// intervals, then the plugin metrics' series (point values; ColumnCount + i is plugin metric i).
// Every cell is one line, so a table of 30 to 80 layers shows many rows at once and the main
// columns stay narrow; a proxy cell's tooltip holds its value with its interval.
// The report is an immutable snapshot; the scores are replaced (setScores) on every slider
// move, which only changes the S, rank and highlight of the rows. GUI thread only.

#include <QAbstractTableModel>
#include <QString>
#include <memory>
#include <vector>

#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/score_bootstrap.h"

namespace strata {

/** "0.1234" — four significant digits, "—" for an undefined value (NaN, ±∞). */
QString geometryNumberText(double value);
/** "0.1234 [0.1100, 0.1350]": a proxy with its bootstrap interval. */
QString proxyIntervalText(double value, const geometry::Interval& interval);
/** "[0.1100, 0.1350]": a bootstrap interval alone (the table's interval columns). */
QString intervalText(const geometry::Interval& interval);

class GeometryTableModel final : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    LayerColumn,
    CurvatureColumn,
    MonotonicityColumn,
    EffectiveRankColumn,
    ScoreColumn,
    RankColumn,
    ScoreIntervalColumn,
    BestFrequencyColumn,
    CurvatureIntervalColumn,
    MonotonicityIntervalColumn,
    EffectiveRankIntervalColumn,
    ColumnCount
  };
  /** Layer, the three proxies, S and rank: the columns the table shows without scrolling. */
  static constexpr int kMainColumns = ScoreIntervalColumn;
  /** The raw number behind a cell (layer, value, S, rank), for sorting. */
  static constexpr int SortRole = Qt::UserRole + 1;

  explicit GeometryTableModel(QObject* parent = nullptr);

  void setReport(std::shared_ptr<const geometry::GeometryReport> report);
  /** Scores of the report's layers, in report order (geometry::scoreSeries' scores). */
  void setScores(const geometry::LayerScores& scores);
  /** S intervals and l* frequencies under the same weights (geometry::bootstrapScores). */
  void setScoreBootstrap(const geometry::ScoreBootstrap& bootstrap);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

  /** The layer shown in `row`; -1 when out of range. */
  int64_t layerAt(int row) const;
  /** The row of `layer`; -1 when the report has no such layer. */
  int rowOf(int64_t layer) const;
  /** The row of l*; -1 when there is none. */
  int bestRow() const { return static_cast<int>(m_scores.bestIndex); }
  /**
   * The warnings of the layer in `row`: its own (LayerGeometry::warnings) then the score's about
   * it (LayerScores::warnings). A row with any shows "⚠" after the layer, a warning icon, and the
   * warnings as the tooltip of every cell.
   */
  std::vector<geometry::ProxyWarning> warningsAt(int row) const;
  /** The warnings of `row`, one "⚠ layer l, proxy: reason" line each; empty when none. */
  QString warningText(int row) const;
  /** The column of plugin metric `index` of the report. */
  static int pluginColumn(int index) { return ColumnCount + index; }

  /**
   * The table as CSV with a header line: layer, each proxy with its _low and _high bounds,
   * score (empty outside the candidates) with score_low, score_high and l_star_frequency
   * (empty without resamples), rank (0 outside them), best (1 on l*'s row), then each plugin
   * metric by name.
   * Numbers are written with 17 significant digits, so they read back exactly.
   */
  QString csv() const;

 private:
  /** The series shown in `column` (its values, or its intervals in an interval column), or
   *  null for the layer, score and rank columns. */
  const geometry::MetricSeries* seriesAt(int column) const;
  static bool isIntervalColumn(int column) {
    return column >= CurvatureIntervalColumn && column <= EffectiveRankIntervalColumn;
  }

  std::shared_ptr<const geometry::GeometryReport> m_report;
  std::vector<geometry::MetricSeries> m_series;  // of m_report
  geometry::LayerScores m_scores;
  geometry::ScoreBootstrap m_bootstrap;
};

}  // namespace strata
