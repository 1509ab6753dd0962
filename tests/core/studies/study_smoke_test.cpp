// The study framework end to end on the DCDM study's smoke budget (core/studies/): a study.json
// with every field, and a study cancelled mid-run and run again ending with the same numbers as
// an uninterrupted one. The smoke budget trains 8 arms × 2 seeds + a judge for 6 steps each.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "geometry/geometry_report.h"
#include "studies/held_out_evaluation.h"
#include "studies/study_protocol.h"
#include "studies/study_registry.h"
#include "studies/study_runner.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace strata::studies {
namespace {

using Json = nlohmann::json;

void writeSmallCorpus(const std::filesystem::path& file) {
  std::ofstream out(file);
  const char* lines[] = {"the cat sat on the mat and looked at the dog.",
                         "a dog ran to the park where the birds sang all day.",
                         "we walked home in the rain, talking about the sea."};
  for (int i = 0; i < 120; ++i) out << lines[i % 3] << (i % 4 == 3 ? "\n\n" : "\n");
}

StudyOptions smokeOptions(const std::filesystem::path& folder,
                          const std::filesystem::path& corpus) {
  StudyOptions o;
  o.folder = folder;
  o.seeds = 2;
  o.budget = "smoke";
  o.device = "cpu";
  o.overrides = {"corpus=" + corpus.string()};
  return o;
}

/** Cancels the job on the first progress report of `run` at `step`. */
class CancelAtSink final : public ProgressSink {
 public:
  CancelAtSink(std::string stageStart, CancellationToken token)
      : m_start(std::move(stageStart)), m_token(std::move(token)) {}
  void progress(double, const std::string& stage) override {
    if (stage.rfind(m_start, 0) == 0 && stage.find("step 2/") != std::string::npos) {
      m_token.cancel();
      cancelled = true;
    }
  }
  void message(MessageLevel, const std::string&) override {}
  bool cancelled = false;

 private:
  std::string m_start;
  CancellationToken m_token;
};

Json readStudy(const std::filesystem::path& folder) {
  return Json::parse(readWholeFile(folder / "study.json"));
}

/** The protocol's arm names, in order. */
std::vector<std::string> armNames(const Json& study) {
  std::vector<std::string> arms;
  for (const auto& arm : study["protocol"]["arms"]) arms.push_back(arm["name"]);
  return arms;
}

/** Every per-run number except the timings, keyed "arm-sN/metric". */
std::map<std::string, Json> runNumbers(const Json& study) {
  std::map<std::string, Json> numbers;
  for (const auto& run : study.at("runs"))
    for (const auto& [key, value] : run.at("metrics").items())
      if (key != "train_seconds" && key != "tokens_per_s")
        numbers[run.at("arm").get<std::string>() + "-s" +
                std::to_string(run.at("seed").get<int>()) + "/" + key] = value;
  return numbers;
}

TEST(StudySmoke, WritesEveryFieldAndResumesToTheSameNumbers) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");

