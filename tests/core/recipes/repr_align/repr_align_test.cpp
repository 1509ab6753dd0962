// The repr_align recipe end to end: every supported architecture converts (the student starts
// as the teacher, learns, and keeps what is frozen), the alignment curves are logged, λ = 0
// runs no teacher in training, a stopped run resumes exactly, the imported stories260K gets a
// [MASK] token and samples through `strata-cli generate --dlm`.

#include <torch/torch.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/recipe_catalog.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "model/backbone/llama2c_import.h"
#include "model/backbone/safetensors_torch.h"
#include "model/trainable/trainable_backbone.h"
#include "recipes/pretrain/pretrain_files.h"
#include "recipes/repr_align/align_sample_quality.h"
#include "recipes/repr_align/repr_align_files.h"
#include "recipes/sample_quality.h"
#include "studies/report/study_report_reader.h"
#include "support/cli_runner.h"
#include "support/model_test_folders.h"
#include "support/recipe_configs.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;
using testing::kRandomLayers;

/** A random model of `architecture` with the byte tokenizer's 258 ids and its tokenizer files. */
fs::path randomModel(const fs::path& folder, io::Architecture architecture) {
  return testing::randomByteModel(folder, static_cast<int>(architecture));
}
using testing::tinyConversion;

/** The toy corpus and a random Llama written into `dir`, and a tiny conversion of them with
 *  `steps` steps and an evaluation every `evalEvery`. */
engine::ResolvedConfig toyLlamaConversion(const TempDir& dir, int64_t steps, int64_t evalEvery,
                                          double lambda = 10) {
  testing::writeToyCorpus(dir / "corpus.txt");
  engine::ResolvedConfig config = tinyConversion(
      randomModel(dir / "model", io::Architecture::Llama), dir / "corpus.txt", lambda);
  config.set("steps", steps);
  config.set("eval_every", evalEvery);
  return config;
}

std::vector<engine::MetricsRecord> evalRecords(const fs::path& run) {
  std::vector<engine::MetricsRecord> out;
  for (const engine::MetricsRecord& r : engine::readMetricsLog(run / "metrics.jsonl"))
    if (r.has("val_loss")) out.push_back(r);
  return out;
}

/** A tensor of the source model, by its Hugging Face name. */
torch::Tensor sourceTensor(const fs::path& model, const std::string& name) {
  const auto file = io::SafetensorsFile::open(model / "model.safetensors");
  return model::tensorView(file, file->at(name)).to(torch::kFloat);
}

class ReprAlign : public ::testing::TestWithParam<io::Architecture> {
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
  engine::ResolvedConfig config = tinyConversion(model, corpus());
  config.set("freeze_mlp", true);
  const engine::TrainingSummary summary = testing::trainRecipe("repr_align", config, dir / "run");
  ASSERT_TRUE(summary.finished);

