// A study's plots (see study_plots.h).

#include "study_plots.h"

#include <QDir>
#include <QFile>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "curve_chart.h"
#include "interval_chart.h"

namespace strata {
namespace {

using Json = nlohmann::ordered_json;

double numberOf(const Json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

QVector<double> numbersOf(const Json& list) {
  QVector<double> values;
  for (const auto& v : list) values.push_back(numberOf(v));
  return values;
}

QString text(const std::string& s) { return QString::fromStdString(s); }

charts::IntervalCategory categoryOf(const QString& label, const Json& summary) {
  return {label, numberOf(summary.at("mean")), numberOf(summary.at("low")),
          numberOf(summary.at("high")), numbersOf(summary.at("values"))};
}

}  // namespace

QStringList writeStudyPlots(const QString& studyFolder) {
  const QString jsonFile = QDir(studyFolder).filePath("study.json");
  QFile in(jsonFile);
  if (!in.open(QIODevice::ReadOnly))
    throw std::runtime_error("cannot read " + jsonFile.toStdString());
  Json study;
  try {
    study = Json::parse(in.readAll().toStdString());
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(jsonFile.toStdString() + " is not JSON: " + e.what());
  }
  const QString plots = QDir(studyFolder).filePath("plots");
  QDir().mkpath(plots);
  QStringList written;
  try {
    const QString name = text(study.at("study").get<std::string>());
    const Json& protocol = study.at("protocol");
    const Json& aggregates = study.at("aggregates");
    const Json& facts = study.at("facts");
    const Json& claims = study.at("claims");
    for (const auto& metric : protocol.at("metrics")) {
      const std::string key = metric.at("key");
      charts::IntervalChart chart;
      chart.title =
          name + ": " + text(metric.at("label")) + " (mean, 95 % bootstrap interval, seeds)";
      chart.valueLabel = text(metric.at("label"));
      std::vector<std::string> armNames;
      for (const auto& arm : protocol.at("arms")) armNames.push_back(arm.at("name"));
      if (protocol.contains("seed_arm")) armNames.push_back(protocol.at("seed_arm"));
      for (const std::string& armName : armNames) {
        if (aggregates.contains(armName) && aggregates[armName].contains(key))
          chart.categories.push_back(categoryOf(text(armName), aggregates[armName][key]));
      }
      if (chart.categories.isEmpty()) continue;
      for (const auto& claim : claims)
        if (claim.at("metric") == key && claim.contains("reference")) {
          const std::string ref = claim.at("reference");
          if (facts.contains(ref) && facts[ref].is_number())
            chart.references.push_back({text(ref), facts[ref].get<double>()});
        }
      const QString file = QDir(plots).filePath(text(key) + ".png");
      charts::writeIntervalChart(chart, file);
      written << file;
    }
    for (const auto& [curve, arms] : study.at("curves").items()) {
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
      for (const auto& [arm, c] : arms.items()) {
        QVector<double> steps;
        for (const auto& s : c.at("step")) steps.push_back(s.get<double>());
        chart.series.push_back({text(arm), steps, numbersOf(c.at("mean")), numbersOf(c.at("low")),
                                numbersOf(c.at("high"))});
      }
      if (chart.series.isEmpty()) continue;
      const QString file = QDir(plots).filePath("curve_" + text(curve) + ".png");
      charts::writeCurveChart(chart, file);
      written << file;
    }
    // A table's columns against its first (e.g. DiHAL's proxies and S per layer), each with
    // its interval "<c>_low"/"<c>_high" as a band; older study.json files have no tables.
    const Json noTables = Json::object();
    const Json& tables = study.contains("tables") ? study.at("tables") : noTables;
    for (const auto& [table, t] : tables.items()) {
      const auto& columns = t.at("columns");
      const auto columnOf = [&](const std::string& c) -> int {
        for (size_t i = 0; i < columns.size(); ++i)
          if (columns[i] == c) return static_cast<int>(i);
        return -1;
      };
      const auto valuesOf = [&](int column) {
        QVector<double> values;
        for (const auto& row : t.at("rows")) values.push_back(numberOf(row.at(column)));
        return values;
      };
      const std::string x = columns.at(0);
      for (size_t c = 1; c < columns.size(); ++c) {
        const std::string column = columns[c];
        if (column.ends_with("_low") || column.ends_with("_high")) continue;
        charts::CurveChart chart;
        chart.title = name + ": " + text(column) + " by " + text(x) + " (" + text(table) + ")";
        chart.xLabel = text(x);
        chart.yLabel = text(column);
        charts::CurveSeries series{
            text(column), valuesOf(0), valuesOf(static_cast<int>(c)), {}, {}};
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
    for (const auto& metric : protocol.at("metrics")) {
      const std::string key = metric.at("key");
      charts::IntervalChart chart;
      chart.title = name + ": claims on " + text(key) + " (paired difference arm − baseline)";
      chart.valueLabel = "difference in " + text(metric.at("label"));
      chart.references.push_back({"0", 0.0});
      for (const auto& claim : claims)
        if (claim.at("metric") == key && claim.at("difference").at("n").get<int64_t>() > 0)
          chart.categories.push_back(
              categoryOf(text(claim.at("id")) + "\n" + text(claim.at("verdict").at("result")),
                         claim.at("difference")));
      if (chart.categories.isEmpty()) continue;
      const QString file = QDir(plots).filePath("claims_" + text(key) + ".png");
      charts::writeIntervalChart(chart, file);
      written << file;
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(jsonFile.toStdString() +
                             " lacks what a study.json holds: " + e.what());
  }
  return written;
}

}  // namespace strata