  // Uninterrupted, through the command a user types.
  const auto cli = testing::runCli("study dcdm --out " + (dir / "whole").string() +
                                   " --budget smoke --seeds 2 "
                                   "--device cpu --set corpus=" +
                                   (dir / "corpus.txt").string());
  ASSERT_EQ(cli.exitCode, 0) << cli.out;
  EXPECT_NE(cli.out.find("verdict: "), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("ETA"), std::string::npos) << "no ETA in the progress: " << cli.out;
  const Json whole = readStudy(dir / "whole");
  for (const char* key :
       {"study", "title", "question", "protocol", "code_version", "build", "machine", "date",
        "facts", "runs", "aggregates", "curves", "claims", "verdict"})
    EXPECT_TRUE(whole.contains(key)) << key;
  for (const char* key : {"budget", "seeds", "arms", "auxiliary", "shared_settings", "metrics",
                          "claims", "headline", "decision_rule", "statistics"})
    EXPECT_TRUE(whole["protocol"].contains(key)) << key;
  // mdlm, bdlm-B8 and dcdm-K8-h4 at both seeds, the 5 ablation arms at the first (smoke).
  EXPECT_EQ(whole["runs"].size(), 11u);
  EXPECT_EQ(whole["runs_planned"], 11);
  EXPECT_EQ(whole["aggregates"]["dcdm-K8-h4"]["val_elbo_best"]["n"], 2);
  EXPECT_EQ(whole["aggregates"]["bdlm-B4"]["val_elbo_best"]["n"], 1);
  EXPECT_FALSE(std::filesystem::exists(dir / "whole" / "runs" / "bdlm-B4-s1"));
  EXPECT_GT(whole["facts"]["unigram_entropy"].get<double>(), 1.0);
  EXPECT_TRUE(whole["aggregates"]["mdlm"]["val_elbo_best"].contains("low"));
  EXPECT_TRUE(whole["aggregates"]["dcdm-K8-h1"].contains("load_entropy_final"));
  EXPECT_TRUE(whole["aggregates"]["bdlm-B8"].contains("gen_ppl"));
  EXPECT_TRUE(whole["curves"]["val_loss"].contains("dcdm-K16-h4"));
  EXPECT_EQ(whole["claims"].size(), 9u);
  const std::string result = whole["verdict"]["result"];
  EXPECT_TRUE(result == "supported" || result == "not supported" || result == "inconclusive")
      << result;
  EXPECT_FALSE(whole["verdict"]["reason"].get<std::string>().empty());
  const std::string summary = readWholeFile(dir / "whole" / "study.md");
  EXPECT_NE(summary.find("| best validation ELBO (nats/token) |"), std::string::npos) << summary;
  EXPECT_NE(summary.find("**Verdict (dcdm_vs_bdlm): " + result + "**"), std::string::npos)
      << summary;

  // Cancelled in the middle of a run, then run again.
  std::unique_ptr<Study> study = makeStudy("dcdm");
  const StudyOptions options = smokeOptions(dir / "resumed", dir / "corpus.txt");
  CancellationToken token;
  CancelAtSink sink("dcdm-K8-h1-s0", token);
  const JobResult stopped =
      runJob([&](JobContext& job) { runStudy(*study, options, job); }, sink, token);
  ASSERT_TRUE(sink.cancelled);
  ASSERT_EQ(stopped.outcome, JobOutcome::Cancelled) << stopped.error;
  EXPECT_FALSE(std::filesystem::exists(dir / "resumed" / "study.json"));
  // What is finished can be analysed without training: partial, and so inconclusive.
  StudyOptions peek = options;
  peek.analyseOnly = true;
  NullProgressSink none;
  JobContext peekJob(none, CancellationToken());
  const StudyOutcome partial = runStudy(*study, peek, peekJob);
  EXPECT_FALSE(partial.analysis.complete());
  EXPECT_EQ(partial.analysis.runsMeasured, 7);  // seed 0's arms before dcdm-K8-h1
  const Json partialJson = readStudy(dir / "resumed");
  EXPECT_EQ(partialJson["complete"], false);
  EXPECT_EQ(partialJson["verdict"]["result"], "inconclusive");
  EXPECT_EQ(readStudy(dir / "resumed")["runs"].size(), 7u);
  NullProgressSink quiet;
  const JobResult finished =
      runJob([&](JobContext& job) { runStudy(*study, options, job); }, quiet, {});
  ASSERT_EQ(finished.outcome, JobOutcome::Succeeded) << finished.error;
  const Json resumed = readStudy(dir / "resumed");
  EXPECT_EQ(runNumbers(resumed), runNumbers(whole));
  EXPECT_EQ(resumed["claims"][2]["difference"], whole["claims"][2]["difference"]);
  EXPECT_EQ(resumed["verdict"], whole["verdict"]);
  EXPECT_EQ(resumed["complete"], true);
  // Each run records the build that finished it; a run measured by an earlier build keeps that
  // build's record when a later one analyses the study again.
  for (const auto& run : resumed["runs"])
    if (run["arm"] != "sweep") {
      EXPECT_EQ(run.at("code").at("commit"), resumed["code"]["commit"]);
    }
  const std::filesystem::path cached = dir / "resumed" / "runs" / "mdlm-s0" / "study_measures.json";
  Json measures = Json::parse(readWholeFile(cached));
  measures["code"]["commit"] = "0123456789abcdef";
  std::ofstream(cached) << measures.dump();
  JobContext againJob(quiet, CancellationToken());
  runStudy(*study, options, againJob);
  for (const auto& run : readStudy(dir / "resumed")["runs"])
    if (run["arm"] == "mdlm" && run["seed"] == 0) {
      EXPECT_EQ(run.at("code").at("commit"), "0123456789abcdef");
    }

