// Reads study.json (see study_report_reader.h).

#include "studies/report/study_report_reader.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::studies {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

double numberOf(const Json& j) {
  return j.is_number() ? j.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> numbersOf(const Json& list) {
  std::vector<double> values;
  for (const auto& v : list) values.push_back(numberOf(v));
  return values;
}

SeedSummary summaryOf(const Json& j) {
  SeedSummary s;
  s.n = j.at("n").get<int64_t>();
  s.mean = numberOf(j.at("mean"));
  s.sd = numberOf(j.at("sd"));
  s.low = numberOf(j.at("low"));
  s.high = numberOf(j.at("high"));
  s.values = numbersOf(j.at("values"));
  return s;
}

StudyReportClaim claimOf(const Json& j) {
  StudyReportClaim c;
  c.id = j.at("id").get<std::string>();
  c.statement = j.value("statement", std::string());
  c.metric = j.at("metric").get<std::string>();
  c.arm = j.value("arm", std::string());
  c.baseline = j.value("baseline", std::string());
  c.reference = j.value("reference", std::string());
  c.permutationP = j.value("permutation_p", std::string());
  c.difference = summaryOf(j.at("difference"));
  c.verdict = j.at("verdict").at("result").get<std::string>();
  c.reason = j.at("verdict").value("reason", std::string());
  return c;
}

StudyTable tableOf(const Json& j) {
  StudyTable t;
  t.description = j.value("description", std::string());
  t.columns = j.at("columns").get<std::vector<std::string>>();
  for (const auto& row : j.at("rows")) t.rows.push_back(numbersOf(row));
  return t;
}

StudyReport reportOf(const Json& j) {
  StudyReport r;
  r.study = j.at("study").get<std::string>();
  r.title = j.value("title", std::string());
  r.question = j.value("question", std::string());
  const Json& protocol = j.at("protocol");
  for (const auto& m : protocol.at("metrics"))
    r.metrics.push_back({m.at("key").get<std::string>(), m.at("label").get<std::string>(),
                         m.value("lower_is_better", true)});
  for (const auto& arm : protocol.at("arms")) r.arms.push_back(arm.at("name").get<std::string>());
  if (protocol.contains("seed_arm")) r.arms.push_back(protocol.at("seed_arm").get<std::string>());
  if (protocol.contains("across_seed_metrics"))
    for (const auto& m : protocol.at("across_seed_metrics"))
      r.acrossSeedMetrics.push_back(
          {m.at("key").get<std::string>(), m.at("label").get<std::string>(), true});
  if (j.contains("across_seeds"))
    for (const auto& [key, value] : j.at("across_seeds").items())
      r.acrossSeeds[key] = numberOf(value);
  for (const auto& [key, value] : j.at("facts").items()) r.facts[key] = numberOf(value);
  for (const auto& run : j.at("runs")) {
    StudyReportRun& measured = r.runs.emplace_back();
    measured.arm = run.at("arm").get<std::string>();
    measured.seed = run.at("seed").get<int64_t>();
    measured.folder = run.at("folder").get<std::string>();
    for (const auto& [key, value] : run.at("metrics").items())
      measured.metrics[key] = numberOf(value);
    if (run.contains("code") && run.at("code").is_object())
      measured.commit = run.at("code").value("commit", std::string());
    if (run.contains("curves"))
      for (const auto& [key, points] : run.at("curves").items())
        for (const auto& point : points)
          measured.curves[key].emplace_back(point.at(0).get<int64_t>(), numberOf(point.at(1)));
  }
  for (const auto& [arm, metrics] : j.at("aggregates").items())
    for (const auto& [metric, summary] : metrics.items())
      r.aggregates[arm][metric] = summaryOf(summary);
  for (const auto& claim : j.at("claims")) r.claims.push_back(claimOf(claim));
  for (const auto& [curve, arms] : j.at("curves").items()) {
    auto& [name, perArm] = r.curves.emplace_back();
    name = curve;
    for (const auto& [arm, c] : arms.items())
      perArm.emplace_back(arm, StudyReportCurve{numbersOf(c.at("step")), numbersOf(c.at("mean")),
                                                numbersOf(c.at("low")), numbersOf(c.at("high"))});
  }
  if (j.contains("tables"))
    for (const auto& [name, table] : j.at("tables").items()) r.tables[name] = tableOf(table);
  if (j.contains("code") && j.at("code").is_object())
    r.commit = j.at("code").value("commit", std::string());
  r.complete = j.value("complete", false);
  r.runsMeasured = j.value("runs_measured", int64_t{0});
  r.runsPlanned = j.value("runs_planned", int64_t{0});
  r.verdict = j.at("verdict").at("result").get<std::string>();
  r.verdictReason = j.at("verdict").value("reason", std::string());
  return r;
}

}  // namespace

std::optional<SeedSummary> StudyReport::aggregate(const std::string& arm,
                                                  const std::string& metric) const {
  const auto a = aggregates.find(arm);
  if (a == aggregates.end()) return std::nullopt;
  const auto m = a->second.find(metric);
  if (m == a->second.end()) return std::nullopt;
  return m->second;
}

StudyReport readStudyReport(const fs::path& studyFolder) {
  return readStudyReportFile(studyFolder / "study.json");
}

StudyReport readStudyReportFile(const fs::path& file) {
  const std::string text = readWholeFile(file);  // IoError naming the file
  Json j;
  try {
    j = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("is not JSON: ") + e.what());
  }
  try {
    StudyReport report = reportOf(j);
    report.file = file;
    return report;
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(file, std::string("lacks what a study.json holds: ") + e.what());
  }
}

}  // namespace strata::studies
