// study.json (core/studies/study_report.h) written from hand-fed runs: every seed's curve beside
// the mean (null where a seed did not log a step), every run's own curves, the study's tables,
// and the code's provenance (the commit of the checkout, checked against git itself).

#include "studies/study_report.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/install_paths.h"
#include "common/text_file.h"
#include "support/temp_dir.h"

namespace strata {
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

}  // namespace
}  // namespace strata