  // A rerun asking for another protocol is refused rather than mixed into the folder.
  StudyOptions other = options;
  other.seeds = 3;
  JobContext quietJob(quiet, CancellationToken());
  EXPECT_THROW(runStudy(*study, other, quietJob), ConfigError);
}

TEST(StudySmoke, ReprAlignStudyRunsEndToEnd) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  const StudyOutcome outcome =
      runStudy(*makeStudy("repr-align"), smokeOptions(dir / "s", dir / "corpus.txt"), job);
  const Json study = readStudy(dir / "s");
  EXPECT_EQ(study["study"], "repr-align");
  EXPECT_EQ(study["runs"].size(), 16u);  // 8 arms × 2 seeds, the teacher and the judge apart
  EXPECT_TRUE(study["aggregates"]["lambda10-all"].contains("align_cos_mean"));
  EXPECT_TRUE(study["aggregates"]["scratch"].contains("gen_ppl"));
  EXPECT_TRUE(study["curves"].contains("val_align_cos_2"));  // the smoke teacher's 3 states
  // Gen.PPL is judged by a model of its own, not the teacher.
  EXPECT_TRUE(std::filesystem::exists(dir / "s" / "runs" / "judge" / "model.safetensors"));
  // The per-mask-ratio evaluation: one final CE per ratio, as a curve over the ratio too.
  for (const char* key : {"val_ce_r10", "val_ce_r50", "val_ce_r90", "test_ce"}) {
    const Json& ce = study["aggregates"]["lambda0"][key];
    EXPECT_EQ(ce["n"], 2) << key;
    EXPECT_GT(ce["mean"].get<double>(), 0.0) << key;
  }
  const Json& byRatio = study["curves"]["final_masked_ce_by_mask_percent"]["lambda10-all"];
  EXPECT_EQ(byRatio["step"], Json::array({10, 30, 50, 70, 90}));
  EXPECT_EQ(study["claims"].size(), 6u);
  // The headline selects among the six aligned arms by validation and tests on held-out windows.
  const Json& tuned = study["claims"][2];
  EXPECT_EQ(tuned["id"], "tuned_alignment_helps");
  EXPECT_EQ(tuned["metric"], "test_ce");
  EXPECT_EQ(tuned["selection_metric"], "val_ce_mean");
  ASSERT_EQ(tuned["selection"].size(), 6u);
  std::string best;
  for (const auto& [arm, mean] : tuned["selection"].items())
    if (best.empty() || mean.get<double>() < tuned["selection"][best].get<double>()) best = arm;
  EXPECT_EQ(tuned["arm"], best);
  EXPECT_EQ(tuned["selection"][best], study["aggregates"][best]["val_ce_mean"]["mean"]);
  // The test numbers come from the recipe's own evaluation of the run's chosen (best)
  // checkpoint: with the run's settings unchanged it repeats the best val CE the training logged.
  const auto again = evaluateRunAgain(dir / "s" / "runs" / "lambda0-s1", {}, "cpu");
  EXPECT_NEAR(again.at("masked_ce"), study["runs"][8]["metrics"]["val_ce_best"].get<double>(),
              1e-9);
  EXPECT_EQ(study["runs"][8]["arm"], "lambda0");
  EXPECT_EQ(study["runs"][8]["seed"], 1);
  EXPECT_EQ(outcome.analysis.verdict.result, study["verdict"]["result"]);
}

