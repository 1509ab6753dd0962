// The pretrain recipe (see pretrain.h): settings, data, model, loss and the Hugging Face export.

#include "recipes/pretrain/pretrain.h"

#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "engine/batch_transfer.h"
#include "engine/metrics_log.h"
#include "engine/recipe.h"
#include "io/atomic_file.h"
#include "model/backbone/safetensors_torch.h"
#include "model/trainable/trainable_llama.h"
#include "recipes/pretrain/pretrain_data.h"
#include "recipes/pretrain/pretrain_files.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace fs = std::filesystem;

namespace {

class PretrainRecipe final : public engine::Recipe {
 public:
  void build(const engine::RecipeSetup& setup, JobContext& job) override {
    const engine::ResolvedConfig& c = setup.config;
    m_setup.emplace(setup);
    m_seqLen = c.integer("seq_len");
    m_seed = static_cast<uint64_t>(c.integer("seed"));
    m_batch = c.integer("batch");
    m_evalWindows = c.integer("eval_windows");
    m_device = setup.device;

    model::TrainableLlamaConfig shape;
    shape.dim = c.integer("dim");
    shape.layers = c.integer("layers");
    shape.heads = c.integer("heads");
    shape.kvHeads = c.integer("kv_heads") == 0 ? shape.heads : c.integer("kv_heads");
    shape.mlp = c.integer("mlp");
    shape.maxPositions = std::max<int64_t>(m_seqLen, 2048);
    const fs::path source = "the pretrain run configuration";
    if (shape.dim % shape.heads != 0 || shape.headDim() % 2 != 0)
      throw ConfigError(source, "heads", "dim / heads must be an even whole number");
    if (shape.heads % shape.kvHeads != 0)
      throw ConfigError(source, "kv_heads", "must divide heads");

    m_tokenizer = setUpRunTokenizer(c.text("tokenizer"), setup.runFolder, setup.rank);
    shape.vocabSize = m_tokenizer->vocabSize();
    // Planned before the corpus is read and the model built (engine/training_memory.h).
    setup.checkMemory(memoryRequest(shape), m_batch, m_seqLen, job);
    m_data = readCorpusTokens(c, *m_tokenizer, m_seqLen, job);

    m_shape = shape;
    m_model = model::TrainableLlama(shape);
    m_model->initialiseWeights();
    m_model->to(m_device);
  }

  torch::nn::Module& model() override { return *m_model; }

  static engine::TrainingMemoryRequest memoryRequest(const model::TrainableLlamaConfig& shape) {
    const int64_t parameters = shape.parameterCount();
    engine::TrainingMemoryRequest need;
    need.model = {.parameters = parameters,
                  .trainable = parameters,
                  .layers = shape.layers,
                  .width = shape.dim,
                  .attentionWidth = shape.heads * shape.headDim(),
                  .keyValueWidth = shape.kvHeads * shape.headDim(),
                  .heads = shape.heads,
                  .mlpWidth = shape.mlp,
                  .outputWidth = shape.vocabSize};
    need.vocabulary = shape.vocabSize;
    return need;
  }

  std::vector<engine::ParameterGroup> parameterGroups() override {
    // AdamW's decoupled weight decay (Loshchilov & Hutter 2019) on matrices only.
    engine::ParameterGroup decayed{{}, 1.0}, plain{{}, 0.0};
    for (const auto& p : m_model->parameters())
      (p.dim() >= 2 ? decayed : plain).parameters.push_back(p);
    return {decayed, plain};
  }

  engine::MicroBatchResult microBatchLoss(const engine::BatchSlice& slice) override {
    torch::Tensor windows = trainingWindows(m_data.tokens.train, m_seqLen, m_seed, slice.step,
                                            slice.micro * m_batch + slice.firstRow, slice.rows);
    engine::MicroBatchResult result;
    result.loss = m_model->loss(engine::toTrainingDevice(windows, m_device));
    result.tokens = slice.rows * m_seqLen;
    return result;
  }

  engine::Metrics evaluate(int64_t /*step*/) override {
    return {{"val_loss", validationLoss(*m_model, m_data.tokens.val, m_seqLen, m_batch,
                                        m_evalWindows, m_device)}};
  }

  std::map<std::string, std::string> description() const override {
    int64_t parameters = 0;
    for (const auto& p : m_model->parameters()) parameters += p.numel();
    std::map<std::string, std::string> facts = m_data.facts();
    facts["parameters"] = std::to_string(parameters);
    facts["vocab_size"] = std::to_string(m_shape.vocabSize);
    return facts;
  }

  void finish(const fs::path& runFolder, JobContext&) override {
    // The Hugging Face folder: parameter names are already HF's (see trainable_llama.h).
    model::NamedTensors tensors;
    for (auto& [name, tensor] : m_model->huggingFaceTensors())
      tensors.emplace_back(name, tensor.to(torch::kCPU, torch::kFloat).contiguous());
    model::writeSafetensors(runFolder / "model.safetensors", tensors);
    LlamaFolderConfig folder{m_shape.vocabSize,    m_shape.dim,          m_shape.layers,
                             m_shape.heads,        m_shape.kvHeads,      m_shape.mlp,
                             m_shape.maxPositions, m_tokenizer->bosId(), m_tokenizer->eosId()};
    io::writeTextAtomically(runFolder / "config.json", llamaConfigJson(folder));
    writePretrainDescription(runFolder, m_setup->config, description(), m_tokenizer->kind());
  }

 private:
  std::optional<engine::RecipeSetup> m_setup;
  int64_t m_seqLen = 0, m_batch = 0, m_evalWindows = 0;
  uint64_t m_seed = 0;
  torch::Device m_device{torch::kCPU};
  std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
  CorpusTokens m_data;
  model::TrainableLlamaConfig m_shape;
  model::TrainableLlama m_model{nullptr};
};

}  // namespace

std::vector<engine::SettingSpec> pretrainSettings() {
  std::vector<engine::SettingSpec> settings = corpusSettings();
  settings.insert(
      settings.end(),
      {
          tokenizerSetting(),
          engine::makeSetting("seq_len", engine::SettingType::Integer, int64_t{128},
                              "tokens per training window", "data", 2),
          valFractionSetting(),
          engine::makeSetting("eval_windows", engine::SettingType::Integer, int64_t{64},
                              "validation windows (of seq_len + 1 tokens) at most", "data", 1),
          engine::makeSetting("dim", engine::SettingType::Integer, int64_t{128}, "hidden size",
                              "model", 2),
          engine::makeSetting("layers", engine::SettingType::Integer, int64_t{4}, "decoder blocks",
                              "model", 1),
          engine::makeSetting("heads", engine::SettingType::Integer, int64_t{4}, "attention heads",
                              "model", 1),
          engine::makeSetting("kv_heads", engine::SettingType::Integer, int64_t{0},
                              "key/value heads (0 = as many as heads)", "model", 0),
          engine::makeSetting("mlp", engine::SettingType::Integer, int64_t{352},
                              "SwiGLU intermediate size", "model", 1),
      });
  return settings;
}

std::unique_ptr<engine::Recipe> makePretrainRecipe() { return std::make_unique<PretrainRecipe>(); }

}  // namespace strata::recipes
