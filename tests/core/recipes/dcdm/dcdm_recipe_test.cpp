// The dcdm recipe on the engine: every variant trains and reports its ELBO, accuracy and chunk
// balance; a stopped run resumes exactly (the balance bias and the Gumbel noise included); the
// sampler unmasks chunk by chunk; compare-dlm writes its table.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/job.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/recipe_catalog.h"
#include "recipes/dcdm/chunk_routing.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/dcdm/dlm_sample_quality.h"
#include "recipes/dlm_sampler.h"
#include "recipes/pretrain/pretrain_files.h"
#include "recipes/sample_quality.h"
#include "studies/comparison_studies.h"
#include "studies/report/study_report_reader.h"
#include "support/cli_runner.h"
#include "support/model_test_folders.h"
#include "support/recipe_configs.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;

using testing::tinyDlmConfig;

/** A random Llama with the byte tokenizer's 258 ids and its tokenizer files: the test's judge. */
fs::path judgeFolder(const fs::path& folder) {
  testing::RandomBackboneSpec spec;
  spec.vocab = 258;
  testing::writeRandomBackbone(folder, spec);
  writeTokenizerFiles("byte", folder);
  return folder;
}

engine::TrainingSummary train(const engine::ResolvedConfig& config, const fs::path& run) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::TrainingRequest request;
  request.recipe = "dcdm";
  request.config = config;
  request.runFolder = run;
  return engine::startTraining(request, job);
}

class DcdmRecipe : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(*s_dir / "corpus.txt");
    for (const char* variant : {"mdlm", "bdlm", "dcdm"})
      s_summaries[variant] = train(tinyDlmConfig(corpus(), variant), *s_dir / variant);
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static fs::path run(const std::string& variant) { return *s_dir / variant; }
  static inline TempDir* s_dir = nullptr;
  static inline std::map<std::string, engine::TrainingSummary> s_summaries;
};

TEST_F(DcdmRecipe, EveryVariantTrainsAndReportsItsEvaluation) {
  for (const char* variant : {"mdlm", "bdlm", "dcdm"}) {
    const auto& m = s_summaries.at(variant).lastMetrics;
    for (const char* key : {"val_loss", "val_ppl_bound", "val_masked_acc", "val_masked_nll"})
      ASSERT_TRUE(m.count(key) && std::isfinite(m.at(key))) << variant << " " << key;
    EXPECT_NEAR(m.at("val_ppl_bound"), std::exp(m.at("val_loss")), 1e-6 * m.at("val_ppl_bound"));
    // Each evaluation's per-window ELBOs (val_elbo_windows.jsonl) average to its val_loss.
    std::istringstream windows(readWholeFile(run(variant) / "val_elbo_windows.jsonl"));
    std::string last;
    for (std::string line; std::getline(windows, line);) last = line;
    const auto elbo = nlohmann::json::parse(last).at("elbo").get<std::vector<double>>();
    ASSERT_EQ(static_cast<double>(elbo.size()), m.at("val_windows")) << variant;
    double mean = 0;
    for (const double v : elbo) mean += v / static_cast<double>(elbo.size());
    EXPECT_NEAR(mean, m.at("val_loss"), 1e-9 * mean) << variant;
    const auto losses = testing::loggedLosses(run(variant));
    ASSERT_EQ(losses.size(), 20u) << variant;
    EXPECT_LT(losses.rbegin()->second, losses.begin()->second) << variant;
  }
  const auto& dcdm = s_summaries.at("dcdm").lastMetrics;
  double shares = 0;
  for (int k = 0; k < 4; ++k) shares += dcdm.at("val_chunk_share_" + std::to_string(k));
  EXPECT_NEAR(shares, 1.0, 1e-6);
  EXPECT_GT(dcdm.at("val_load_entropy"), 0.0);
  EXPECT_LE(dcdm.at("val_load_entropy"), 1.0 + 1e-9);
  EXPECT_EQ(s_summaries.at("mdlm").lastMetrics.count("val_load_entropy"), 0u);
  const auto facts = nlohmann::json::parse(readWholeFile(run("dcdm") / "run.json"))["description"];
  EXPECT_EQ(facts["router_parameters"], std::to_string(4 * 32 * 2 + 2 * 32 * 32));  // K·d·h + 2d²
  const auto inspect = testing::runCli("inspect " + run("dcdm").string());
  ASSERT_EQ(inspect.exitCode, 0) << inspect.out;
  EXPECT_NE(inspect.out.find("2304 parameters = K·d·h + 2d² = 4·32·2 + 2·32²"), std::string::npos)
      << inspect.out;
}