TEST(StudySmoke, DihalStudyCapturesScoresAndCorrelatesPerSeed) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  runStudy(*makeStudy("dihal"), smokeOptions(dir / "s", dir / "corpus.txt"), job);
  EXPECT_TRUE(std::filesystem::exists(dir / "s" / "acts.h5"));
  const Json study = readStudy(dir / "s");
  EXPECT_EQ(study["protocol"]["seed_arm"], "sweep");
  EXPECT_EQ(study["runs"].size(), 10u);  // (control + 3 layers) × 2 seeds + the sweep of each seed
  EXPECT_EQ(study["aggregates"]["sweep"]["rho_s"]["n"], 2);
  EXPECT_TRUE(study["aggregates"]["bridge-l2"].contains("val_loss_best"));
  EXPECT_EQ(study["claims"][3]["baseline_metric"], "rho_neg_depth");
  EXPECT_EQ(study["claims"][3]["difference"]["n"], 2);

  // The per-layer numbers S rests on, in study.json: the store's proxies with their intervals,
  // and S over the candidates 1..3, recomputed here from the table's own proxies (DESIGN.md:
  // S = z(log m_curv) + z(log m_mono) − z(log k_eff), z over the candidates, population sd).
  const Json& table = study["tables"]["layers_trace"];
  const auto column = [&](const std::string& name) {
    const auto& columns = table["columns"];
    return static_cast<size_t>(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  const auto stored = geometry::readGeometry(dir / "s" / "acts.h5");
  ASSERT_TRUE(stored);
  ASSERT_EQ(table["rows"].size(), stored->layers.size());  // layers 0..4
  std::vector<std::array<double, 3>> logs;
  for (const auto& row : table["rows"]) {
    const auto layer = row[column("layer")].get<int64_t>();
    EXPECT_EQ(row[column("k_eff")].get<double>(), stored->layers[layer].values.effectiveRank);
    EXPECT_LE(row[column("k_eff_low")].get<double>(), row[column("k_eff_high")].get<double>());
    if (layer >= 1 && layer <= 3)
      logs.push_back({std::log(row[column("m_curv")].get<double>()),
                      std::log(row[column("m_mono")].get<double>()),
                      std::log(row[column("k_eff")].get<double>())});
    else
      EXPECT_TRUE(row[column("S")].is_null()) << "layer " << layer << " is no candidate";
  }
  ASSERT_EQ(logs.size(), 3u);
  std::array<double, 3> mean{}, sd{};
  for (const auto& l : logs)
    for (int k = 0; k < 3; ++k) mean[k] += l[k] / 3;
  for (const auto& l : logs)
    for (int k = 0; k < 3; ++k) sd[k] += (l[k] - mean[k]) * (l[k] - mean[k]) / 3;
  for (int layer = 1; layer <= 3; ++layer) {
    const auto& l = logs[layer - 1];
    const double z = (l[0] - mean[0]) / std::sqrt(sd[0]) + (l[1] - mean[1]) / std::sqrt(sd[1]) -
                     (l[2] - mean[2]) / std::sqrt(sd[2]);
    EXPECT_NEAR(table["rows"][layer][column("S")].get<double>(), z, 1e-9) << "layer " << layer;
  }
  EXPECT_TRUE(study["tables"].contains("layers_none"));
  EXPECT_TRUE(study["tables"].contains("layers_standardise"));
  // Every seed's curve is there beside the mean.
  EXPECT_EQ(study["curves"]["val_loss"]["bridge-l2"]["seeds"].size(), 2u);

  // ρ under the other normalisations. k_eff = tr(Σ)/λ_max(Σ) does not depend on the scale, so
  // the unnormalised scores must repeat the store's (trace) effective ranks, while m_curv, which
  // scales with 1/‖h‖², must not.
  // They are kept in the store beside its own scan, as whole scans.
  const std::filesystem::path storeFile = dir / "s" / "acts.h5";
  const auto trace = geometry::readGeometry(storeFile);
  const auto none = geometry::readGeometry(
      storeFile, geometry::alternativeGeometryGroup(geometry::Normalisation::None));
  ASSERT_TRUE(trace && none);
  EXPECT_EQ(none->options.normalisation, geometry::Normalisation::None);
  ASSERT_EQ(none->layers.size(), trace->layers.size());
  bool curvatureDiffers = false;
  for (size_t i = 0; i < none->layers.size(); ++i) {
    const geometry::ProxyValues& unscaled = none->layers[i].values;
    const geometry::ProxyValues& traced = trace->layers[i].values;
    ASSERT_EQ(none->layers[i].layer, trace->layers[i].layer);
    EXPECT_NEAR(unscaled.effectiveRank, traced.effectiveRank, 1e-6 * traced.effectiveRank)
        << "layer " << none->layers[i].layer;
    curvatureDiffers |=
        std::abs(unscaled.curvature - traced.curvature) > 1e-3 * std::abs(traced.curvature);
  }
  EXPECT_TRUE(curvatureDiffers);
  EXPECT_TRUE(geometry::readGeometry(
      storeFile, geometry::alternativeGeometryGroup(geometry::Normalisation::Standardise)));
  EXPECT_TRUE(study["aggregates"]["sweep"].contains("rho_s_none"));
  EXPECT_TRUE(
      study["aggregates"]["sweep"].contains("rho_s_standardise"));  // partial ρ: NaN with 3 layers

  // One l*: the study scores the store as it was scored. Rescored with one proxy alone (as
  // `strata-cli score --weights 1,0,0` would), S is that proxy's z-score, so every seed's l*
  // becomes the bridged layer (1..3) where that proxy is best — one whose l* differs from the
  // default weights', so that reading the default weights would fail.
  double defaultLstar = -1;
  for (const auto& run : study["runs"])
    if (run["arm"] == "sweep") defaultLstar = run["metrics"]["lstar"].get<double>();
  ASSERT_GE(defaultLstar, 1.0);
  const auto bestBy = [&](int proxy) {
    const auto value = [&](int64_t layer) {
      const geometry::ProxyValues& v = trace->layers[layer].values;
      return proxy == 0 ? v.curvature : proxy == 1 ? v.monotonicity : -v.effectiveRank;
    };
    int64_t best = 1;
    for (int64_t layer = 2; layer <= 3; ++layer)
      if (value(layer) > value(best)) best = layer;
    return best;
  };
  int proxy = 0;
  while (proxy < 3 && double(bestBy(proxy)) == defaultLstar) ++proxy;
  ASSERT_LT(proxy, 3) << "every proxy alone picks the default l*: no weights tell them apart";
  geometry::ScoreWeights weights = {0, 0, 0};
  weights[size_t(proxy)] = 1;
  geometry::writeGeometry(storeFile, *trace, geometry::ScoreChoice{weights, std::nullopt});
  StudyOptions again = smokeOptions(dir / "s", dir / "corpus.txt");
  again.analyseOnly = true;
  runStudy(*makeStudy("dihal"), again, job);
  const Json rescored = readStudy(dir / "s");
  int sweeps = 0;
  for (const auto& run : rescored["runs"])
    if (run["arm"] == "sweep") {
      EXPECT_EQ(run["metrics"]["lstar"].get<double>(), double(bestBy(proxy)))
          << "seed " << run["seed"] << ", proxy " << proxy;
      ++sweeps;
    }
  EXPECT_EQ(sweeps, 2);
  EXPECT_GT(rescored["tables"]["layers_trace"]["rows"][bestBy(proxy)][column("S")].get<double>(),
            0.0);

  // Hybrid generation judged by the study's own judge: every bridge and the control have a
  // Gen.PPL, the control also the frozen model's own.
  EXPECT_TRUE(std::filesystem::exists(dir / "s" / "runs" / "judge" / "model.safetensors"));
  for (const char* arm : {"embedding-diffusion", "bridge-l1", "bridge-l3"})
    EXPECT_GT(study["aggregates"][arm]["gen_ppl"]["mean"].get<double>(), 1.0) << arm;
  EXPECT_GT(study["aggregates"]["embedding-diffusion"]["original_gen_ppl"]["mean"].get<double>(),
            1.0);
  EXPECT_EQ(study["aggregates"]["sweep"]["gen_ppl_control"]["mean"],
            study["aggregates"]["embedding-diffusion"]["gen_ppl"]["mean"]);
  EXPECT_EQ(study["claims"].size(), 8u);
  EXPECT_EQ(study["claims"][7]["baseline_metric"], "gen_ppl_control");
}

TEST(StudySmoke, DihalPretrainedStudyBridgesBothProcessesFromTheStore) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  // The default model (tests pin it to the small 4-layer model): candidates 1..3, all bridged.
  runStudy(*makeStudy("dihal-pretrained"), smokeOptions(dir / "s", dir / "corpus.txt"), job);
  const Json study = readStudy(dir / "s");
  EXPECT_EQ(armNames(study),
            (std::vector<std::string>{"embedding-diffusion", "gaussian-l1", "gaussian-l2",
                                      "gaussian-l3", "bridge-l1", "bridge-l2", "bridge-l3"}));
  EXPECT_EQ(study["runs"].size(), 16u);  // 7 arms × 2 seeds + the sweep of each seed
  // Every bridge learnt from the store (no model forward pass for its targets).
  const std::string settings = readWholeFile(dir / "s" / "runs" / "bridge-l2-s1" / "run.json");
  EXPECT_NE(settings.find("\"targets\": \"store\""), std::string::npos) << settings;
  EXPECT_NE(settings.find("\"process\": \"bridge\""), std::string::npos) << settings;
  const Json& sweep = study["aggregates"]["sweep"];
  for (const char* key : {"rho_s_gaussian_trace", "rho_s_bridge_none", "rho_s_bridge_standardise",
                          "rho_neg_depth_gaussian", "rho_neg_depth_bridge", "lstar_trace"})
    EXPECT_EQ(sweep[key]["n"], 2) << key;
  // l* is argmax S over the candidates, read back from the table study.json holds.
  const Json& table = study["tables"]["layers_trace"];
  int64_t best = -1;
  double bestScore = -1e300;
  for (const auto& row : table["rows"])
    if (row[10].is_number() && row[10].get<double>() > bestScore) {
      bestScore = row[10].get<double>();
      best = row[0].get<int64_t>();
    }
  ASSERT_EQ(table["columns"][10], "S");
  EXPECT_EQ(sweep["lstar_trace"]["mean"].get<double>(), double(best));
  EXPECT_EQ(study["verdict"]["result"], "inconclusive");  // 3 layers: partial ρ is undefined
}

