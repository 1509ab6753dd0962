// The repr_align recipe (see repr_align.h): settings, teacher and student, loss, evaluation.

#include "recipes/repr_align/repr_align.h"

#include <torch/torch.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "engine/batch_transfer.h"
#include "engine/memory_plan.h"
#include "engine/metrics_log.h"
#include "engine/recipe.h"
#include "io/hf/hf_config.h"
#include "model/backbone/backbone.h"
#include "model/random/random_draws.h"
#include "model/random/seeded_generator.h"
#include "model/trainable/alignment_loss.h"
#include "model/trainable/trainable_backbone.h"
#include "recipes/pretrain/pretrain_data.h"
#include "recipes/repr_align/repr_align_files.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace fs = std::filesystem;

namespace {

class ReprAlignRecipe final : public engine::Recipe {
 public:
  void build(const engine::RecipeSetup& setup, JobContext& job) override {
    const engine::ResolvedConfig& c = setup.config;
    m_seqLen = c.integer("seq_len");
    m_seed = static_cast<uint64_t>(c.integer("seed"));
    m_batch = c.integer("batch");
    m_evalWindows = c.integer("eval_windows");
    m_options = alignmentOptionsFrom(c);
    m_device = setup.device;
    m_runFolder = setup.runFolder;
    m_leader = setup.rank == 0;
    m_sampleSteps = c.integer("sample_steps");
    m_sampleBlock = c.integer("sample_block");

    const fs::path modelFolder = c.text("model");
    // What the model's config decides is checked before the run is planned and the teacher
    // loaded (minutes for a large one).
    const io::ModelConfig declared = io::readModelConfig(modelFolder / "config.json");
    if (declared.positionsEndAtMax() && m_seqLen > declared.maxPositions)
      throw ConfigError(
          "run configuration", "seq_len",
          "is longer than the model's n_positions (" + std::to_string(declared.maxPositions) + ")");
    m_layers = m_options.lambda > 0
                   ? model::alignmentLayers(c.text("align_layers"), declared.numLayers)
                   : std::vector<int64_t>{};
    model::BackboneOptions teacherOptions;
    teacherOptions.device = m_device;
    // The whole run is planned before the teacher and the student are loaded: refused with a
    // message when it cannot fit, the teacher streamed when only that fits.
    teacherOptions.streamLayers =
        setup.checkMemory(memoryRequest(setup, modelFolder), m_batch, m_seqLen, job).frozenStreams;
    m_teacher = model::Backbone::load(modelFolder, teacherOptions);
    const io::ModelConfig& model = m_teacher->config();
    m_tokenizer = setUpRunTokenizer(modelFolder.string(), setup.runFolder, setup.rank);
    m_student = model::TrainableBackbone(modelFolder,
                                         maskTokenFor(*m_tokenizer, model.vocabSize, modelFolder));
    m_randomStudent = c.text("student_init") == "random";
    if (m_randomStudent && c.boolean("freeze_embeddings"))
      throw ConfigError(
          "run configuration", "student_init",
          "is random: set freeze_embeddings=false too (frozen random embeddings and LM "
          "head would never learn)");
    if (m_randomStudent) m_student->reinitialise(m_seed);  // same architecture, no AR weights
    if (c.boolean("freeze_embeddings")) m_student->freezeEmbeddings();
    if (c.boolean("freeze_mlp")) m_student->freezeMlps();
    m_student->to(m_device);

    m_data = readCorpusTokens(c, *m_tokenizer, m_seqLen - 1, job);
  }

  torch::nn::Module& model() override { return *m_student; }

  /** The student (a full copy of the model, less what is frozen), its training step, and the
   *  frozen teacher beside it, whose hidden states the alignment holds. */
  static engine::TrainingMemoryRequest memoryRequest(const engine::RecipeSetup& setup,
                                                     const fs::path& modelFolder) {
    const engine::ResolvedConfig& c = setup.config;
    engine::MemoryRequest teacher = engine::memoryRequestFor(modelFolder);
    teacher.batchSequences = teacher.sequenceLength = 0;  // the student's micro-batches
    const io::ModelConfig& model = teacher.config;
    engine::TrainingMemoryRequest need;
    need.model = engine::trainedShapeOf(model, teacher.parameterCount);
    if (c.boolean("freeze_embeddings"))
      need.model.trainable -=
          model.vocabSize * model.hiddenSize * (model.tieWordEmbeddings ? 1 : 2);
    if (c.boolean("freeze_mlp"))
      need.model.trainable -=
          model.numLayers * (need.model.gatedMlp ? 3 : 2) * model.hiddenSize * need.model.mlpWidth;
    need.model.trainable = std::max<int64_t>(need.model.trainable, 0);
    need.frozen = teacher;
    // The teacher's hidden state of every layer at each token, float32, held for the loss.
    need.lossBytesPerToken = (model.numLayers + 1) * model.hiddenSize * 4;
    return need;
  }