  // Alignment curves: every hidden state, every step (λ > 0) and every evaluation.
  const auto records = engine::readMetricsLog(dir / "run" / "metrics.jsonl");
  const auto evals = evalRecords(dir / "run");
  ASSERT_GE(evals.size(), 2u);
  for (int64_t l = 0; l <= kRandomLayers; ++l) {
    const std::string key = "align_cos_" + std::to_string(l);
    EXPECT_TRUE(records.front().has(key)) << key;
    EXPECT_TRUE(evals.back().has("val_" + key)) << key;
    EXPECT_LE(std::abs(evals.back().value("val_" + key)), 1.0 + 1e-6);
  }
  EXPECT_FALSE(records.front().has("align_cos_" + std::to_string(kRandomLayers + 1)));
  EXPECT_TRUE(records.front().has("align_cos_pre_norm"));  // h_L before the final norm
  EXPECT_TRUE(evals.back().has("val_align_cos_pre_norm"));
  // The diffusion loss falls.
  EXPECT_LT(evals.back().value("val_loss"), evals.front().value("val_loss"));
  const auto meanCosine = [](const engine::MetricsRecord& r) {
    double sum = 0;
    for (int64_t l = 0; l <= kRandomLayers; ++l)
      sum += r.value("val_align_cos_" + std::to_string(l));
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
    } else if (name.find("attn") != std::string::npos ||
               name.find("attention") != std::string::npos) {
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

/** What a run's memory plan line gives for `what` ("gradients 405 MiB" → 405 × 2^20); -1 when
 *  the line does not hold it. */
double plannedBytes(const std::string& out, const std::string& what) {
  const std::regex pattern(what + " ([0-9.]+) (B|KiB|MiB|GiB)");
  std::smatch m;
  if (!std::regex_search(out, m, pattern)) return -1;
  const std::map<std::string, double> unit{
      {"B", 1.0}, {"KiB", 1024.0}, {"MiB", 1024.0 * 1024}, {"GiB", 1024.0 * 1024 * 1024}};
  return std::stod(m[1].str()) * unit.at(m[2].str());
}

TEST(ReprAlignRecipe, ItsMemoryPlanCountsTheStudentAndOnlyWhatTrainsOfIt) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", io::Architecture::Llama);
  testing::ScopedEnvironment environment;
  environment.set("STRATA_MEMORY_AVAILABLE", "1K");  // refused: only the plan is wanted here
  int runs = 0;
  for (const bool embeddings : {false, true})
    for (const bool mlp : {false, true}) {
      const std::string flags = std::string(" --set freeze_embeddings=") +
                                (embeddings ? "true" : "false") +
                                " --set freeze_mlp=" + (mlp ? "true" : "false");
      const testing::CommandOutput out = testing::runCli(
          "train repr_align --run-dir " + (dir / ("run" + std::to_string(runs++))).string() +
          " --set model=" + model.string() + " --set corpus=" + (dir / "corpus.txt").string() +
          flags);
      ASSERT_NE(out.exitCode, 0) << out.out;
      ASSERT_NE(out.out.find("does not fit"), std::string::npos) << out.out;
      // The reference: the student itself, built and frozen as the recipe does.
      model::TrainableBackbone student(model, 257);  // an id of its own: no row added
      if (embeddings) student->freezeEmbeddings();
      if (mlp) student->freezeMlps();
      const double all = 4.0 * static_cast<double>(student->parameterCount(false));
      const double trained = 4.0 * static_cast<double>(student->parameterCount(true));
      // The plan prints three digits, and the recipe's student has one [MASK] row more.
      EXPECT_NEAR(plannedBytes(out.out, "weights"), all, 0.01 * all) << flags << "\n" << out.out;
      EXPECT_NEAR(plannedBytes(out.out, "gradients"), trained, 0.01 * trained) << flags << "\n"
                                                                               << out.out;
      EXPECT_NEAR(plannedBytes(out.out, "AdamW moments"), 2 * trained, 0.02 * trained) << flags;
    }
}

TEST(ReprAlignRecipe, AlignLayersTheModelLacksAreRefusedBeforeTheRunIsPlanned) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", io::Architecture::Llama);
  const testing::CommandOutput out = testing::runCliSplit(
      "train repr_align --plan --set model=" + model.string() +
      " --set corpus=" + (dir / "corpus.txt").string() + " --set align_layers=1,99");
  EXPECT_NE(out.exitCode, 0) << out.err;
  EXPECT_NE(out.err.find("align_layers"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("99"), std::string::npos) << out.err;
  EXPECT_EQ((out.out + out.err).find("memory plan"), std::string::npos)
      << "planned before the check:\n"
      << out.out << out.err;
}

INSTANTIATE_TEST_SUITE_P(Architectures, ReprAlign,
                         ::testing::Values(io::Architecture::Llama, io::Architecture::Gpt2,
                                           io::Architecture::GptNeoX),
                         [](const ::testing::TestParamInfo<io::Architecture>& info) {
                           return io::architectureClassName(info.param);
                         });

TEST(ReprAlignRecipe, PlainAdaptationRunsNoTeacherButStillMeasuresTheCurves) {
  TempDir dir;
  engine::ResolvedConfig config = toyLlamaConversion(dir, 12, 12, /*lambda=*/0);
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "run").finished);
  for (const engine::MetricsRecord& r : engine::readMetricsLog(dir / "run" / "metrics.jsonl")) {
    if (r.has("val_loss")) {
      EXPECT_TRUE(r.has("val_align_cos_0"));
    } else {
      EXPECT_FALSE(r.has("align_cos_0")) << "λ = 0 trains without the teacher";
      EXPECT_EQ(r.value("align_loss"), 0.0);
    }
  }
}