TEST(StudySmoke, DihalReplicationBridgesEveryLayerAndDecidesWithThePermutationTest) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  StudyOptions options = smokeOptions(dir / "s", dir / "corpus.txt");
  // The replication names its model: without model= it is refused before anything runs.
  EXPECT_THROW(runStudy(*makeStudy("dihal-replication"), options, job), ConfigError);
  EXPECT_FALSE(std::filesystem::exists(dir / "s" / "protocol.json"));
  options.overrides.push_back("model=" STRATA_SOURCE_DIR "/resources/models/default");
  runStudy(*makeStudy("dihal-replication"), options, job);
  const Json study = readStudy(dir / "s");
  EXPECT_EQ(armNames(study), (std::vector<std::string>{"embedding-diffusion", "gaussian-l1",
                                                       "gaussian-l2", "gaussian-l3"}));
  EXPECT_EQ(study["protocol"]["headline"], "beyond_depth_standardise");
  const Json& headline = study["claims"][1];
  EXPECT_EQ(headline["id"], "beyond_depth_standardise");
  EXPECT_EQ(headline["permutation_p"], "perm_p_partial_rho_gaussian_standardise");
  EXPECT_EQ(headline["permutation_decides"], true);
  // The permutation test ran on the seed means of the 3 bridged layers, for every normalisation.
  for (const char* key :
       {"perm_rho_gaussian_trace", "perm_p_rho_gaussian_standardise", "perm_p2_rho_gaussian_none"})
    EXPECT_TRUE(study["across_seeds"][key].is_number()) << key;
  EXPECT_EQ(study["aggregates"]["sweep"]["regret_lstar_gaussian_standardise"]["n"], 2);
  // 3 layers: the partial ρ is undefined, so the headline cannot be decided.
  EXPECT_EQ(study["verdict"]["result"], "inconclusive");

  // The Brownian half is its own study of the same shape.
  options.folder = dir / "b";
  runStudy(*makeStudy("dihal-replication-brownian"), options, job);
  const Json brownian = readStudy(dir / "b");
  EXPECT_EQ(brownian["protocol"]["arms"][3]["name"], "bridge-l3");
  EXPECT_EQ(brownian["protocol"]["headline"], "beyond_depth_standardise");
  EXPECT_TRUE(brownian["across_seeds"]["perm_p_partial_rho_bridge_trace"].is_null() ||
              brownian["across_seeds"]["perm_p_partial_rho_bridge_trace"].is_number());
}

