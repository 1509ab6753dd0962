// study.json (core/studies/study_report.h) written from hand-fed runs: every seed's curve beside
// the mean (null where a seed did not log a step), every run's own curves, the study's tables,
// and the code's provenance (the commit of the checkout, checked against git itself); and read
// back by the one reader of study reports (studies/report/study_report_reader.h).

#include "studies/study_report.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/error.h"
#include "common/install_paths.h"
#include "common/text_file.h"
#include "studies/report/study_report_reader.h"
#include "studies/study_runner.h"
#include "studies/study_summary.h"
#include "support/temp_dir.h"

namespace strata::studies {
namespace {

using Json = nlohmann::json;

StudyProtocol oneArmProtocol() {
  StudyProtocol p;
  p.name = "toy";
  p.seeds = {0, 1};
  p.arms = {{"arm", "pretrain", {}, ""}};
  p.metrics = {{"loss", "loss", true}};
  p.curves = {"val_loss"};
  p.claims = {{"c", "loss below 1", "loss", "arm", "", "one", ClaimDirection::Lower, 0}};
  p.headline = "c";
  return p;
}

StudyRunResult run(int64_t seed, double loss, std::vector<std::pair<int64_t, double>> curve) {
  StudyRunResult r{"arm", seed, "runs/arm-s" + std::to_string(seed), {}};
  r.measurement.values["loss"] = loss;
  r.measurement.curves["val_loss"] = std::move(curve);
  return r;
}

std::string gitHead(const std::filesystem::path& source) {
  const std::string command = "git -C '" + source.string() + "' rev-parse HEAD 2>/dev/null";
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  std::array<char, 128> line{};
  if (!pipe || !fgets(line.data(), line.size(), pipe.get())) return {};
  std::string head = line.data();
  while (!head.empty() && (head.back() == '\n' || head.back() == '\r')) head.pop_back();
  return head;
}

TEST(StudyReport, WritesEverySeedsCurveTablesAndTheCodesCommit) {
  TempDir dir;
  const StudyProtocol p = oneArmProtocol();
  StudyRecord record;
  record.code = codeProvenance();
  record.facts = {{"one", 1.0}};
  // Seed 1 did not log step 20: its entry there is null, and the mean there is seed 0's alone.
  record.runs = {run(0, 0.5, {{10, 2.0}, {20, 1.0}, {30, 0.5}}),
                 run(1, 0.7, {{10, 4.0}, {30, 0.7}})};
  record.tables["layers"] = {"per layer", {"layer", "S"}, {{1, 0.5}, {2, std::nan("")}}};
  StudyOptions options;
  options.folder = dir.path();
  const StudyAnalysis analysis = analyseStudy(p, record.facts, record.runs);
  writeStudyJson(dir / "study.json", p, options, record, analysis);
  const Json j = Json::parse(readWholeFile(dir / "study.json"));

  const Json& curve = j["curves"]["val_loss"]["arm"];
  EXPECT_EQ(curve["step"], Json::array({10, 20, 30}));
  EXPECT_EQ(curve["seeds"]["0"], Json::array({2.0, 1.0, 0.5}));
  EXPECT_EQ(curve["seeds"]["1"], Json::array({4.0, nullptr, 0.7}));
  EXPECT_DOUBLE_EQ(curve["mean"][0].get<double>(), 3.0);  // (2 + 4) / 2
  EXPECT_DOUBLE_EQ(curve["mean"][1].get<double>(), 1.0);  // seed 0 alone
  EXPECT_EQ(j["runs"][1]["curves"]["val_loss"],
            Json::array({Json::array({10, 4.0}), Json::array({30, 0.7})}));

  EXPECT_EQ(j["tables"]["layers"]["columns"], Json::array({"layer", "S"}));
  EXPECT_EQ(j["tables"]["layers"]["rows"][1], Json::array({2.0, nullptr}));

  const std::filesystem::path source = sourceTreeFolder();
  ASSERT_FALSE(source.empty()) << "the tests run from a build tree";
  const std::string head = gitHead(source);
  if (head.empty()) GTEST_SKIP() << source << " is not a git checkout here";
  EXPECT_EQ(j["code"]["commit"], head);
  EXPECT_EQ(j["code"]["source_tree"], source.string());
  EXPECT_FALSE(j["code"]["executable"].get<std::string>().empty());
  EXPECT_TRUE(j["code"]["changes"].is_array());
  EXPECT_EQ(j["code_version"], j["code"]["version"]);
}

TEST(StudyReport, TheReaderGivesBackWhatTheWriterWrote) {
  TempDir dir;
  StudyProtocol p = oneArmProtocol();
  p.arms.push_back({"other", "pretrain", {}, ""});
  p.claims.push_back(
      {"d", "arm below other", "loss", "arm", "other", "", ClaimDirection::Lower, 0});
  StudyRecord record;
  record.code = codeProvenance();
  record.facts = {{"one", 1.0}};
  record.runs = {run(0, 0.5, {{10, 2.0}, {30, 0.5}}), run(1, 0.7, {{10, 4.0}, {30, 0.7}})};
  for (const auto& [seed, loss] : {std::pair<int64_t, double>{0, 0.9}, {1, 1.3}}) {
    StudyRunResult r = run(seed, loss, {{10, 5.0}, {30, loss}});
    r.arm = "other";
    record.runs.push_back(r);
  }
  record.tables["layers"] = {"per layer", {"layer", "S"}, {{1, 0.5}, {2, std::nan("")}}};
  StudyOptions options;
  options.folder = dir.path();
  const StudyAnalysis analysis = analyseStudy(p, record.facts, record.runs);
  writeStudyJson(dir / "study.json", p, options, record, analysis);

  const StudyReport report = readStudyReport(dir.path());
  EXPECT_EQ(report.study, "toy");
  EXPECT_EQ(report.arms, (std::vector<std::string>{"arm", "other"}));
  ASSERT_EQ(report.metrics.size(), 1u);
  EXPECT_EQ(report.metrics[0].key, "loss");
  EXPECT_DOUBLE_EQ(report.facts.at("one"), 1.0);
  ASSERT_EQ(report.runs.size(), 4u);
  EXPECT_EQ(report.runs[3].arm, "other");
  EXPECT_EQ(report.runs[3].seed, 1);
  EXPECT_EQ(report.runs[3].folder, "runs/arm-s1");
  EXPECT_DOUBLE_EQ(report.runs[3].metrics.at("loss"), 1.3);
  const auto arm = report.aggregate("arm", "loss");
  ASSERT_TRUE(arm);
  EXPECT_EQ(arm->n, 2);
  EXPECT_DOUBLE_EQ(arm->mean, 0.6);
  EXPECT_EQ(arm->values, (std::vector<double>{0.5, 0.7}));
  EXPECT_FALSE(report.aggregate("arm", "nothing"));
  EXPECT_FALSE(report.aggregate("nobody", "loss"));
  ASSERT_EQ(report.claims.size(), 2u);
  EXPECT_EQ(report.claims[0].reference, "one");
  EXPECT_EQ(report.claims[1].baseline, "other");
  EXPECT_EQ(report.claims[1].difference.values, (std::vector<double>{0.5 - 0.9, 0.7 - 1.3}));
  EXPECT_EQ(report.claims[1].verdict, analysis.claims[1].verdict.result);
  ASSERT_EQ(report.curves.size(), 1u);
  EXPECT_EQ(report.curves[0].first, "val_loss");
  ASSERT_EQ(report.curves[0].second.size(), 2u);
  EXPECT_EQ(report.curves[0].second[1].first, "other");  // the protocol's arm order
  EXPECT_EQ(report.curves[0].second[0].second.x, (std::vector<double>{10, 30}));
  EXPECT_DOUBLE_EQ(report.curves[0].second[0].second.mean[0], 3.0);
  EXPECT_TRUE(std::isnan(report.tables.at("layers").rows[1][1]));  // null reads as NaN
  EXPECT_EQ(report.verdict, analysis.verdict.result);
  EXPECT_TRUE(report.complete);
}

/** A study of oneArmProtocol that reports one number across seeds: the mean of every run's
 *  loss, which its claim also needs below 0.05 (a toy p). */
class AcrossSeedsStudy final : public Study {
 public:
  StudyProtocol protocol(const StudyOptions&) const override {
    StudyProtocol p = oneArmProtocol();
    p.acrossSeedMetrics = {{"mean_loss", "mean | of every run", false}};
    p.claims[0].permutationP = "mean_loss";
    return p;
  }
  std::map<std::string, double> facts(const StudyProtocol&) const override {
    return {{"one", 1.0}};
  }
  RunMeasurement measure(const StudyArm&, const std::filesystem::path&) override { return {}; }
  std::map<std::string, double> acrossSeeds(
      const StudyProtocol&, const StudyOptions&, const std::map<std::string, StudyTable>&,
      const std::vector<StudyRunResult>& runs) const override {
    double sum = 0;
    for (const auto& r : runs) sum += r.measurement.values.at("loss");
    return {{"mean_loss", sum / double(runs.size())}};
  }
};

TEST(StudyReport, AcrossSeedsValuesAreRecordedAndARecordIsReanalysed) {
  TempDir dir;
  AcrossSeedsStudy study;
  const StudyProtocol p = study.protocol({});
  StudyRecord record;
  record.code = codeProvenance();
  record.facts = study.facts(p);
  record.runs = {run(0, 0.02, {{10, 2.0}}), run(1, 0.04, {{10, 1.0}})};
  record.tables["layers"] = {"per layer", {"layer", "S"}, {{1, 0.5}}};
  StudyOptions options;
  options.folder = dir / "original";
  std::filesystem::create_directories(options.folder);
  const StudyAnalysis analysis =
      analyseStudy(p, record.facts, record.runs, study.acrossSeeds(p, {}, {}, record.runs));
  EXPECT_EQ(analysis.verdict.result, "supported");  // interval below 1 and 0.03 < 0.05
  writeStudyJson(options.folder / "study.json", p, options, record, analysis);
  const StudyReport report = readStudyReport(options.folder);
  EXPECT_DOUBLE_EQ(report.acrossSeeds.at("mean_loss"), 0.03);
  ASSERT_EQ(report.acrossSeedMetrics.size(), 1u);
  EXPECT_EQ(report.claims[0].permutationP, "mean_loss");
  EXPECT_EQ(report.runs[1].curves.at("val_loss"),
            (std::vector<std::pair<int64_t, double>>{{10, 1.0}}));
  const std::string md = studySummaryMarkdown(p, record.facts, analysis);
  EXPECT_NE(md.find("mean \\| of every run"), std::string::npos) << md;  // '|' escaped
  EXPECT_NE(md.find("0.0300 (needs < 0.05)"), std::string::npos) << md;

  // Re-analysed from the record alone (no run folder exists): the same numbers, and study.json
  // names the record.
  StudyOptions again;
  again.folder = dir / "again";
  const StudyOutcome outcome = reanalyseStudy(study, again, options.folder / "study.json");
  EXPECT_EQ(outcome.analysis.verdict.result, "supported");
  EXPECT_DOUBLE_EQ(outcome.analysis.acrossSeeds.at("mean_loss"), 0.03);
  const Json j = Json::parse(readWholeFile(again.folder / "study.json"));
  EXPECT_EQ(j["reanalysed_from"]["file"], (options.folder / "study.json").string());
  EXPECT_EQ(j["runs"][1]["curves"]["val_loss"], Json::array({Json::array({10, 1.0})}));
  EXPECT_TRUE(std::filesystem::exists(again.folder / "study.md"));

  // Another study's record is refused, naming the file.
  std::ofstream(dir / "other.json")
      << std::regex_replace(readWholeFile(options.folder / "study.json"),
                            std::regex("\"study\": \"toy\""), "\"study\": \"dcdm\"");
  EXPECT_THROW(reanalyseStudy(study, again, dir / "other.json"), ConfigError);
}

TEST(StudyReport, AComparisonWithoutClaimsDecidesNothing) {
  StudyProtocol p = oneArmProtocol();
  p.claims.clear();
  p.headline.clear();
  const std::vector<StudyRunResult> runs = {run(0, 0.5, {{10, 2.0}}), run(1, 0.7, {{10, 4.0}})};
  const StudyAnalysis analysis = analyseStudy(p, {}, runs);
  EXPECT_EQ(analysis.verdict.result, "no claim");
  EXPECT_DOUBLE_EQ(analysis.aggregates.at("arm").at("loss").mean, 0.6);
  const std::string md = studySummaryMarkdown(p, {}, analysis);
  EXPECT_NE(md.find("decides nothing"), std::string::npos) << md;
  EXPECT_EQ(md.find("| claim |"), std::string::npos) << md;
  // A headline that names no claim is still refused.
  p.headline = "c";
  EXPECT_THROW(analyseStudy(p, {}, runs), ConfigError);
}

TEST(StudyReport, TheReaderNamesTheFileAndWhatIsMissing) {
  TempDir dir;
  EXPECT_THROW(readStudyReport(dir.path()), IoError);  // no study.json
  std::ofstream(dir / "study.json") << "{\"study\": \"toy\"}";
  try {
    readStudyReport(dir.path());
    FAIL() << "a study.json without a protocol was read";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "study.json").string()), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("protocol"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::studies