  std::vector<engine::ParameterGroup> parameterGroups() override {
    auto [matrices, rest] = m_student->trainableParameters();
    return {{std::move(matrices), 1.0}, {std::move(rest), 0.0}};
  }

  engine::MicroBatchResult microBatchLoss(const engine::BatchSlice& slice) override {
    const torch::Tensor x0 = trainingWindows(m_data.tokens.train, m_seqLen - 1, m_seed, slice.step,
                                             slice.micro * m_batch + slice.firstRow, slice.rows);
    // t and the noise come from torch's default generator of the device, which checkpoints
    // restore; drawn there, not copied there.
    const torch::Tensor t = model::sampleAlignmentTimes(slice.rows, m_options, m_device);
    const torch::Tensor noised =
        model::uniformDraw({slice.rows, m_seqLen}, t.options()) < t.unsqueeze(1);
    const model::AlignmentLoss loss = batchLoss(engine::toTrainingDevice(x0, m_device), noised, t,
                                                /*withTeacher=*/!m_layers.empty());
    engine::MicroBatchResult result;
    result.loss = loss.total;
    result.tokens = slice.rows * m_seqLen;
    result.metrics["diff_loss"] = loss.diffusion;
    // What evaluate()'s "loss" measures (the diffusion term alone): the curve to set against
    // val_loss; "loss" adds λ·align, which evaluation leaves out.
    result.metrics[engine::kTaskLossMetric] = loss.diffusion;
    result.metrics["align_loss"] = loss.align;
    result.metrics["masked_acc"] =
        loss.correct.to(torch::kDouble) / loss.targets.clamp_min(1).to(torch::kDouble);
    for (size_t l = 0; l < loss.layerCosine.size(); ++l)
      result.metrics["align_cos_" + stateName(l)] = loss.layerCosine[l];
    return result;
  }

  /** On held-out windows with a fixed generator (the same masks for every run of one corpus and
   *  weighting, so λ = 0 and λ = 10 compare): "loss" is the diffusion term alone, so runs with
   *  different λ compare; the teacher always runs here, so every run has its curves. Names say
   *  what a number is: masked_ce always (mean CE over masked targets, not an ELBO, so no "ppl");
   *  under the ELBO weighting also elbo and ppl_bound = exp(elbo). */
  engine::Metrics evaluate(int64_t step) override {
    const at::Generator generator = model::seededGenerator(m_seed ^ 0xA11CULL, m_device);
    const int64_t windows =
        std::min<int64_t>(m_evalWindows, static_cast<int64_t>(m_data.tokens.val.size()) / m_seqLen);
    double maskedNll = 0, elbo = 0, align = 0, targets = 0, positions = 0, correct = 0;
    std::vector<double> cosines;
    for (int64_t first = 0; first < windows; first += m_batch) {
      const int64_t rows = std::min(m_batch, windows - first);
      const torch::Tensor x0 = heldOutWindows(m_data.tokens.val, first, rows, m_seqLen, m_seqLen);
      const torch::Tensor t = model::sampleAlignmentTimes(rows, m_options, m_device, generator);
      const torch::Tensor noised =
          model::uniformDraw({rows, m_seqLen}, t.options(), generator) < t.unsqueeze(1);
      const model::AlignmentLoss l = batchLoss(x0.to(m_device), noised, t, true);
      // Sums over the batches, so the means are over every held-out target alike.
      const auto n = static_cast<double>(l.targets.item<int64_t>());
      maskedNll += l.maskedNllSum.item<double>();
      elbo += l.elboSum.item<double>();
      positions += static_cast<double>(l.positions);
      align += l.align.item<double>() * n;
      targets += n;
      correct += static_cast<double>(l.correct.item<int64_t>());
      cosines.resize(l.layerCosine.size(), 0.0);
      for (size_t k = 0; k < l.layerCosine.size(); ++k)
        cosines[k] += l.layerCosine[k].item<double>() * n;
    }
    const double n = std::max(1.0, targets);
    const double maskedCe = maskedNll / n;
    engine::Metrics metrics = {{"masked_ce", maskedCe}, {"masked_acc", correct / n}};
    if (m_options.ceWeighting == model::CeWeighting::Elbo) {
      const double bound = elbo / std::max(1.0, positions);
      metrics["loss"] = bound;
      metrics["elbo"] = bound;
      metrics["ppl_bound"] = std::exp(bound);
    } else {
      metrics["loss"] = maskedCe;
    }
    if (!m_layers.empty()) metrics["align_loss"] = align / n;
    for (size_t k = 0; k < cosines.size(); ++k)
      metrics["align_cos_" + stateName(k)] = cosines[k] / n;
    for (const int percent : kReprAlignMaskPercents)
      metrics["masked_ce_r" + std::to_string(percent)] = maskedCeAtRatio(windows, percent / 100.0);
    if (m_leader) writeSample(step);
    return metrics;
  }

