// The dcdm recipe (see dcdm.h): settings, data, model, loss, balance and evaluation.

#include "recipes/dcdm/dcdm.h"

#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "engine/batch_transfer.h"
#include "engine/recipe.h"
#include "io/atomic_file.h"
#include "io/corpus_hash.h"
#include "model/diffusion/block_diffusion.h"
#include "model/random/seeded_generator.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/pretrain/pretrain_data.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace fs = std::filesystem;

namespace {

/** Entropy of chunk loads over log K (1 = perfectly even, 0 = every token in one chunk), a
 *  float64 scalar on the loads' device. */
torch::Tensor normalisedEntropy(const torch::Tensor& loads) {
  const torch::Tensor p = loads.to(torch::kDouble);
  const torch::Tensor entropy = -(p * torch::log(p.clamp_min(1e-12))).sum();
  return entropy / std::log(static_cast<double>(p.size(0)));
}

class DcdmRecipe final : public Recipe {
 public:
  void build(const RecipeSetup& setup, JobContext& job) override {
    const ResolvedConfig& c = setup.config;
    m_seqLen = c.integer("seq_len");
    m_seed = static_cast<uint64_t>(c.integer("seed"));
    m_batch = c.integer("batch");
    m_evalWindows = c.integer("eval_windows");
    m_balanceWeight = c.real("balance_weight");
    m_biasRate = c.real("bias_rate");
    m_diffusion = maskedDiffusionFrom(c);
    m_device = setup.device;
    m_runFolder = setup.runFolder;
    m_leader = setup.rank == 0;
    m_sampleSteps = c.integer("sample_steps");

    const fs::path corpus = c.text("corpus");
    const CorpusOptions corpusOptions = pretrainCorpusOptions(c);
    m_corpusHash = corpusHash(corpus, corpusOptions, &job);
    m_tokenizer = setUpRunTokenizer(c.text("tokenizer"), setup.runFolder, setup.rank);
    m_tokens = tokeniseCorpus(corpus, corpusOptions, *m_tokenizer, m_seqLen - 1,
                              c.real("val_fraction"), job);

    m_model = DcdmTransformer(dcdmConfigFrom(c, m_tokenizer->vocabSize()));
    m_model->to(m_device);
  }

  torch::nn::Module& model() override { return *m_model; }

  std::vector<ParameterGroup> parameterGroups() override {
    ParameterGroup decayed{{}, 1.0}, plain{{}, 0.0};
    for (const auto& p : m_model->parameters())
      (p.dim() == 2 ? decayed : plain).parameters.push_back(p);
    return {decayed, plain};
  }

  MicroBatchResult microBatchLoss(const BatchSlice& slice) override {
    const torch::Tensor x0 =
        toTrainingDevice(trainingWindows(m_tokens.train, m_seqLen - 1, m_seed, slice.step,
                                         slice.micro * m_batch + slice.firstRow, slice.rows),
                         m_device);
    const BlockDiffusionBatch batch = blockDiffusionBatch(*m_model, m_diffusion, x0);
    const MaskedDiffusionLoss& loss = batch.loss;
    MicroBatchResult result;
    result.loss = loss.loss;
    result.tokens = slice.rows * m_seqLen;
    result.metrics["masked_acc"] =
        loss.maskedCorrect.to(torch::kDouble) / loss.maskedCount.to(torch::kDouble).clamp_min(1.0);
    if (m_model->hasRouter()) {
      const torch::Tensor balance = m_model->balanceLoss(batch.layout);
      result.loss = result.loss + m_balanceWeight * balance;
      result.metrics["balance_loss"] = balance.detach();
      const int64_t chunks = m_model->config().chunks;
      const torch::Tensor loads = chunkLoads(batch.layout.ids, chunks);
      result.metrics["load_entropy"] = normalisedEntropy(loads);
      torch::NoGradGuard noGrad;  // the bias is not trained: it follows the running loads
      m_model->router()->updateBalanceBias(loads, m_biasRate);
    }
    return result;
  }

  Metrics evaluate(int64_t step) override {
    at::Generator generator = seededGenerator(m_seed ^ 0xDCD3ULL, m_device);
    const int64_t windows =
        std::min<int64_t>(m_evalWindows, static_cast<int64_t>(m_tokens.val.size()) / m_seqLen);
    double loss = 0, nll = 0, count = 0, correct = 0;
    const int64_t chunks = m_model->hasRouter() ? m_model->config().chunks : 0;
    torch::Tensor loads = torch::zeros({std::max<int64_t>(chunks, 1)});
    for (int64_t first = 0; first < windows; first += m_batch) {
      const int64_t rows = std::min(m_batch, windows - first);
      torch::Tensor x0 = heldOutWindows(m_tokens.val, first, rows, m_seqLen, m_seqLen);
      x0 = x0.to(m_device);
      const BlockDiffusionBatch batch = blockDiffusionBatch(*m_model, m_diffusion, x0, generator);
      const MaskedDiffusionLoss& l = batch.loss;
      loss += l.loss.item<double>() * static_cast<double>(rows);
      nll += l.maskedNll.item<double>();
      count += l.maskedCount.item<double>();
      correct += l.maskedCorrect.item<double>();
      if (chunks > 0)
        loads += chunkLoads(batch.layout.ids, chunks).to(torch::kCPU) * static_cast<double>(rows);
    }
    const double n = static_cast<double>(std::max<int64_t>(1, windows));
    Metrics metrics = {{"loss", loss / n},
                       {"ppl_bound", std::exp(loss / n)},
                       {"masked_nll", nll / std::max(1.0, count)},
                       {"masked_acc", correct / std::max(1.0, count)}};
    if (chunks > 0) {
      loads /= loads.sum().clamp_min(1e-12);
      metrics["load_entropy"] = normalisedEntropy(loads).item<double>();
      metrics["max_chunk_share"] = loads.max().item<double>();
      for (int64_t k = 0; k < chunks; ++k)
        metrics["chunk_share_" + std::to_string(k)] = loads[k].item<double>();
    }
    if (m_leader) writeSample(step);
    return metrics;
  }