TEST(StudySmoke, DihalGenerationJudgesEachArmsGenerationsAgainstEmbeddingDiffusion) {
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  StudyOptions options = smokeOptions(dir / "s", dir / "corpus.txt");
  // The full budget needs a judge of another family; the model is fixed by the protocol.
  StudyOptions full = options;
  full.budget = "full";
  EXPECT_THROW(makeStudy("dihal-generation")->protocol(full), ConfigError);
  StudyOptions otherModel = options;
  otherModel.overrides.push_back("model=/elsewhere");
  EXPECT_THROW(makeStudy("dihal-generation")->protocol(otherModel), ConfigError);
  runStudy(*makeStudy("dihal-generation"), options, job);
  const Json study = readStudy(dir / "s");
  EXPECT_EQ(armNames(study),
            (std::vector<std::string>{"embedding-diffusion", "gaussian-l2", "gaussian-l1"}));
  EXPECT_EQ(study["protocol"]["measuring"][0],
            "judge=" STRATA_SOURCE_DIR "/resources/models/default");
  EXPECT_EQ(study["runs"].size(), 6u);  // 3 arms × 2 seeds
  for (const auto& run : study["runs"]) {
    EXPECT_GT(run["metrics"]["gen_ppl"].get<double>(), 1.0) << run["arm"];
    EXPECT_TRUE(run["metrics"]["word_diversity"].is_number()) << run["arm"];
    // The reference row: the original model's own text, judged once per seed (control runs).
    EXPECT_EQ(run["metrics"]["original_gen_ppl"].is_number(), run["arm"] == "embedding-diffusion")
        << run["arm"];
  }
  EXPECT_EQ(study["claims"][0]["id"], "lstar_beats_embedding");
  EXPECT_EQ(study["claims"][0]["baseline"], "embedding-diffusion");
  EXPECT_EQ(study["claims"][0]["difference"]["n"], 2);
}

TEST(StudySmoke, UnknownStudyAndStraySettingAreRefused) {
  EXPECT_THROW(makeStudy("nope"), ConfigError);
  TempDir dir;
  writeSmallCorpus(dir / "corpus.txt");
  StudyOptions options = smokeOptions(dir / "s", dir / "corpus.txt");
  options.overrides.push_back("no_such_setting=1");
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  EXPECT_THROW(runStudy(*makeStudy("dcdm"), options, job), ConfigError);
}

}  // namespace
}  // namespace strata::studies