  std::map<std::string, std::string> description() const override {
    std::map<std::string, std::string> facts = m_data.facts();
    if (m_student) {
      facts["parameters"] = std::to_string(m_student->parameterCount(false));
      facts["trainable_parameters"] = std::to_string(m_student->parameterCount(true));
      facts["mask_token_id"] = std::to_string(m_student->maskId());
      facts["mask_token_added"] = m_student->addedMaskToken() ? "true" : "false";
      facts["hidden_states"] = std::to_string(m_student->config().numLayers + 1);
      facts["student_init"] = m_randomStudent ? "random" : "pretrained";
    }
    return facts;
  }

 private:
  /** Mean masked CE of the held-out windows with every position masked with probability `ratio`
   *  (a generator of its own per ratio, so every run sees the same masks). */
  double maskedCeAtRatio(int64_t windows, double ratio) {
    const at::Generator generator =
        model::seededGenerator(m_seed ^ 0x5A7EULL ^ static_cast<uint64_t>(ratio * 1000), m_device);
    const auto doubles = torch::TensorOptions(torch::kDouble).device(m_device);
    double nll = 0, targets = 0;
    for (int64_t first = 0; first < windows; first += m_batch) {
      const int64_t rows = std::min(m_batch, windows - first);
      const torch::Tensor x0 = heldOutWindows(m_data.tokens.val, first, rows, m_seqLen, m_seqLen);
      const torch::Tensor t = torch::full({rows}, ratio, doubles);
      const torch::Tensor noised = model::uniformDraw({rows, m_seqLen}, doubles, generator) < ratio;
      const model::AlignmentLoss l = batchLoss(x0.to(m_device), noised, t, false);
      nll += l.maskedNllSum.item<double>();
      targets += static_cast<double>(l.targets.item<int64_t>());
    }
    return nll / std::max(1.0, targets);
  }

  /** Student (bidirectional, on x_t) against teacher (causal, on x0, no grad); without the
   *  teacher, the masked CE alone (no alignment term, whatever λ is). */
  model::AlignmentLoss batchLoss(const torch::Tensor& x0, const torch::Tensor& noised,
                                 const torch::Tensor& t, bool withTeacher) {
    const torch::Tensor xt = torch::where(noised, torch::full_like(x0, m_student->maskId()), x0);
    model::AttentionOptions bidirectional;
    bidirectional.causal = false;
    model::TrainableForward student = m_student->forward(xt, bidirectional, withTeacher);
    std::vector<torch::Tensor> teacher;
    if (withTeacher) {
      teacher = teacherHidden(x0);
      student.hidden.push_back(student.preNorm);
    }
    return model::alignmentLoss(student.logits, x0, noised, t, student.hidden, teacher,
                                withTeacher ? m_layers : std::vector<int64_t>{}, m_options);
  }

  std::string stateName(size_t state) const {
    return model::alignmentStateName(static_cast<int64_t>(state), m_teacher->numLayers());
  }

  /** The teacher's L + 2 states of the clean windows (model/trainable/alignment_loss.h): the L + 1
   * of Hugging Face, then the last block's output before the final norm. */
  std::vector<torch::Tensor> teacherHidden(const torch::Tensor& x0) const {
    torch::NoGradGuard noGrad;  // not inference mode: the states enter an autograd graph
    const model::PreparedAttention causal = m_teacher->prepare({}, x0.size(0), x0.size(1));
    std::vector<torch::Tensor> states = {m_teacher->embed(x0)};
    const int64_t layers = m_teacher->numLayers();
    for (int64_t l = 0; l < layers; ++l)
      states.push_back(m_teacher->runLayers(states.back(), l, l + 1, causal));
    const torch::Tensor preNorm = states.back();
    states.back() = m_teacher->finalNorm(preNorm);
    states.push_back(preNorm);
    return states;
  }