TEST(ReprAlignRecipe, MetricsAreNamedForWhatTheyMeasure) {
  TempDir dir;
  engine::ResolvedConfig config = toyLlamaConversion(dir, 4, 4, /*lambda=*/0);
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "uniform").finished);
  const engine::MetricsRecord uniform = evalRecords(dir / "uniform").back();
  EXPECT_EQ(uniform.value("val_loss"), uniform.value("val_masked_ce"));
  EXPECT_TRUE(uniform.has("val_masked_acc"));
  for (const char* absent : {"val_ppl", "val_elbo", "val_ppl_bound"})
    EXPECT_FALSE(uniform.has(absent)) << absent;

  config.set("ce_weighting", std::string("elbo"));
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "elbo").finished);
  const engine::MetricsRecord elbo = evalRecords(dir / "elbo").back();
  EXPECT_EQ(elbo.value("val_loss"), elbo.value("val_elbo"));
  EXPECT_NEAR(elbo.value("val_ppl_bound"), std::exp(elbo.value("val_elbo")),
              1e-9 * elbo.value("val_ppl_bound"));
  EXPECT_TRUE(elbo.has("val_masked_ce"));
  EXPECT_FALSE(elbo.has("val_ppl"));
}

TEST(ReprAlignRecipe, LogsTheTaskLossThatValLossMeasures) {
  // "loss" is the objective, masked CE + λ·alignment; val_loss is the masked CE alone. The
  // Training tab once plotted one against the other (review 2026-12-05, defect 2).
  TempDir dir;
  engine::ResolvedConfig config = toyLlamaConversion(dir, 4, 4, /*lambda=*/10);
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "run").finished);
  int trainRecords = 0;
  for (const engine::MetricsRecord& r : engine::readMetricsLog(dir / "run" / "metrics.jsonl")) {
    if (!r.has("loss")) continue;
    ++trainRecords;
    ASSERT_TRUE(r.has(engine::kTaskLossMetric)) << r.step;
    EXPECT_EQ(r.value(engine::kTaskLossMetric), r.value("diff_loss")) << r.step;
    EXPECT_NEAR(r.value("loss"), r.value(engine::kTaskLossMetric) + 10 * r.value("align_loss"),
                1e-4 * r.value("loss"))
        << r.step;
  }
  EXPECT_GT(trainRecords, 0);
}

TEST(ReprAlignRecipe, ARandomInitStudentForgetsTheWeightsDeterministicallyAndTrains) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", io::Architecture::Llama);
  model::TrainableBackbone teacher(model, -1), a(model, -1), b(model, -1), other(model, -1);
  a->reinitialise(5);
  b->reinitialise(5);
  other->reinitialise(6);
  const auto tensors = [](const model::TrainableBackbone& m) { return m->huggingFaceTensors(); };
  const auto original = tensors(teacher), first = tensors(a), second = tensors(b),
             third = tensors(other);
  for (size_t i = 0; i < original.size(); ++i) {
    const std::string& name = original[i].first;
    EXPECT_TRUE(torch::equal(first[i].second, second[i].second)) << name << ": one seed, one init";
    if (first[i].second.dim() == 2) {
      EXPECT_FALSE(torch::equal(first[i].second, original[i].second))
          << name << " kept its AR weights";
      EXPECT_FALSE(torch::equal(first[i].second, third[i].second)) << name << " ignores the seed";
    }
  }

  engine::ResolvedConfig config = tinyConversion(model, dir / "corpus.txt", /*lambda=*/0);
  config.set("student_init", std::string("random"));
  EXPECT_THROW(testing::trainRecipe("repr_align", config, dir / "frozen"), ConfigError);
  config.set("freeze_embeddings", false);
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "run").finished);
  const auto evals = evalRecords(dir / "run");
  EXPECT_LT(evals.back().value("val_loss"), evals.front().value("val_loss"));
  // The student the run keeps is the trained random one, not the teacher.
  const LoadedConversion run = loadConversionRun(dir / "run");
  const std::string embeddings = "model.embed_tokens.weight";
  for (const auto& [name, tensor] : run.model->huggingFaceTensors())
    if (name == embeddings) {
      EXPECT_FALSE(torch::allclose(tensor.slice(0, 0, 258), sourceTensor(model, name), 1e-2, 1e-2));
    }
  EXPECT_EQ(nlohmann::json::parse(readWholeFile(dir / "run" / "run.json"))
                .at("description")
                .at("student_init"),
            "random");
}