  std::map<std::string, std::string> description() const override {
    std::map<std::string, std::string> facts = {
        {"corpus_hash", m_corpusHash},
        {"train_tokens", std::to_string(m_tokens.train.size())},
        {"val_tokens", std::to_string(m_tokens.val.size())}};
    if (m_model) {
      facts["parameters"] = std::to_string(m_model->parameterCount());
      facts["router_parameters"] = std::to_string(m_model->routerParameterCount());
    }
    return facts;
  }

 private:
  /** One generation sample per evaluation, appended to samples.jsonl: the first held-out
   *  tokens as the prompt, seq_len/2 new tokens, chunk ids and reveal steps. */
  void writeSample(int64_t step) {
    const int64_t promptLength = std::min<int64_t>(8, static_cast<int64_t>(m_tokens.val.size()));
    const std::vector<int32_t> promptIds(m_tokens.val.begin(), m_tokens.val.begin() + promptLength);
    DlmSamplingConfig config;
    config.newTokens = std::max<int64_t>(1, m_seqLen / 2);
    const DlmSample sample = sampleWithModel(
        m_model, *m_tokenizer, m_tokenizer->decode(promptIds, true), config, m_sampleSteps);
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
  int64_t m_sampleSteps = 8;
  int64_t m_seqLen = 0, m_batch = 0, m_evalWindows = 0;
  uint64_t m_seed = 0;
  double m_balanceWeight = 0, m_biasRate = 0;
  MaskedDiffusion m_diffusion;
  torch::Device m_device{torch::kCPU};
  std::string m_corpusHash;
  std::unique_ptr<Tokenizer> m_tokenizer;
  TokenSplit m_tokens;
  DcdmTransformer m_model{nullptr};
};

}  // namespace

std::vector<SettingSpec> dcdmSettings() {
  std::vector<SettingSpec> settings = corpusSettings();
  settings.insert(
      settings.end(),
      {
          makeSetting("tokenizer", SettingType::Text, std::string("byte"),
                      "byte (256 byte symbols + BOS/EOS), or a tokenizer folder/file to copy",
                      "data"),
          makeSetting("seq_len", SettingType::Integer, int64_t{128}, "tokens per sequence", "data",
                      2),
          makeSetting("val_fraction", SettingType::Real, 0.05, "held-out tail of the token stream",
                      "data", 1e-4, 0.5),
          makeSetting("eval_windows", SettingType::Integer, int64_t{32},
                      "held-out sequences per evaluation", "data", 1),
          makeChoice("variant", "dcdm", {"mdlm", "bdlm", "dcdm"},
                     "mdlm: no chunks; bdlm: positional blocks; dcdm: content-defined chunks",
                     "model"),
          makeSetting("block_size", SettingType::Integer, int64_t{8}, "bdlm: tokens per block",
                      "model", 1),
          makeSetting("chunks", SettingType::Integer, int64_t{8}, "dcdm: K chunks", "model", 2,
                      256),
          makeSetting("subspace_rank", SettingType::Integer, int64_t{4},
                      "dcdm: h, the dimension of each chunk's subspace μ_k (1 = point routing)",
                      "model", 1),
          makeSetting("dim", SettingType::Integer, int64_t{128}, "hidden size", "model", 2),
          makeSetting("layers", SettingType::Integer, int64_t{4}, "transformer blocks", "model", 1),
          makeSetting("heads", SettingType::Integer, int64_t{4}, "attention heads", "model", 1),
          makeSetting("mlp", SettingType::Integer, int64_t{512}, "MLP hidden width", "model", 1),
          makeChoice("schedule", "loglinear", {"loglinear", "cosine"},
                     "masking schedule α_t (log-linear 1 − (1−ε)t, ε = 1e-3, as MDLM)",
                     "diffusion"),
          makeSetting("elbo_weighting", SettingType::Boolean, true,
                      "weight the masked CE by the ELBO's −α'/(1−α) (1/t); off = plain masked CE",
                      "diffusion"),
          makeSetting("antithetic", SettingType::Boolean, true,
                      "antithetic (stratified) t per batch", "diffusion"),
          makeSetting(
              "balance_weight", SettingType::Real, 0.01,
              "dcdm: weight of the per-sequence balance loss (Gumbel-softmax, straight-through)",
              "balance", 0, 100),
          makeSetting("bias_rate", SettingType::Real, 0.001,
                      "dcdm: step of the non-trained balance bias per micro-batch", "balance", 0,
                      1),
          makeSetting("sample_steps", SettingType::Integer, int64_t{8},
                      "unmasking steps per chunk when sampling", "sampling", 1),
      });
  return settings;
}

std::unique_ptr<Recipe> makeDcdmRecipe() { return std::make_unique<DcdmRecipe>(); }

}  // namespace strata