TEST_F(DcdmRecipe, DcdmLogsTheTaskLossThatValLossMeasures) {
  // "loss" is the objective, the ELBO term + balance_weight · balance; val_loss is the ELBO
  // alone, so the Training tab sets task_loss against it (review 2026-12-05, defect 2's twin).
  int trainRecords = 0;
  for (const engine::MetricsRecord& r : engine::readMetricsLog(run("dcdm") / "metrics.jsonl")) {
    if (!r.has("loss")) continue;
    ++trainRecords;
    ASSERT_TRUE(r.has(engine::kTaskLossMetric)) << r.step;
    EXPECT_NEAR(r.value("loss"), r.value(engine::kTaskLossMetric) + 0.01 * r.value("balance_loss"),
                1e-5 * r.value("loss"))
        << r.step;
  }
  EXPECT_GT(trainRecords, 0);
  // Without a router the objective is the ELBO term itself: nothing else to log.
  for (const engine::MetricsRecord& r : engine::readMetricsLog(run("bdlm") / "metrics.jsonl"))
    EXPECT_FALSE(r.has(engine::kTaskLossMetric)) << r.step;
}

TEST_F(DcdmRecipe, AStoppedDcdmRunResumesExactly) {
  TempDir dir;
  engine::ResolvedConfig config = tinyDlmConfig(corpus(), "dcdm");
  config.set("stop_after", int64_t{10});
  train(config, dir / "run");
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::resumeTraining(dir / "run", job, {}, {}, {"stop_after=0"});
  EXPECT_EQ(testing::loggedLosses(dir / "run"), testing::loggedLosses(run("dcdm")));
  EXPECT_EQ(testing::loggedValLosses(dir / "run"), testing::loggedValLosses(run("dcdm")));
  // The evaluation samples (one per evaluation) are logged once per step, as uninterrupted.
  EXPECT_EQ(readWholeFile(dir / "run" / "samples.jsonl"),
            readWholeFile(run("dcdm") / "samples.jsonl"));
  EXPECT_EQ(readWholeFile(dir / "run" / "val_elbo_windows.jsonl"),
            readWholeFile(run("dcdm") / "val_elbo_windows.jsonl"));
  const auto first = nlohmann::json::parse(
      readWholeFile(run("dcdm") / "samples.jsonl")
          .substr(0, readWholeFile(run("dcdm") / "samples.jsonl").find('\n')));
  EXPECT_EQ(first["step"], 10);
  EXPECT_EQ(first["chunk_ids"].size(), first["revealed_at"].size() + 8);  // 8 prompt tokens
}

TEST_F(DcdmRecipe, TheSamplerUnmasksBlockByBlock) {
  DlmSamplingConfig config;
  config.newTokens = 16;
  const DlmSample sample = sampleDlm(run("bdlm"), "the cat ", config);
  ASSERT_EQ(sample.tokens.size(), 16u);
  for (const int32_t token : sample.tokens) EXPECT_LT(token, 258);  // never [MASK]
  // bdlm: every position of block b is revealed before any of block b + 1, in ≤ S = 2 steps each.
  const size_t promptLength = sample.prompt.size();
  std::map<int64_t, std::pair<int64_t, int64_t>> stepsOfBlock;  // block → (first, last) step
  for (size_t i = 0; i < sample.tokens.size(); ++i) {
    const int64_t block = static_cast<int64_t>(promptLength + i) / 8;
    auto [it, added] =
        stepsOfBlock.try_emplace(block, sample.unmaskedAtStep[i], sample.unmaskedAtStep[i]);
    it->second.first = std::min(it->second.first, sample.unmaskedAtStep[i]);
    it->second.second = std::max(it->second.second, sample.unmaskedAtStep[i]);
  }
  int64_t previousLast = -1;
  for (const auto& [block, steps] : stepsOfBlock) {
    EXPECT_GT(steps.first, previousLast) << block;
    EXPECT_LE(steps.second - steps.first, 1) << block;
    previousLast = steps.second;
  }
  EXPECT_EQ(sampleDlm(run("bdlm"), "the cat ", config).tokens, sample.tokens);  // deterministic
  const auto cli = testing::runCli("generate --dlm " + run("dcdm").string() +
                                   " --prompt 'a dog ' --max-new-tokens 8 --show-chunks");
  ASSERT_EQ(cli.exitCode, 0) << cli.out;
  EXPECT_NE(cli.out.find("position  chunk  step"), std::string::npos) << cli.out;
}