TEST(ReprAlignRecipe, StudentGenPplIsTheTeachersMeanCrossEntropyOnTheSamples) {
  TempDir dir;
  engine::ResolvedConfig config = toyLlamaConversion(dir, 2, 2);
  const fs::path model = config.text("model");
  ASSERT_TRUE(testing::trainRecipe("repr_align", config, dir / "run").finished);
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const std::vector<std::string> prompts = heldOutPrompts(dir / "run", 3, 8, job);
  ASSERT_EQ(prompts.size(), 3u);
  StudentSampling sampling;
  sampling.newTokens = 6;
  const GenerationJudge judge(model);
  const StudentSampleQuality quality = judgeStudentSamples(dir / "run", prompts, sampling, judge);
  EXPECT_EQ(quality.samples, 3);
  EXPECT_EQ(quality.judge, model.string());

  // Independently: the teacher's logits on prompt (with its special tokens) + continuation,
  // −log softmax at each continuation token, pooled over the samples.
  const auto teacher = model::Backbone::load(model);
  const auto tokenizer = tokenizer::loadTokenizer(model);
  double crossEntropy = 0;
  int64_t count = 0;
  std::vector<std::string> continuations;
  torch::NoGradGuard noGrad;
  std::istringstream lines(readWholeFile(dir / "run" / "judged_samples.jsonl"));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    const nlohmann::json sample = nlohmann::json::parse(line);
    const std::vector<int32_t> prompt =
        tokenizer->encode(sample.at("prompt").get<std::string>(), true);
    // The text from the recorded ids: the JSON line replaces bytes that are not UTF-8.
    const std::string continuation =
        tokenizer->decode(sample.at("tokens").get<std::vector<int32_t>>(), true);
    const std::vector<int32_t> text = tokenizer->encode(continuation, false);
    continuations.push_back(continuation);
    std::vector<int64_t> ids(prompt.begin(), prompt.end());
    ids.insert(ids.end(), text.begin(), text.end());
    model::CaptureRequest request;
    request.logits = true;
    const torch::Tensor logProbabilities = torch::log_softmax(
        teacher->capture(torch::tensor(ids).unsqueeze(0), request).logits[0].to(torch::kDouble),
        -1);
    for (size_t j = 0; j < text.size(); ++j) {
      crossEntropy -=
          logProbabilities[static_cast<int64_t>(prompt.size() + j) - 1][text[j]].item<double>();
      ++count;
    }
  }
  ASSERT_GT(count, 0);
  EXPECT_EQ(quality.judgedTokens, count);
  EXPECT_NEAR(quality.genPpl, std::exp(crossEntropy / static_cast<double>(count)),
              1e-4 * quality.genPpl);
  EXPECT_EQ(quality.wordDiversity, wordDiversity(continuations));
}

TEST(ReprAlignRecipe, AStoppedRunResumesExactly) {
  TempDir dir;
  engine::ResolvedConfig config = toyLlamaConversion(dir, 16, 12);
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
  model::importLlama2c(stories / "stories260K.bin", stories / "tok512.bin", dir / "stories");
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
  EXPECT_EQ(description.at("hidden_states"), "6");  // 5 blocks + the embedding output

  const auto inspected = testing::runCli("inspect " + run);
  ASSERT_EQ(inspected.exitCode, 0) << inspected.out;
  EXPECT_NE(inspected.out.find("[MASK]       id 512 (added to the vocabulary)"), std::string::npos)
      << inspected.out;
  EXPECT_NE(inspected.out.find("λ = 10, cosine over all of 6 hidden states"), std::string::npos)
      << inspected.out;

  const auto generated =
      testing::runCli("generate --dlm " + run + " --prompt Once --max-new-tokens 8 --seed 1");
  ASSERT_EQ(generated.exitCode, 0) << generated.out;
  EXPECT_NE(generated.out.find("Once"), std::string::npos) << generated.out;
  // Block-wise: 8 tokens in blocks of 4, 2 steps each.
  EXPECT_NE(generated.out.find("8 tokens in 4 unmasking steps"), std::string::npos)
      << generated.out;
}

}  // namespace
}  // namespace strata::recipes