  /** One generation sample per evaluation, appended to samples.jsonl. */
  void writeSample(int64_t step) {
    const int64_t promptLength =
        std::min<int64_t>(8, static_cast<int64_t>(m_data.tokens.val.size()));
    const std::vector<int32_t> promptIds(m_data.tokens.val.begin(),
                                         m_data.tokens.val.begin() + promptLength);
    DlmSamplingConfig config;
    config.newTokens = std::max<int64_t>(1, m_seqLen / 2);
    const DlmSample sample =
        sampleConverted(m_student, *m_tokenizer, m_tokenizer->decode(promptIds, true), config,
                        m_sampleSteps, m_sampleBlock);
    const nlohmann::json line = {{"step", step},
                                 {"prompt", m_tokenizer->decode(sample.prompt, true)},
                                 {"text", sample.text},
                                 {"revealed_at", sample.unmaskedAtStep}};
    std::ofstream(m_runFolder / "samples.jsonl", std::ios::app)
        << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }

  fs::path m_runFolder;
  bool m_leader = true;
  bool m_randomStudent = false;
  int64_t m_seqLen = 0, m_batch = 0, m_evalWindows = 0, m_sampleSteps = 16, m_sampleBlock = 0;
  uint64_t m_seed = 0;
  model::AlignmentOptions m_options;
  std::vector<int64_t> m_layers;
  torch::Device m_device{torch::kCPU};
  std::unique_ptr<tokenizer::Tokenizer> m_tokenizer;
  CorpusTokens m_data;
  std::unique_ptr<model::Backbone> m_teacher;
  model::TrainableBackbone m_student{nullptr};
};

}  // namespace

std::vector<engine::SettingSpec> reprAlignSettings() {
  engine::SettingSpec model =
      engine::makeSetting("model", engine::SettingType::Path, std::string(),
                          "the autoregressive model to convert: a Hugging Face folder with its "
                          "tokenizer, or a .gguf file",
                          "source");
  model.required = true;
  std::vector<engine::SettingSpec> settings = {model};
  const std::vector<engine::SettingSpec> corpus = corpusSettings();
  settings.insert(settings.end(), corpus.begin(), corpus.end());
  settings.insert(
      settings.end(),
      {
          engine::makeSetting("seq_len", engine::SettingType::Integer, int64_t{128},
                              "tokens per sequence", "data", 3),
          valFractionSetting(),
          engine::makeSetting("eval_windows", engine::SettingType::Integer, int64_t{32},
                              "held-out sequences per evaluation", "data", 1),
          engine::makeSetting(
              "lambda", engine::SettingType::Real, 10.0,
              "λ, the weight of the alignment loss (0 = plain adaptation, no teacher in training)",
              "alignment", 0, 1e6),
          engine::makeSetting(
              "align_layers", engine::SettingType::Text, std::string("all"),
              "hidden states aligned: all (the L+1 of Hugging Face: embedding output .. final-norm "
              "output, the public code), blocks (the L block outputs h_1..h_L, the last before "
              "the final norm), lower, middle, upper (thirds of the L+1), or a list such as 0,4,8",
              "alignment"),
          engine::makeChoice("align_distance", "cosine", {"cosine", "l2"},
                             "1 − mean cosine (the paper) or mean squared L2 distance",
                             "alignment"),
          engine::makeChoice(
              "ce_weighting", "uniform", {"uniform", "elbo", "inverse_t"},
              "uniform: mean CE over masked targets (the public code; logged as masked_ce); elbo: "
              "MDLM's 1/t-weighted ELBO, t ~ U(min_time, 1) (logged as elbo and ppl_bound); "
              "inverse_t: the former name of elbo",
              "alignment"),
          engine::makeSetting(
              "min_time", engine::SettingType::Real, 1.0 / 500,
              "t ~ U(min_time, 1 − min_time), one per sequence; each token masked with "
              "probability t",
              "alignment", 1e-6, 0.49),
          engine::makeChoice(
              "student_init", "pretrained", {"pretrained", "random"},
              "the student starts from the model's weights, or from random weights of the same "
              "architecture (the from-scratch baseline; the teacher stays the pretrained model)",
              "source"),
          engine::makeSetting(
              "freeze_embeddings", engine::SettingType::Boolean, true,
              "keep token embeddings and LM head frozen (the public recipe; an added [MASK] row "
              "still trains)",
              "freezing"),
          engine::makeSetting("freeze_mlp", engine::SettingType::Boolean, false,
                              "keep every MLP block frozen (fewer weight gradients: faster steps)",
                              "freezing"),
          engine::makeSetting("sample_steps", engine::SettingType::Integer, int64_t{16},
                              "unmasking steps (per block when sample_block > 0)", "sampling", 1),
          engine::makeSetting(
              "sample_block", engine::SettingType::Integer, int64_t{0},
              "positions per block when sampling (0 = the whole continuation at once)", "sampling",
              0),
      });
  return settings;
}

std::unique_ptr<engine::Recipe> makeReprAlignRecipe() {
  return std::make_unique<ReprAlignRecipe>();
}

}  // namespace strata::recipes
