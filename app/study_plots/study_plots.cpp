// A study's plots (see study_plots.h).

#include "study_plots.h"

#include <QDir>
#include <QFile>
#include <cmath>

#include "curve_chart.h"
#include "interval_chart.h"
#include "studies/report/study_report_reader.h"

namespace strata {
namespace {

QVector<double> numbersOf(const std::vector<double>& values) {
  return QVector<double>(values.begin(), values.end());
}

QString text(const std::string& s) { return QString::fromStdString(s); }

charts::IntervalCategory categoryOf(const QString& label, const studies::SeedSummary& summary) {
  return {label, summary.mean, summary.low, summary.high, numbersOf(summary.values)};
}

/** Per reported metric: the arms' means with their intervals and seeds, and the reference
 *  values its claims compare against. */
void writeMetricCharts(const studies::StudyReport& study, const QString& plots,
                       QStringList& written) {
  const QString name = text(study.study);
  for (const studies::StudyMetric& metric : study.metrics) {
    charts::IntervalChart chart;
    chart.title = name + ": " + text(metric.label) + " (mean, 95 % bootstrap interval, seeds)";
    chart.valueLabel = text(metric.label);
    for (const std::string& arm : study.arms)
      if (const auto summary = study.aggregate(arm, metric.key))
        chart.categories.push_back(categoryOf(text(arm), *summary));
    if (chart.categories.isEmpty()) continue;
    for (const studies::StudyReportClaim& claim : study.claims)
      if (claim.metric == metric.key && !claim.reference.empty()) {
        const auto fact = study.facts.find(claim.reference);
        if (fact != study.facts.end() && std::isfinite(fact->second))
          chart.references.push_back({text(claim.reference), fact->second});
      }
    const QString file = QDir(plots).filePath(text(metric.key) + ".png");
    charts::writeIntervalChart(chart, file);
    written << file;
  }
}

/** Per curve: the arms' means over steps with the interval as a band. */
void writeCurveCharts(const studies::StudyReport& study, const QString& plots,
                      QStringList& written) {
  const QString name = text(study.study);
  for (const auto& [curve, arms] : study.curves) {
    charts::CurveChart chart;
    // "<y>_by_<x>" is a curve over x (e.g. the mask ratio) at the end of training; else over
    // steps.
    const size_t by = curve.find("_by_");
    if (by == std::string::npos) {
      chart.title = name + ": " + text(curve) + " over training (mean over seeds, 95 % band)";
      chart.xLabel = "step";
      chart.yLabel = text(curve);
    } else {
      chart.title = name + ": " + text(curve.substr(0, by)) + " (mean over seeds, 95 % band)";
      chart.xLabel = text(curve.substr(by + 4)).replace('_', ' ');
      chart.yLabel = text(curve.substr(0, by));
    }
    for (const auto& [arm, c] : arms)
      chart.series.push_back(
          {text(arm), numbersOf(c.x), numbersOf(c.mean), numbersOf(c.low), numbersOf(c.high)});
    if (chart.series.isEmpty()) continue;
    const QString file = QDir(plots).filePath("curve_" + text(curve) + ".png");
    charts::writeCurveChart(chart, file);
    written << file;
  }
}

/** A table's columns against its first (e.g. DiHAL's proxies and S per layer), each with its
 *  interval "<c>_low"/"<c>_high" as a band. */
void writeTableCharts(const studies::StudyReport& study, const QString& plots,
                      QStringList& written) {
  const QString name = text(study.study);
  for (const auto& [table, t] : study.tables) {
    const auto columnOf = [&](const std::string& c) -> int {
      for (size_t i = 0; i < t.columns.size(); ++i)
        if (t.columns[i] == c) return static_cast<int>(i);
      return -1;
    };
    const auto valuesOf = [&](int column) {
      QVector<double> values;
      for (const auto& row : t.rows)
        values.push_back(column < static_cast<int>(row.size()) ? row[size_t(column)] : NAN);
      return values;
    };
    if (t.columns.empty()) continue;
    const std::string& x = t.columns.front();
    for (size_t c = 1; c < t.columns.size(); ++c) {
      const std::string& column = t.columns[c];
      if (column.ends_with("_low") || column.ends_with("_high")) continue;
      charts::CurveChart chart;
      chart.title = name + ": " + text(column) + " by " + text(x) + " (" + text(table) + ")";
      chart.xLabel = text(x);
      chart.yLabel = text(column);
      charts::CurveSeries series{text(column), valuesOf(0), valuesOf(static_cast<int>(c)), {}, {}};
      const int low = columnOf(column + "_low"), high = columnOf(column + "_high");
      if (low >= 0 && high >= 0) {
        series.low = valuesOf(low);
        series.high = valuesOf(high);
      }
      chart.series.push_back(series);
      const QString file =
          QDir(plots).filePath("table_" + text(table) + "_" + text(column) + ".png");
      charts::writeCurveChart(chart, file);
      written << file;
    }
  }
}

/** "\nlayer-permutation p = 0.096" when the claim has that test beside its interval. */
QString permutationLine(const studies::StudyReport& study, const studies::StudyReportClaim& claim) {
  if (claim.permutationP.empty()) return {};
  const auto p = study.acrossSeeds.find(claim.permutationP);
  if (p == study.acrossSeeds.end() || !std::isfinite(p->second)) return {};
  return "\nlayer-permutation p = " + QString::number(p->second, 'f', 3) + " (one-sided)";
}

/** Per metric with claims: the claims' paired differences with their intervals against 0. */
void writeClaimCharts(const studies::StudyReport& study, const QString& plots,
                      QStringList& written) {
  const QString name = text(study.study);
  for (const studies::StudyMetric& metric : study.metrics) {
    charts::IntervalChart chart;
    chart.title = name + ": claims on " + text(metric.key) + " (paired difference arm − baseline)";
    chart.valueLabel = "difference in " + text(metric.label);
    chart.references.push_back({"0", 0.0});
    for (const studies::StudyReportClaim& claim : study.claims)
      if (claim.metric == metric.key && claim.difference.n > 0)
        chart.categories.push_back(
            categoryOf(text(claim.id) + "\n" + text(claim.verdict) + permutationLine(study, claim),
                       claim.difference));
    if (chart.categories.isEmpty()) continue;
    const QString file = QDir(plots).filePath("claims_" + text(metric.key) + ".png");
    charts::writeIntervalChart(chart, file);
    written << file;
  }
}

}  // namespace

QStringList writeStudyPlots(const QString& studyFolder) {
  const studies::StudyReport study =
      studies::readStudyReport(std::filesystem::path(QFile::encodeName(studyFolder).toStdString()));
  const QString plots = QDir(studyFolder).filePath("plots");
  QDir().mkpath(plots);
  QStringList written;
  writeMetricCharts(study, plots, written);
  writeCurveCharts(study, plots, written);
  writeTableCharts(study, plots, written);
  writeClaimCharts(study, plots, written);
  return written;
}

}  // namespace strata