TEST_F(DcdmRecipe, EveryVariantSpendsTheSameDenoisingStepsPerToken) {
  // The runs were trained with sample_steps = 2 (per chunk); an explicit rate overrides it.
  for (const double rate : {1.0, 0.5}) {
    for (const char* variant : {"mdlm", "bdlm", "dcdm"}) {
      DlmSamplingConfig config;
      config.newTokens = 24;
      config.stepsPerToken = rate;
      const DlmSample sample = sampleDlm(run(variant), "the cat ", config);
      // Each chunk, in decoding order, is revealed over exactly the steps the budget gives it:
      // max(1, ⌈rate · tokens through the chunk⌉ − steps before it).
      const size_t promptLength = sample.prompt.size();
      std::map<int64_t, std::set<int64_t>> stepsOfChunk;
      std::map<int64_t, int64_t> tokensOfChunk, firstStep;
      for (size_t i = 0; i < sample.tokens.size(); ++i) {
        const int64_t chunk = sample.chunkIds[promptLength + i], step = sample.unmaskedAtStep[i];
        stepsOfChunk[chunk].insert(step);
        ++tokensOfChunk[chunk];
        firstStep[chunk] = firstStep.count(chunk) ? std::min(firstStep[chunk], step) : step;
      }
      int64_t tokens = 0, steps = 0;
      for (const auto& [chunk, n] : tokensOfChunk) {
        tokens += n;
        const int64_t budget = std::max<int64_t>(
            1, static_cast<int64_t>(std::ceil(rate * static_cast<double>(tokens) - 1e-9)) - steps);
        EXPECT_EQ(firstStep[chunk], steps) << variant << " chunk " << chunk;
        EXPECT_EQ(static_cast<int64_t>(stepsOfChunk[chunk].size()), budget)
            << variant << " rate " << rate << " chunk " << chunk << " of " << n << " tokens";
        steps += budget;
      }
      EXPECT_EQ(sample.steps, steps) << variant;
      if (rate == 1.0) {
        EXPECT_EQ(sample.steps, 24) << variant;  // one token per step, every arm
      }
    }
  }
  // Judged samples (compare-dlm, the DCDM study) use the run's rate, never sample_steps.
  for (const char* variant : {"mdlm", "bdlm", "dcdm"}) {
    judgeDlmSamples(run(variant), 2, nullptr, "cpu");
    std::istringstream lines(readWholeFile(run(variant) / "judged_samples.jsonl"));
    for (std::string line; std::getline(lines, line);) {
      const auto judged = nlohmann::json::parse(line);
      EXPECT_EQ(judged.at("steps").get<size_t>(), judged.at("tokens").size()) << variant;
    }
  }
}