namespace strata::recipes {
namespace {

TEST(CompareAlign, TrainsTheFourVariantsWithOneBudgetAndTabulatesThem) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  const fs::path model = randomModel(dir / "model", io::Architecture::Llama);
  const std::string out = (dir / "study").string();
  const std::string command =
      "compare-align --model " + model.string() + " --corpus " + (dir / "corpus.txt").string() +
      " --steps 6 --out " + out +
      " --set seq_len=16 --set batch=4 --set eval_every=3 --set eval_windows=4"
      " --set threads=1 --set sample_steps=2 --samples 2 --sample-tokens 4";
  const auto result = testing::runCli(command);
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const nlohmann::json rows = nlohmann::json::parse(readWholeFile(dir / "study" / "compare.json"));
  ASSERT_EQ(rows.size(), 5u);
  std::map<std::string, nlohmann::json> byName;
  for (const auto& row : rows) byName[row.at("name")] = row;
  for (const char* name :
       {"lambda0-full", "lambda10-full", "lambda0-frozen", "lambda10-frozen", "scratch-full"}) {
    ASSERT_TRUE(byName.count(name)) << name;
    EXPECT_EQ(byName[name].at("val_loss").size(), 2u) << "evaluations at steps 3 and 6";
    EXPECT_GT(byName[name].at("tokens_per_s").get<double>(), 0);
    // Sample quality: two samples, judged by the teacher (the model every student came from).
    const nlohmann::json& samples = byName[name].at("samples");
    EXPECT_EQ(samples.at("count"), 2);
    EXPECT_EQ(samples.at("judge"), model.string());
    EXPECT_GT(samples.at("gen_ppl").get<double>(), 1.0);
    const fs::path run = dir / "study" / "runs" / (std::string(name) + "-s0");
    EXPECT_TRUE(fs::exists(run / "judged_samples.jsonl")) << name;
    EXPECT_EQ(byName[name].at("run"), run.string());
  }
  EXPECT_EQ(byName["scratch-full"].at("student_init"), "random");
  EXPECT_EQ(byName["lambda0-full"].at("student_init"), "pretrained");
  EXPECT_EQ(byName["lambda0-full"].at("val_loss_kind"), "masked CE");
  EXPECT_EQ(byName["lambda10-full"].at("lambda"), 10.0);
  EXPECT_LT(byName["lambda0-frozen"].at("trainable_parameters").get<int64_t>(),
            byName["lambda0-full"].at("trainable_parameters").get<int64_t>());
  // λ = 0 and λ = 10 differ only in the alignment term: same first-step data, different losses.
  EXPECT_NE(byName["lambda0-full"].at("best_val_loss"),
            byName["lambda10-full"].at("best_val_loss"));
  const std::string table = readWholeFile(dir / "study" / "compare.md");
  EXPECT_NE(table.find("val masked CE @3"), std::string::npos) << table;
  EXPECT_NE(table.find("Gen.PPL"), std::string::npos) << table;
  EXPECT_NE(table.find("judged by the teacher " + model.string()), std::string::npos) << table;
  EXPECT_NE(result.out.find("lambda10-frozen"), std::string::npos) << result.out;
  // It ran as a study: study.json holds the same numbers and decides nothing.
  const studies::StudyReport report = studies::readStudyReport(dir / "study");
  EXPECT_EQ(report.study, "compare-align");
  EXPECT_EQ(report.verdict, "no claim");
  ASSERT_EQ(report.runs.size(), 5u);
  for (const studies::StudyReportRun& run : report.runs)
    EXPECT_DOUBLE_EQ(run.metrics.at("gen_ppl"), byName[run.arm].at("samples").at("gen_ppl"))
        << run.arm;
  // Running it again keeps the finished runs (nothing retrained) and rewrites the same table.
  const auto again = testing::runCli(command);
  ASSERT_EQ(again.exitCode, 0) << again.out;
  EXPECT_EQ(readWholeFile(dir / "study" / "compare.md"), table);
}

}  // namespace
}  // namespace strata::recipes
