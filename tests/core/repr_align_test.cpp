// The repr_align recipe end to end: every supported architecture converts (the student starts
// as the teacher, learns, and keeps what is frozen), the alignment curves are logged, λ = 0
// runs no teacher in training, a stopped run resumes exactly, the imported stories260K gets a
// [MASK] token and samples through `strata-cli generate --dlm`.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <nlohmann/json.hpp>

#include "core/cli_runner.h"
#include "core/model_test_folders.h"
#include "core/temp_dir.h"
#include "core/training_fixture.h"
#include "engine/metrics_log.h"
#include "io/safetensors_file.h"
#include "io/safetensors_torch.h"
#include "io/text_file.h"
#include "model/llama2c_import.h"
#include "recipes/pretrain_files.h"
#include "recipes/registry.h"
#include "recipes/repr_align_files.h"

namespace strata {
namespace {
namespace fs = std::filesystem;
using testing::kRandomLayers;

/** A random model of `architecture` with the byte tokenizer's 258 ids and its tokenizer files. */
fs::path randomModel(const fs::path& folder, Architecture architecture) {
  testing::RandomBackboneSpec spec;
  spec.architecture = architecture;
  spec.vocab = 258;
  testing::writeRandomBackbone(folder, spec);
  writeTokenizerFiles("byte", folder);
  return folder;
}

ResolvedConfig tinyConversion(const fs::path& model, const fs::path& corpus, double lambda = 10) {
  ResolvedConfig c(recipeSchema("repr_align"));
  c.set("model", model.string());
  c.set("corpus", corpus.string());
  c.set("steps", int64_t{24});
  c.set("batch", int64_t{8});
  c.set("seq_len", int64_t{16});  // GPT-2's test model has 24 positions
  c.set("lr", 3e-3);
  c.set("warmup", int64_t{2});
  c.set("seed", int64_t{5});
  c.set("log_every", int64_t{1});
  c.set("eval_every", int64_t{12});
  c.set("checkpoint_every", int64_t{12});
  c.set("eval_windows", int64_t{16});
  c.set("sample_steps", int64_t{4});
  c.set("threads", int64_t{1});
  c.set("lambda", lambda);
  return c;
}

std::vector<MetricsRecord> evalRecords(const fs::path& run) {
  std::vector<MetricsRecord> out;
  for (const MetricsRecord& r : readMetricsLog(run / "metrics.jsonl"))
    if (r.has("val_loss")) out.push_back(r);
  return out;
}

/** A tensor of the source model, by its Hugging Face name. */
torch::Tensor sourceTensor(const fs::path& model, const std::string& name) {
  const auto file = SafetensorsFile::open(model / "model.safetensors");
  return tensorView(file, file->at(name)).to(torch::kFloat);
}

class ReprAlign : public ::testing::TestWithParam<Architecture> {
 protected:
  static void SetUpTestSuite() {
    s_dir = new TempDir;
    testing::writeToyCorpus(*s_dir / "corpus.txt");
  }
  static void TearDownTestSuite() {
    delete s_dir;
    s_dir = nullptr;
  }
  static fs::path corpus() { return *s_dir / "corpus.txt"; }
  static inline TempDir* s_dir = nullptr;
};

TEST_P(ReprAlign, ConvertsLearnsLogsTheCurvesAndKeepsFrozenWeights) {
  TempDir dir;
  const fs::path model = randomModel(dir / "model", GetParam());
  ResolvedConfig config = tinyConversion(model, corpus());
  config.set("freeze_mlp", true);
  const TrainingSummary summary = testing::trainRecipe("repr_align", config, dir / "run");
  ASSERT_TRUE(summary.finished);

  // Alignment curves: every hidden state, every step (λ > 0) and every evaluation.
  const auto records = readMetricsLog(dir / "run" / "metrics.jsonl");
  const auto evals = evalRecords(dir / "run");
  ASSERT_GE(evals.size(), 2u);
  for (int64_t l = 0; l <= kRandomLayers; ++l) {
    const std::string key = "align_cos_" + std::to_string(l);
    EXPECT_TRUE(records.front().has(key)) << key;
    EXPECT_TRUE(evals.back().has("val_" + key)) << key;
    EXPECT_LE(std::abs(evals.back().value("val_" + key)), 1.0 + 1e-6);
  }
  EXPECT_FALSE(records.front().has("align_cos_" + std::to_string(kRandomLayers + 1)));
  // The diffusion loss falls.
  EXPECT_LT(evals.back().value("val_loss"), evals.front().value("val_loss"));
  const auto meanCosine = [](const MetricsRecord& r) {
    double sum = 0;
    for (int64_t l = 0; l <= kRandomLayers; ++l) sum += r.value("val_align_cos_" + std::to_string(l));
    return sum / (kRandomLayers + 1);
  };
  // Alignment keeps the student closer to the teacher than plain adaptation does.
  config.set("lambda", 0.0);
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "plain").finished);
  EXPECT_GT(meanCosine(evals.back()), meanCosine(evalRecords(dir / "plain").back()));