TEST_F(DcdmRecipe, TheDcdmSamplerPinsThePromptAndDecodesChunksInTheirTrainingLayout) {
  DlmSamplingConfig config;
  config.newTokens = 24;
  const DlmSample routed = sampleDlm(run("dcdm"), "the cat ", config);
  const size_t promptLength = routed.prompt.size();
  ASSERT_EQ(routed.chunkIds.size(), promptLength + 24);
  for (size_t i = 0; i < promptLength; ++i) EXPECT_EQ(routed.chunkIds[i], 0) << i;  // pinned
  // Chunk by chunk: every token of chunk c is revealed before any token of a later chunk, in at
  // most S = 2 steps per chunk (each chunk decoded from all-masked).
  std::map<int64_t, std::pair<int64_t, int64_t>> stepsOfChunk;
  for (size_t i = 0; i < routed.tokens.size(); ++i) {
    const int64_t chunk = routed.chunkIds[promptLength + i];
    EXPECT_LT(chunk, 4);
    auto [it, added] =
        stepsOfChunk.try_emplace(chunk, routed.unmaskedAtStep[i], routed.unmaskedAtStep[i]);
    it->second.first = std::min(it->second.first, routed.unmaskedAtStep[i]);
    it->second.second = std::max(it->second.second, routed.unmaskedAtStep[i]);
  }
  int64_t previousLast = -1;
  for (const auto& [chunk, steps] : stepsOfChunk) {
    EXPECT_GT(steps.first, previousLast) << chunk;
    EXPECT_LE(steps.second - steps.first, 1) << chunk;
    previousLast = steps.second;
  }
  // The final chunks are those chunk-sequential routing gives the finished sequence, prompt
  // pinned: a decoded token kept the chunk it was decoded in.
  LoadedDlm dlm = loadDlmRun(run("dcdm"));
  std::vector<int64_t> all(routed.prompt.begin(), routed.prompt.end());
  all.insert(all.end(), routed.tokens.begin(), routed.tokens.end());
  const torch::Tensor x = torch::tensor(all).unsqueeze(0);
  const torch::Tensor pinned =
      torch::arange(x.size(1)).lt(static_cast<int64_t>(promptLength)).unsqueeze(0);
  torch::NoGradGuard noGrad;
  const torch::Tensor ids = dlm.model->chunkLayout(x, pinned).ids[0];
  for (size_t i = 0; i < all.size(); ++i)
    EXPECT_EQ(ids[static_cast<int64_t>(i)].item<int64_t>(), routed.chunkIds[i]) << i;
}

TEST_F(DcdmRecipe, CachedRowsGiveTheLogitsOfTheFullSamplingPass) {
  // A partly decoded sequence: chunk c's rows against a cache of chunks < c equal the rows of
  // the full chunk-causal pass (the cache holds exactly what those rows may attend).
  for (const char* variant : {"bdlm", "dcdm"}) {
    LoadedDlm dlm = loadDlmRun(run(variant));
    torch::NoGradGuard noGrad;
    const std::vector<int32_t> ids = dlm.tokenizer->encode("the old fox finds the cat", true);
    const torch::Tensor x =
        torch::tensor(std::vector<int64_t>(ids.begin(), ids.end())).unsqueeze(0);
    const model::ChunkLayout layout = dlm.model->chunkLayout(x);
    const torch::Tensor full = dlm.model->forwardSampling(x, layout)[0];
    model::DcdmKvCache cache;
    const int64_t last = layout.ids.max().item<int64_t>();
    int64_t compared = 0;
    for (int64_t c = 0; c <= last; ++c) {
      const torch::Tensor rows = (layout.ids[0] == c).nonzero().squeeze(1);
      if (rows.numel() == 0) continue;
      const torch::Tensor cached =
          dlm.model->forwardSamplingCached(x, layout, rows, cache, false)[0];
      EXPECT_TRUE(torch::allclose(cached, full.index_select(0, rows), 1e-5, 1e-5))
          << variant << " chunk " << c;
      dlm.model->forwardSamplingCached(x, layout, rows, cache, true);
      compared += rows.numel();
    }
    EXPECT_EQ(compared, x.size(1)) << variant;
    EXPECT_EQ(cache.positions.numel(), x.size(1)) << variant;
  }
}

TEST_F(DcdmRecipe, TheKvCacheSamplesTheSameTokensAsRecomputingEveryStep) {
  for (const char* variant : {"bdlm", "dcdm"}) {
    DlmSamplingConfig config;
    config.newTokens = 20;
    config.temperature = 1.0;
    config.seed = 7;
    const DlmSample cached = sampleDlm(run(variant), "the cat ", config);
    config.kvCache = false;
    const DlmSample recomputed = sampleDlm(run(variant), "the cat ", config);
    EXPECT_EQ(cached.tokens, recomputed.tokens) << variant;
    EXPECT_EQ(cached.chunkIds, recomputed.chunkIds) << variant;
    EXPECT_EQ(cached.unmaskedAtStep, recomputed.unmaskedAtStep) << variant;
  }
}

