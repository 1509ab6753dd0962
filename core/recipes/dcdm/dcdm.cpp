// The dcdm recipe (see dcdm.h): settings, data, model, loss, balance and evaluation.

#include "recipes/dcdm/dcdm.h"

#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "engine/batch_transfer.h"
#include "engine/metrics_log.h"
#include "engine/recipe.h"
#include "io/atomic_file.h"
#include "model/diffusion/block_diffusion.h"
#include "recipes/dcdm/dcdm_evaluation.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/pretrain/pretrain_data.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace fs = std::filesystem;

namespace {

class DcdmRecipe final : public engine::Recipe {
 public:
  void build(const engine::RecipeSetup& setup, JobContext& job) override {
    const engine::ResolvedConfig& c = setup.config;
    m_seqLen = c.integer("seq_len");
    m_seed = static_cast<uint64_t>(c.integer("seed"));
    m_batch = c.integer("batch");
    m_evaluation.seqLen = m_seqLen;
    m_evaluation.batch = m_batch;
    m_evaluation.windows = c.integer("eval_windows");
    m_evaluation.timePoints = c.integer("eval_t_points");
    m_evaluation.seed = static_cast<uint64_t>(c.integer("eval_seed"));
    m_balanceWeight = c.real("balance_weight");
    m_biasRate = c.real("bias_rate");
    m_diffusion = maskedDiffusionFrom(c);
    m_device = setup.device;
    m_runFolder = setup.runFolder;
    m_leader = setup.rank == 0;
    m_sampleBudget = dlmStepBudgetFrom(c);

    m_tokenizer = setUpRunTokenizer(c.text("tokenizer"), setup.runFolder, setup.rank);
    const model::DcdmTransformerConfig shape = dcdmConfigFrom(c, m_tokenizer->vocabSize());
    // Planned before the corpus is read and the model built (engine/training_memory.h).
    setup.checkMemory(memoryRequest(shape), m_batch, m_seqLen, job);
    m_data = readCorpusTokens(c, *m_tokenizer, m_seqLen - 1, job);
    const int64_t windows = heldOutWindowCount(m_data.tokens.val, m_seqLen, m_evaluation.windows);
    if (windows < m_evaluation.windows)
      job.info("evaluation: the held-out tokens hold " + std::to_string(windows) + " windows of " +
               std::to_string(m_seqLen) + " tokens, fewer than eval_windows = " +
               std::to_string(m_evaluation.windows) + " (val_windows records the count)");

    m_model = model::DcdmTransformer(shape);
    m_model->to(m_device);
  }

  torch::nn::Module& model() override { return *m_model; }

  static engine::TrainingMemoryRequest memoryRequest(const model::DcdmTransformerConfig& shape) {
    const int64_t parameters = shape.parameterCount();
    engine::TrainingMemoryRequest need;
    need.model = {.parameters = parameters,
                  .trainable = parameters,
                  .layers = shape.layers,
                  .width = shape.dim,
                  .heads = shape.heads,
                  .mlpWidth = shape.mlp,
                  .gatedMlp = false,
                  // DCDM's soft order bias is trained through the attention's softmax.
                  .attentionScoresKept = shape.variant == model::DlmVariant::Dcdm,
                  // Block diffusion runs the noisy and the clean sequence side by side
                  // (MDLM, one chunk: the noisy one alone).
                  .sequenceStreams = shape.variant == model::DlmVariant::Mdlm ? 1 : 2,
                  .outputWidth = shape.vocab};
    need.vocabulary = shape.vocab;
    return need;
  }

  std::vector<engine::ParameterGroup> parameterGroups() override {
    engine::ParameterGroup decayed{{}, 1.0}, plain{{}, 0.0};
    for (const auto& p : m_model->parameters())
      (p.dim() == 2 ? decayed : plain).parameters.push_back(p);
    return {decayed, plain};
  }

