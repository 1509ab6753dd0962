// The bridge recipe (see bridge.h): settings, data on the fly from the frozen source model,
// the denoiser, its loss and its evaluation.

#include "recipes/bridge/bridge.h"

#include <torch/torch.h>

#include <algorithm>

#include "common/error.h"
#include "common/job.h"
#include "engine/memory_plan.h"
#include "engine/recipe.h"
#include "io/hf/model_fingerprint.h"
#include "io/store/activation_store.h"
#include "recipes/bridge/bridge_evaluation.h"
#include "recipes/bridge/bridge_files.h"
#include "recipes/bridge/bridge_source.h"
#include "recipes/bridge/bridge_store_data.h"
#include "recipes/pretrain/pretrain_data.h"

namespace strata::recipes {

namespace fs = std::filesystem;

namespace {

class BridgeRecipe final : public engine::Recipe {
 public:
  void build(const engine::RecipeSetup& setup, JobContext& job) override {
    const engine::ResolvedConfig& c = setup.config;
    m_seqLen = c.integer("seq_len");
    m_seed = static_cast<uint64_t>(c.integer("seed"));
    m_batch = c.integer("batch");
    m_evalWindows = c.integer("eval_windows");
    m_diffusion = bridgeDiffusionFrom(c);
    const std::optional<fs::path> store =
        c.text("store").empty() ? std::nullopt : std::optional<fs::path>(c.text("store"));
    m_layer = resolveBridgeLayer(c);
    // The source and the denoiser are planned before either is built (engine/training_memory.h).
    const engine::MemoryRequest source = engine::memoryRequestFor(c.text("model"));
    checkBridgeLayer(m_layer, source.config.numLayers, c.text("model"));  // before the plan
    const model::BridgeDenoiserConfig shape = bridgeDenoiserConfigFrom(c, source.config.hiddenSize);
    const bool streamSource =
        setup.checkMemory(memoryRequest(setup, source, shape), m_batch, m_seqLen, job)
            .frozenStreams;
    job.progress(-1, "loading " + c.text("model"));
    m_source = std::make_unique<BridgeSource>(c.text("model"), m_layer, setup.device, streamSource);
    if (store) {
      // Statistics (and targets, with targets=store) come from the store: they must be this
      // model's hidden states, not another checkpoint's of the same shape.
      io::requireStoreOfModel(*store, io::ActivationStore::open(*store).meta(), c.text("model"),
                              io::modelFingerprint(c.text("model")), m_source->hiddenSize(),
                              m_source->backbone().numLayers());
    }

    const fs::path corpus = c.text("corpus");
    if (c.text("targets") == "model") {
      if (corpus.empty())
        throw ConfigError("the bridge run configuration", "corpus",
                          "is required when the targets come from the model");
      m_data = readCorpusTokens(c, m_source->tokenizer(), m_seqLen - 1, job);
    }
    job.progress(-1, "normalisation statistics of h_" + std::to_string(m_layer));
    if (c.text("targets") == "store") {
      if (!store)
        throw ConfigError("the bridge run configuration", "targets",
                          "is store, but no store is given");
      m_storeData = std::make_unique<BridgeStoreData>(
          *store, m_layer, m_source->hiddenSize(), m_seqLen, c.real("val_fraction"), setup.device);
    }
    m_statistics = m_source->statistics(store, m_data.tokens.train, m_seqLen, m_seed,
                                        c.integer("stats_windows"));
    if (setup.rank == 0) writeBridgeStatistics(setup.runFolder, m_statistics);

    m_denoiser = model::BridgeDenoiser(shape);
    m_denoiser->to(setup.device);
  }

  torch::nn::Module& model() override { return *m_denoiser; }