TEST_F(DcdmRecipe, RoutingATextShowsEveryTokensChunkAtAnyCheckpoint) {
  const std::vector<int64_t> steps = dlmCheckpointSteps(run("dcdm"));
  ASSERT_EQ(steps, (std::vector<int64_t>{10, 20}));
  const ChunkRoutingReport report = routeText(run("dcdm"), "the old fox finds");
  EXPECT_EQ(report.variant, model::DlmVariant::Dcdm);
  EXPECT_EQ(report.chunks, 4);
  ASSERT_EQ(report.tokenIds.size(), 17u);  // one byte per token
  ASSERT_EQ(report.affinities.size(), 17u);
  for (size_t l = 0; l < 17; ++l) {
    float total = 0;
    for (const float p : report.assignments[l]) total += p;
    EXPECT_NEAR(total, 1.0f, 1e-5f);
    EXPECT_LT(report.chunkIds[l], 4);
  }
  EXPECT_EQ(routeText(run("dcdm"), "the old fox finds", 10).checkpointStep, 10);
  const ChunkRoutingReport blocks = routeText(run("bdlm"), "the old fox finds");
  EXPECT_EQ(blocks.chunkIds[9], 1);  // positional blocks of 8
  EXPECT_TRUE(blocks.affinities.empty());
  TempDir dir;
  writeChunkRoutingCsv(report, dir / "routing.csv");
  const std::string csv = readWholeFile(dir / "routing.csv");
  EXPECT_TRUE(csv.starts_with(
      "position,token_id,token,chunk,affinity_0,affinity_1,affinity_2,affinity_3\n"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 18);
}

TEST_F(DcdmRecipe, RoutingCutsALongTextToTheTrainedSeqLenWhenAsked) {
  const std::string text = "the old fox finds the small bird and the cat sees the ball";
  const auto tokens = static_cast<int64_t>(text.size());  // one byte per token
  const ChunkRoutingReport whole = routeText(run("dcdm"), text);
  EXPECT_EQ(whole.trainedSeqLen, 32);
  EXPECT_EQ(whole.textTokens, tokens);
  EXPECT_EQ(static_cast<int64_t>(whole.tokenIds.size()), tokens);
  const ChunkRoutingReport window =
      routeText(run("dcdm"), text, std::nullopt, RoutedLength::TrainedSeqLen);
  EXPECT_EQ(window.textTokens, tokens);
  ASSERT_EQ(window.tokenIds.size(), 32u);
  EXPECT_EQ(window.chunkIds.size(), 32u);
  EXPECT_EQ(window.trainingMask.size(), 64u);
  EXPECT_TRUE(std::equal(window.tokenIds.begin(), window.tokenIds.end(), whole.tokenIds.begin()));
}

TEST_F(DcdmRecipe, TheMaskCommandShowsTheRoutedTrainingMaskOfARun) {
  const auto result = testing::runCliSplit("mask --variant dcdm --model " + run("dcdm").string() +
                                           " --text 'the old fox' --json");
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  const ChunkRoutingReport routing = routeText(run("dcdm"), "the old fox");
  ASSERT_EQ(json["chunk_ids"].get<std::vector<int64_t>>(), routing.chunkIds);
  const size_t n = routing.chunkIds.size();
  ASSERT_EQ(json["mask"].size(), 2 * n);
  for (size_t q = 0; q < 2 * n; ++q)
    for (size_t k = 0; k < 2 * n; ++k) {
      const int64_t cq = routing.chunkIds[q % n], ck = routing.chunkIds[k % n];
      const bool noisyQ = q < n, noisyK = k < n;
      const bool expected = noisyQ ? (noisyK ? ck == cq : ck < cq) : (!noisyK && ck <= cq);
      ASSERT_EQ(json["mask"][q][k].get<int>(), expected ? 1 : 0) << q << " " << k;
    }
  const auto mismatch =
      testing::runCli("mask --variant bdlm --model " + run("dcdm").string() + " --text 'the'");
  EXPECT_EQ(mismatch.exitCode, 2) << mismatch.out;
  EXPECT_NE(mismatch.out.find("trained dcdm"), std::string::npos) << mismatch.out;
  const auto noText = testing::runCli("mask --variant dcdm --model " + run("dcdm").string());
  EXPECT_EQ(noText.exitCode, 2) << noText.out;
  EXPECT_NE(noText.out.find("--text"), std::string::npos) << noText.out;
}

TEST_F(DcdmRecipe, CompareDlmWritesOneTable) {
  TempDir dir;
  DlmComparisonConfig config;
  config.corpus = corpus();
  config.folder = dir / "study";
  config.steps = 4;
  config.settings = {"batch=4", "seq_len=16", "dim=16",         "layers=1",    "heads=2",
                     "mlp=32",  "chunks=4",   "eval_windows=2", "log_every=1", "threads=1"};
  config.variants = {{"mdlm", {"variant=mdlm"}},
                     {"dcdm-K4-h1", {"variant=dcdm", "subspace_rank=1"}}};
  config.samples = 2;
  config.judge = judgeFolder(dir / "judge");
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const auto rows = studies::runDlmComparison(config, job);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].chunks, 4);
  EXPECT_EQ(rows[1].rank, 1);
  EXPECT_TRUE(std::isnan(rows[0].loadEntropy));
  EXPECT_TRUE(std::isfinite(rows[1].loadEntropy));
  const std::string table = readWholeFile(dir / "study" / "compare.md");
  EXPECT_NE(table.find("| dcdm-K4-h1 | dcdm | 4 | 1 |"), std::string::npos) << table;
  for (const auto& row : rows) {
    EXPECT_TRUE(std::isfinite(row.genPpl) && row.genPpl > 1.0) << row.name << " " << row.genPpl;
    EXPECT_GE(row.wordDiversity, 0.0) << row.name;
    EXPECT_LE(row.wordDiversity, 1.0) << row.name;
    EXPECT_GT(row.tokenDiversity, 0.0) << row.name;
    EXPECT_LE(row.tokenDiversity, 1.0) << row.name;
    // The judged samples are kept: two lines whose tokens give the reported token diversity.
    std::vector<std::vector<int32_t>> kept;
    std::istringstream lines(readWholeFile(row.run / "judged_samples.jsonl"));
    for (std::string line; std::getline(lines, line);)
      kept.push_back(nlohmann::json::parse(line).at("tokens").get<std::vector<int32_t>>());
    EXPECT_EQ(kept.size(), 2u) << row.name;
    EXPECT_DOUBLE_EQ(tokenDiversity(kept), row.tokenDiversity) << row.name;
  }
  EXPECT_NE(table.find("Gen.PPL (judge) | word div | token div"), std::string::npos) << table;
  EXPECT_NE(table.find("Gen.PPL judged by " + (dir / "judge").string()), std::string::npos)
      << table;
  const std::string csv = readWholeFile(dir / "study" / "compare.csv");
  EXPECT_NE(csv.find(",gen_ppl,word_diversity,token_diversity\n"), std::string::npos) << csv;
  // It ran as a study: each variant a run of the study at the settings' seed, study.json
  // holding the same numbers, and no claim decided.
  EXPECT_EQ(rows[1].run, dir / "study" / "runs" / "dcdm-K4-h1-s0");
  const studies::StudyReport report = studies::readStudyReport(dir / "study");
  EXPECT_EQ(report.study, "compare-dlm");
  EXPECT_EQ(report.verdict, "no claim");
  ASSERT_EQ(report.runs.size(), 2u);
  EXPECT_DOUBLE_EQ(report.runs[1].metrics.at("val_elbo_best"), rows[1].valLoss);
  EXPECT_DOUBLE_EQ(report.runs[1].metrics.at("gen_ppl"), rows[1].genPpl);
}

TEST_F(DcdmRecipe, GenerateWithAJudgeReportsGenPplAndDiversity) {
  TempDir dir;
  const fs::path judge = judgeFolder(dir / "judge");
  const auto cli =
      testing::runCliSplit("generate --dlm " + run("bdlm").string() +
                           " --prompt 'the cat ' --max-new-tokens 16 --judge " + judge.string());
  ASSERT_EQ(cli.exitCode, 0) << cli.out << cli.err;
  EXPECT_NE(cli.out.find("judge " + judge.string()), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("Gen.PPL "), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("diversity: word "), std::string::npos) << cli.out;
  const auto missing = testing::runCli("generate --dlm " + run("bdlm").string() +
                                       " --prompt 'a' --judge " + (dir / "nothing").string());
  EXPECT_NE(missing.exitCode, 0) << missing.out;
  EXPECT_NE(missing.out.find((dir / "nothing").string()), std::string::npos) << missing.out;
}

}  // namespace
}  // namespace strata::recipes