  engine::MicroBatchResult microBatchLoss(const engine::BatchSlice& slice) override {
    const torch::Tensor x0 = engine::toTrainingDevice(
        trainingWindows(m_data.tokens.train, m_seqLen - 1, m_seed, slice.step,
                        slice.micro * m_batch + slice.firstRow, slice.rows),
        m_device);
    const model::BlockDiffusionBatch batch = model::blockDiffusionBatch(*m_model, m_diffusion, x0);
    const model::MaskedDiffusionLoss& loss = batch.loss;
    engine::MicroBatchResult result;
    result.loss = loss.loss;
    result.tokens = slice.rows * m_seqLen;
    result.metrics["masked_acc"] =
        loss.maskedCorrect.to(torch::kDouble) / loss.maskedCount.to(torch::kDouble).clamp_min(1.0);
    if (m_model->hasRouter()) {
      const torch::Tensor balance = m_model->balanceLoss(batch.layout);
      // What evaluation's "loss" (val_loss, the ELBO) measures, without the balance term that
      // the objective adds: the curve to set against val_loss.
      result.metrics[engine::kTaskLossMetric] = loss.loss.detach();
      result.loss = result.loss + m_balanceWeight * balance;
      result.metrics["balance_loss"] = balance.detach();
      const int64_t chunks = m_model->config().chunks;
      const torch::Tensor loads = model::chunkLoads(batch.layout.ids, chunks);
      result.metrics["load_entropy"] = normalisedEntropy(loads);
      torch::NoGradGuard noGrad;  // the bias is not trained: it follows the running loads
      m_model->router()->updateBalanceBias(loads, m_biasRate);
    }
    return result;
  }

  engine::Metrics evaluate(int64_t step) override {
    // The shared protocol (dcdm_evaluation.h): fixed windows, a fixed t grid and per-window
    // noise that no variant, batch size or training seed changes.
    HeldOutEvaluation evaluation =
        heldOutElbo(*m_model, m_diffusion, m_data.tokens.val, m_evaluation, m_device);
    if (m_leader) {
      writeWindowElbos(step, evaluation.windowElbo);
      writeSample(step);
    }
    return std::move(evaluation.metrics);
  }

  std::map<std::string, std::string> description() const override {
    std::map<std::string, std::string> facts = m_data.facts();
    if (m_model) {
      facts["parameters"] = std::to_string(m_model->parameterCount());
      facts["router_parameters"] = std::to_string(m_model->routerParameterCount());
    }
    return facts;
  }

 private:
  /** Each window's ELBO, one line per evaluation in val_elbo_windows.jsonl: every variant is
   *  scored on the same windows and noise, so two runs' lines can be compared window by window
   *  (a paired difference), far more precisely than their means alone. */
  void writeWindowElbos(int64_t step, const std::vector<double>& elbo) const {
    const nlohmann::json line = {{"step", step},
                                 {"eval_seed", m_evaluation.seed},
                                 {"eval_t_points", m_evaluation.timePoints},
                                 {"elbo", elbo}};
    std::ofstream(m_runFolder / "val_elbo_windows.jsonl", std::ios::app) << line.dump() << "\n";
  }

  /** One generation sample per evaluation, appended to samples.jsonl: the first held-out
   *  tokens as the prompt, seq_len/2 new tokens, chunk ids and reveal steps. */
  void writeSample(int64_t step) {
    const int64_t promptLength =
        std::min<int64_t>(8, static_cast<int64_t>(m_data.tokens.val.size()));
    const std::vector<int32_t> promptIds(m_data.tokens.val.begin(),
                                         m_data.tokens.val.begin() + promptLength);
    DlmSamplingConfig config;
    config.newTokens = std::max<int64_t>(1, m_seqLen / 2);
    const DlmSample sample = sampleWithModel(
        m_model, *m_tokenizer, m_tokenizer->decode(promptIds, true), config, m_sampleBudget);
    const nlohmann::json line = {{"step", step},
                                 {"prompt", m_tokenizer->decode(sample.prompt, true)},
                                 {"text", sample.text},
                                 {"chunk_ids", sample.chunkIds},
                                 {"revealed_at", sample.unmaskedAtStep}};
    std::ofstream(m_runFolder / "samples.jsonl", std::ios::app)
        << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }

  fs::path m_runFolder;
  bool m_leader = true;
  DlmStepBudget m_sampleBudget;
  HeldOutElboOptions m_evaluation;
  int64_t m_seqLen = 0, m_batch = 0;
  uint64_t m_seed = 0;
  double m_balanceWeight = 0, m_biasRate = 0;
  model::MaskedDiffusion m_diffusion;
  torch::Device m_device{torch::kCPU};
  std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
  CorpusTokens m_data;
  model::DcdmTransformer m_model{nullptr};
};

}  // namespace