  // Frozen: embeddings, LM head and MLPs are the source's; attention trained; [MASK] added.
  const LoadedConversion run = loadConversionRun(dir / "run");
  EXPECT_TRUE(run.model->addedMaskToken());
  EXPECT_EQ(run.model->maskId(), 258);
  int64_t frozen = 0, trained = 0;
  for (const auto& [name, tensor] : run.model->huggingFaceTensors()) {
    const torch::Tensor source = sourceTensor(model, name);
    const torch::Tensor mine = tensor.slice(0, 0, source.size(0));  // the [MASK] row aside
    const bool mustBeFrozen = name.find("mlp.") != std::string::npos || source.size(0) == 258;
    if (mustBeFrozen) {
      EXPECT_TRUE(torch::equal(mine, source)) << name << " is frozen";
      ++frozen;
    } else if (name.find("attn") != std::string::npos || name.find("attention") != std::string::npos) {
      EXPECT_FALSE(torch::equal(mine, source)) << name << " trains";
      ++trained;
    }
  }
  EXPECT_GT(frozen, 0);
  EXPECT_GT(trained, 0);

  // The converted model samples: every position revealed, none left as [MASK].
  DlmSamplingConfig sampling;
  sampling.newTokens = 6;
  const DlmSample sample = sampleConversionRun(dir / "run", "the cat", sampling);
  ASSERT_EQ(sample.tokens.size(), 6u);
  for (const int32_t token : sample.tokens) EXPECT_LT(token, 258);
  EXPECT_EQ(sample.steps, 4);  // sample_steps for the whole continuation
}

INSTANTIATE_TEST_SUITE_P(Architectures, ReprAlign,
                         ::testing::Values(Architecture::Llama, Architecture::Gpt2, Architecture::GptNeoX),
                         [](const ::testing::TestParamInfo<Architecture>& info) {
                           return architectureClassName(info.param);
                         });

TEST(ReprAlignRecipe, PlainAdaptationRunsNoTeacherButStillMeasuresTheCurves) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", Architecture::Llama);
  ResolvedConfig config = tinyConversion(model, dir / "corpus.txt", /*lambda=*/0);
  config.set("steps", int64_t{12});
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "run").finished);
  for (const MetricsRecord& r : readMetricsLog(dir / "run" / "metrics.jsonl")) {
    if (r.has("val_loss")) {
      EXPECT_TRUE(r.has("val_align_cos_0"));
    } else {
      EXPECT_FALSE(r.has("align_cos_0")) << "λ = 0 trains without the teacher";
      EXPECT_EQ(r.value("align_loss"), 0.0);
    }
  }
}

TEST(ReprAlignRecipe, AStoppedRunResumesExactly) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", Architecture::Llama);
  ResolvedConfig config = tinyConversion(model, dir / "corpus.txt");
  config.set("steps", int64_t{16});
  config.set("checkpoint_every", int64_t{5});
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "whole").finished);
  config.set("stop_after", int64_t{7});
  ASSERT_FALSE(testing::trainRecipe("repr_align", config, dir / "parts").finished);
  ASSERT_TRUE(testing::resumeTiny(dir / "parts", {"stop_after=0"}).finished);
  EXPECT_EQ(testing::loggedLosses(dir / "parts"), testing::loggedLosses(dir / "whole"));
  const LoadedConversion a = loadConversionRun(dir / "whole"), b = loadConversionRun(dir / "parts");
  EXPECT_EQ(a.checkpointStep, 16);
  for (size_t i = 0; i < a.model->parameters().size(); ++i)
    EXPECT_TRUE(torch::equal(a.model->parameters()[i], b.model->parameters()[i]));
}