  /** The denoiser (its attention keeps its softmax for backward), and the frozen source run on
   *  each micro-batch and on the statistics' batches of 16 × 256 tokens. */
  static engine::TrainingMemoryRequest memoryRequest(const engine::RecipeSetup& setup,
                                                     engine::MemoryRequest source,
                                                     const model::BridgeDenoiserConfig& shape) {
    const int64_t parameters = shape.parameterCount();
    engine::TrainingMemoryRequest need;
    need.model = {.parameters = parameters,
                  .trainable = parameters,
                  .layers = shape.depth,
                  .width = shape.width,
                  .heads = shape.heads,
                  .mlpWidth = shape.mlpRatio * shape.width,
                  .gatedMlp = false,
                  .attentionsPerLayer = shape.conditioning == "cross" ? 2 : 1,
                  .attentionScoresKept = true,
                  .outputWidth = shape.dataDim};
    source.batchSequences = std::max<int64_t>(setup.config.integer("batch"), 16);
    source.sequenceLength = std::max<int64_t>(setup.config.integer("seq_len"), 256);
    need.frozen = source;
    // The condition, the start and the target state of each token, float32.
    need.lossBytesPerToken = 3 * shape.dataDim * 4;
    return need;
  }

  std::vector<engine::ParameterGroup> parameterGroups() override {
    engine::ParameterGroup decayed{{}, 1.0}, plain{{}, 0.0};
    for (const auto& p : m_denoiser->parameters())
      (p.dim() >= 2 ? decayed : plain).parameters.push_back(p);
    return {decayed, plain};
  }

  engine::MicroBatchResult microBatchLoss(const engine::BatchSlice& slice) override {
    const int64_t firstRow = slice.micro * m_batch + slice.firstRow;
    const BridgeWindows windows =
        m_storeData ? m_storeData->training(m_seed, slice.step, firstRow, slice.rows)
                    : m_source->windows(trainingWindows(m_data.tokens.train, m_seqLen - 1, m_seed,
                                                        slice.step, firstRow, slice.rows));
    engine::MicroBatchResult result;
    result.loss = bridgeLoss(
        m_denoiser, m_statistics.target.normalise(windows.modelledTarget()),
        m_statistics.conditionInput(windows.modelledCondition(), m_diffusion.conditioned),
        m_diffusion);
    result.tokens = slice.rows * m_seqLen;
    return result;
  }

  engine::Metrics evaluate(int64_t /*step*/) override {
    BridgeEvaluationData data{*m_source, m_statistics, {}, m_evalWindows, m_batch, m_seed};
    if (m_storeData) {
      data.windows = std::min(m_evalWindows, m_storeData->valWindows());
      data.windowsAt = [&](int64_t first, int64_t rows) {
        return m_storeData->validation(first, rows);
      };
    } else {
      data.windows = std::min<int64_t>(m_evalWindows,
                                       static_cast<int64_t>(m_data.tokens.val.size()) / m_seqLen);
      data.windowsAt = [&](int64_t first, int64_t rows) {
        torch::Tensor ids = torch::empty({rows, m_seqLen}, torch::kInt64);
        auto acc = ids.accessor<int64_t, 2>();
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t t = 0; t < m_seqLen; ++t)
            acc[r][t] = m_data.tokens.val[static_cast<size_t>((first + r) * m_seqLen + t)];
        return m_source->windows(ids);
      };
    }
    return evaluateBridge(m_denoiser, m_diffusion, data);
  }

  std::map<std::string, std::string> description() const override {
    int64_t parameters = 0;
    if (m_denoiser)
      for (const auto& p : m_denoiser->parameters()) parameters += p.numel();
    std::map<std::string, std::string> facts = {{"layer", std::to_string(m_layer)}};
    if (m_source) {
      facts["model_layers"] = std::to_string(m_source->backbone().numLayers());
      facts["hidden_size"] = std::to_string(m_source->hiddenSize());
      facts.merge(m_data.facts());
      facts["statistics"] = m_statistics.target.source;
      facts["parameters"] = std::to_string(parameters);
    }
    return facts;
  }

 private:
  int64_t m_seqLen = 0, m_batch = 0, m_evalWindows = 0, m_layer = 0;
  uint64_t m_seed = 0;
  BridgeDiffusion m_diffusion;
  std::unique_ptr<BridgeSource> m_source;
  std::unique_ptr<BridgeStoreData> m_storeData;
  CorpusTokens m_data;
  BridgeStatistics m_statistics;
  model::BridgeDenoiser m_denoiser{nullptr};
};

}  // namespace