std::vector<engine::SettingSpec> dcdmSettings() {
  std::vector<engine::SettingSpec> settings = corpusSettings();
  settings.insert(
      settings.end(),
      {
          tokenizerSetting(),
          engine::makeSetting("seq_len", engine::SettingType::Integer, int64_t{128},
                              "tokens per sequence", "data", 2),
          valFractionSetting(),
          engine::makeSetting(
              "eval_windows", engine::SettingType::Integer, int64_t{128},
              "held-out sequences per evaluation (the first ones of the held-out tail, "
              "the same for every variant)",
              "data", 1),
          engine::makeSetting(
              "eval_t_points", engine::SettingType::Integer, int64_t{8},
              "evaluation: G midpoints of [1e-3, 1] at which every window's ELBO is "
              "computed, every chunk at the same t",
              "data", 1, 1024),
          engine::makeSetting(
              "eval_seed", engine::SettingType::Integer, int64_t{0},
              "evaluation: seed of each window's token uniforms (with the window index; "
              "independent of seed and variant)",
              "data", 0),
          engine::makeChoice(
              "variant", "dcdm", {"mdlm", "bdlm", "dcdm"},
              "mdlm: no chunks; bdlm: positional blocks; dcdm: content-defined chunks", "model"),
          engine::makeSetting("block_size", engine::SettingType::Integer, int64_t{8},
                              "bdlm: tokens per block", "model", 1),
          engine::makeSetting("chunks", engine::SettingType::Integer, int64_t{8}, "dcdm: K chunks",
                              "model", 2, 256),
          engine::makeSetting(
              "subspace_rank", engine::SettingType::Integer, int64_t{4},
              "dcdm: h, the dimension of each chunk's subspace μ_k (1 = point routing)", "model",
              1),
          engine::makeSetting("dim", engine::SettingType::Integer, int64_t{128}, "hidden size",
                              "model", 2),
          engine::makeSetting("layers", engine::SettingType::Integer, int64_t{4},
                              "transformer blocks", "model", 1),
          engine::makeSetting("heads", engine::SettingType::Integer, int64_t{4}, "attention heads",
                              "model", 1),
          engine::makeSetting("mlp", engine::SettingType::Integer, int64_t{512}, "MLP hidden width",
                              "model", 1),
          engine::makeChoice("schedule", "loglinear", {"loglinear", "cosine"},
                             "masking schedule α_t (log-linear 1 − (1−ε)t, ε = 1e-3, as MDLM)",
                             "diffusion"),
          engine::makeSetting(
              "elbo_weighting", engine::SettingType::Boolean, true,
              "weight the masked CE by the ELBO's −α'/(1−α) (1/t); off = plain masked CE",
              "diffusion"),
          engine::makeSetting("antithetic", engine::SettingType::Boolean, true,
                              "antithetic (stratified) t per batch", "diffusion"),
          engine::makeSetting(
              "balance_weight", engine::SettingType::Real, 0.01,
              "dcdm: weight of the per-sequence balance loss (Gumbel-softmax, straight-through)",
              "balance", 0, 100),
          engine::makeSetting("bias_rate", engine::SettingType::Real, 0.001,
                              "dcdm: step of the non-trained balance bias per micro-batch",
                              "balance", 0, 1),
          engine::makeSetting(
              "sample_steps_per_token", engine::SettingType::Real, 1.0,
              "denoising steps per generated token: each chunk (block) gets "
              "ceil(rate × its tokens) steps, so every variant takes the same number",
              "sampling", 1e-3, 1),
          engine::makeSetting(
              "sample_steps", engine::SettingType::Integer, int64_t{0},
              "0 = sample_steps_per_token; S > 0: S steps per chunk whatever its size "
              "(the old rule; mdlm S per block_size tokens)",
              "sampling", 0),
      });
  return settings;
}

std::unique_ptr<engine::Recipe> makeDcdmRecipe() { return std::make_unique<DcdmRecipe>(); }

}  // namespace strata::recipes