TEST(ReprAlignRecipe, ConvertsTheImportedStories260KAndSamplesFromTheCommandLine) {
  const fs::path stories = fs::path(STRATA_SHARED_DATA_DIR) / "models" / "stories260K";
  ASSERT_TRUE(fs::exists(stories / "stories260K.bin")) << "missing test data in " << stories;
  TempDir dir;
  importLlama2c(stories / "stories260K.bin", stories / "tok512.bin", dir / "stories");
  testing::writeToyCorpus(dir / "corpus.txt");
  const std::string run = (dir / "run").string();
  const auto trained = testing::runCli(
      "train repr_align --run-dir " + run + " --set model=" + (dir / "stories").string() +
      " --set corpus=" + (dir / "corpus.txt").string() +
      " --set steps=6 --set batch=4 --set seq_len=32 --set lr=1e-3 --set eval_windows=4"
      " --set threads=1 --set sample_block=4 --set sample_steps=2");
  ASSERT_EQ(trained.exitCode, 0) << trained.out;
  const nlohmann::json description =
      nlohmann::json::parse(readWholeFile(dir / "run" / "run.json")).at("description");
  EXPECT_EQ(description.at("mask_token_added"), "true");  // llama2c's tokenizer has no [MASK]
  EXPECT_EQ(description.at("mask_token_id"), "512");
  EXPECT_EQ(description.at("hidden_states"), "6");       // 5 blocks + the embedding output

  const auto inspected = testing::runCli("inspect " + run);
  ASSERT_EQ(inspected.exitCode, 0) << inspected.out;
  EXPECT_NE(inspected.out.find("[MASK]       id 512 (added to the vocabulary)"), std::string::npos) << inspected.out;
  EXPECT_NE(inspected.out.find("λ = 10, cosine over all of 6 hidden states"), std::string::npos) << inspected.out;

  const auto generated = testing::runCli("generate --dlm " + run + " --prompt Once --max-new-tokens 8 --seed 1");
  ASSERT_EQ(generated.exitCode, 0) << generated.out;
  EXPECT_NE(generated.out.find("Once"), std::string::npos) << generated.out;
  // Block-wise: 8 tokens in blocks of 4, 2 steps each.
  EXPECT_NE(generated.out.find("8 tokens in 4 unmasking steps"), std::string::npos) << generated.out;
}

}  // namespace
}  // namespace strata

namespace strata {
namespace {

TEST(CompareAlign, TrainsTheFourVariantsWithOneBudgetAndTabulatesThem) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", Architecture::Llama);
  const std::string out = (dir / "study").string();
  const std::string command = "compare-align --model " + model.string() + " --corpus " +
                              (dir / "corpus.txt").string() + " --steps 6 --out " + out +
                              " --set seq_len=16 --set batch=4 --set eval_every=3 --set eval_windows=4"
                              " --set threads=1 --set sample_steps=2";
  const auto result = testing::runCli(command);
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const nlohmann::json rows = nlohmann::json::parse(readWholeFile(dir / "study" / "compare.json"));
  ASSERT_EQ(rows.size(), 4u);
  std::map<std::string, nlohmann::json> byName;
  for (const auto& row : rows) byName[row.at("name")] = row;
  for (const char* name : {"lambda0-full", "lambda10-full", "lambda0-frozen", "lambda10-frozen"}) {
    ASSERT_TRUE(byName.count(name)) << name;
    EXPECT_EQ(byName[name].at("val_loss").size(), 2u) << "evaluations at steps 3 and 6";
    EXPECT_GT(byName[name].at("tokens_per_s").get<double>(), 0);
  }
  EXPECT_EQ(byName["lambda10-full"].at("lambda"), 10.0);
  EXPECT_LT(byName["lambda0-frozen"].at("trainable_parameters").get<int64_t>(),
            byName["lambda0-full"].at("trainable_parameters").get<int64_t>());
  // λ = 0 and λ = 10 differ only in the alignment term: same first-step data, different losses.
  EXPECT_NE(byName["lambda0-full"].at("best_val_loss"), byName["lambda10-full"].at("best_val_loss"));
  const std::string table = readWholeFile(dir / "study" / "compare.md");
  EXPECT_NE(table.find("val loss @3"), std::string::npos) << table;
  EXPECT_NE(result.out.find("lambda10-frozen"), std::string::npos) << result.out;
  // Running it again keeps the finished runs (nothing retrained) and rewrites the same table.
  const auto again = testing::runCli(command);
  ASSERT_EQ(again.exitCode, 0) << again.out;
  EXPECT_EQ(readWholeFile(dir / "study" / "compare.md"), table);
}

}  // namespace
}  // namespace strata