std::vector<engine::SettingSpec> bridgeSettings() {
  engine::SettingSpec model =
      engine::makeSetting("model", engine::SettingType::Path, std::string(),
                          "the source model: a Hugging Face folder or a .gguf file", "source");
  model.required = true;
  std::vector<engine::SettingSpec> settings = {
      model,
      engine::makeSetting("layer", engine::SettingType::Integer, int64_t{-1},
                          "l*: the layer whose hidden state the bridge rebuilds (layers 1..l* are "
                          "replaced); -1 = the best-scored layer of `store`",
                          "source", -1),
      engine::makeSetting("store", engine::SettingType::Path, std::string(),
                          "optional activation store: l* from its scores and the normalisation "
                          "statistics of its layer l*",
                          "source"),
      engine::makeChoice(
          "targets", "model", {"model", "store"},
          "where h_0 and h_{l*} come from: computed by the source model on the fly, or read "
          "from `store` (its sampled sequences, after the skipped BOS)",
          "source"),
      engine::makeSetting("seq_len", engine::SettingType::Integer, int64_t{64}, "tokens per window",
                          "data", 2),
      valFractionSetting(),
      engine::makeSetting("eval_windows", engine::SettingType::Integer, int64_t{16},
                          "held-out windows per evaluation", "data", 1),
      engine::makeSetting("stats_windows", engine::SettingType::Integer, int64_t{64},
                          "windows for the normalisation statistics when there is no store", "data",
                          1),
      engine::makeSetting("width", engine::SettingType::Integer, int64_t{128}, "denoiser width",
                          "denoiser", 8),
      engine::makeSetting("depth", engine::SettingType::Integer, int64_t{2}, "denoiser blocks",
                          "denoiser", 1),
      engine::makeSetting("heads", engine::SettingType::Integer, int64_t{4},
                          "denoiser attention heads", "denoiser", 1),
      engine::makeSetting("mlp_ratio", engine::SettingType::Integer, int64_t{4},
                          "MLP width / width", "denoiser", 1),
      engine::makeChoice("conditioning", "concat", {"concat", "cross"},
                         "how the embeddings enter: concatenated with x_t, or by cross-attention",
                         "denoiser"),
      engine::makeChoice(
          "condition", "embeddings", {"embeddings", "none"},
          "what the denoiser is conditioned on: the (standardised) input embeddings h_0 of "
          "the same tokens, or nothing (unconditional embedding diffusion, Diffusion-LM "
          "style: the sweep's layer-0 baseline)",
          "denoiser"),
      engine::makeChoice("process", "gaussian", {"gaussian", "bridge"},
                         "gaussian: generation starts from N(0, I), the condition is a side input; "
                         "bridge: a Brownian bridge from h_{l*} to the standardised condition, so "
                         "generation starts from the condition (I2SB; needs prediction=x0)",
                         "diffusion"),
      engine::makeChoice("prediction", "x0", {"x0", "eps", "v"},
                         "what the denoiser predicts: x0, the noise, or v", "diffusion"),
      engine::makeSetting("cosine_weight", engine::SettingType::Real, 0.0,
                          "weight of the extra (1 − cos(x̂0, x0)) loss term", "diffusion", 0, 100),
      engine::makeSetting("bridge_noise", engine::SettingType::Real, 1.0,
                          "σ of the Brownian bridge (process=bridge): x_t's noise is σ·√(t(1−t))",
                          "diffusion", 0, 10),
      engine::makeSetting("sample_steps", engine::SettingType::Integer, int64_t{20},
                          "sampler steps S (evaluation, generation)", "diffusion", 1, 1000),
      engine::makeSetting(
          "eta", engine::SettingType::Real, 0.0,
          "sampler η: DDIM's, or the share of the bridge posterior's noise drawn fresh "
          "(0 = deterministic after the bridge's first step)",
          "diffusion", 0, 1),
  };
  // Only targets = model reads the corpus; build() asks for it then.
  std::vector<engine::SettingSpec> corpus = corpusSettings(false);
  corpus.front().description += " (targets = model)";
  const auto afterTargets =
      std::find_if(settings.begin(), settings.end(),
                   [](const engine::SettingSpec& s) { return s.key == "targets"; }) +
      1;
  settings.insert(afterTargets, corpus.begin(), corpus.end());
  return settings;
}

std::unique_ptr<engine::Recipe> makeBridgeRecipe() { return std::make_unique<BridgeRecipe>(); }

}  // namespace strata::recipes
