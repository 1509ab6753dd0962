// The pretrain recipe (see pretrain.h): data, schedule, loop, checkpoints and the export.

#include "recipes/pretrain.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "common/build_info.h"
#include "common/error.h"
#include "engine/job.h"
#include "io/atomic_file.h"
#include "io/corpus_hash.h"
#include "io/safetensors_torch.h"
#include "io/text_file.h"
#include "model/trainable_llama.h"
#include "recipes/pretrain_files.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

// SplitMix64 (Steele, Lea & Flood 2014): a portable, seedable mixer, so that the data order
// is the same on every platform and a pure function of (seed, step, row).
uint64_t splitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

void checkConfig(const PretrainConfig& c) {
  const fs::path source = "pretrain options";
  auto positive = [&](int64_t value, const char* name) {
    if (value <= 0) throw ConfigError(source, name, "must be positive");
  };
  positive(c.steps, "steps");
  positive(c.batch, "batch");
  positive(c.seqLen, "seq-len");
  positive(c.dim, "dim");
  positive(c.layers, "layers");
  positive(c.heads, "heads");
  positive(c.kvHeads, "kv-heads");
  positive(c.mlp, "mlp");
  if (c.dim % c.heads != 0 || (c.dim / c.heads) % 2 != 0)
    throw ConfigError(source, "heads", "dim / heads must be an even whole number");
  if (c.heads % c.kvHeads != 0) throw ConfigError(source, "kv-heads", "must divide heads");
  if (!(c.lr > 0)) throw ConfigError(source, "lr", "must be positive");
  if (c.warmup < 0) throw ConfigError(source, "warmup", "must not be negative");
  if (!(c.valFraction > 0 && c.valFraction < 0.5))
    throw ConfigError(source, "val-fraction", "must be in (0, 0.5)");
}

/** Linear warm-up to the peak, then cosine decay to minLrRatio · peak at the last step. */
double learningRate(const PretrainConfig& c, int64_t step) {
  if (c.warmup > 0 && step <= c.warmup)
    return c.lr * static_cast<double>(step) / static_cast<double>(c.warmup);
  const double span = static_cast<double>(std::max<int64_t>(1, c.steps - c.warmup));
  const double progress = std::min(1.0, static_cast<double>(step - c.warmup) / span);
  const double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
  return c.lr * (c.minLrRatio + (1.0 - c.minLrRatio) * cosine);
}

/** The run's token stream, documents joined with EOS, cut into train and held-out tail. */
struct TokenSplit {
  std::vector<int32_t> train, val;
};

TokenSplit tokenise(const PretrainConfig& c, const Tokenizer& tokenizer, JobContext& job) {
  const std::vector<CorpusDocument> documents = readCorpus(c.corpus, c.corpusOptions, &job);
  const auto eos = tokenizer.eosId();
  if (!eos) throw FormatError(c.tokenizer, "has no EOS token to put between documents");
  std::vector<int32_t> all;
  for (size_t i = 0; i < documents.size(); ++i) {
    if (i > 0) all.push_back(*eos);
    const std::vector<int32_t> ids = tokenizer.encode(documents[i].text);
    all.insert(all.end(), ids.begin(), ids.end());
    if (i % 64 == 0) {
      job.checkCancelled();
      job.progress(-1, "tokenising");
    }
  }
  const auto total = static_cast<int64_t>(all.size());
  const int64_t valCount = std::max<int64_t>(
      c.seqLen + 1, static_cast<int64_t>(std::llround(c.valFraction * static_cast<double>(total))));
  if (total - valCount < c.seqLen + 1)
    throw FormatError(c.corpus, "has " + std::to_string(total) + " tokens: too few for a training "
                      "and a validation window of seq-len " + std::to_string(c.seqLen) + " + 1");
  TokenSplit split;
  split.train.assign(all.begin(), all.end() - valCount);
  split.val.assign(all.end() - valCount, all.end());
  return split;
}

/** The windows of training step `step`: row b starts at SplitMix64(seed, step, b). */
torch::Tensor trainingBatch(const PretrainConfig& c, const std::vector<int32_t>& tokens,
                            int64_t step) {
  const int64_t width = c.seqLen + 1;
  const auto starts = static_cast<uint64_t>(static_cast<int64_t>(tokens.size()) - width + 1);
  torch::Tensor batch = torch::empty({c.batch, width}, torch::kInt64);
  auto rows = batch.accessor<int64_t, 2>();
  for (int64_t b = 0; b < c.batch; ++b) {
    const uint64_t key = splitMix64(c.seed) ^ splitMix64(static_cast<uint64_t>(step) * 0x10001ULL +
                                                         static_cast<uint64_t>(b));
    const auto start = static_cast<int64_t>(splitMix64(key) % starts);
    for (int64_t t = 0; t < width; ++t) rows[b][t] = tokens[static_cast<size_t>(start + t)];
  }
  return batch;
}

/** Mean loss over non-overlapping windows of the held-out tail (at most evalWindows). */
double validationLoss(const PretrainConfig& c, TrainableLlama& model,
                      const std::vector<int32_t>& tokens) {
  torch::NoGradGuard noGrad;
  const int64_t width = c.seqLen + 1;
  const int64_t windows =
      std::min<int64_t>(c.evalWindows, (static_cast<int64_t>(tokens.size()) - 1) / c.seqLen);
  double sum = 0;
  for (int64_t first = 0; first < windows; first += c.batch) {
    const int64_t rows = std::min(c.batch, windows - first);
    torch::Tensor batch = torch::empty({rows, width}, torch::kInt64);
    auto acc = batch.accessor<int64_t, 2>();
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t t = 0; t < width; ++t)
        acc[r][t] = tokens[static_cast<size_t>((first + r) * c.seqLen + t)];
    sum += model->loss(batch).item<double>() * static_cast<double>(rows);
  }
  return sum / static_cast<double>(std::max<int64_t>(1, windows));
}

Json shapeJson(const PretrainConfig& c, int64_t vocab) {
  return {{"vocab_size", vocab}, {"dim", c.dim},       {"layers", c.layers}, {"heads", c.heads},
          {"kv_heads", c.kvHeads}, {"mlp", c.mlp},     {"seed", c.seed},     {"batch", c.batch},
          {"seq_len", c.seqLen},   {"steps", c.steps}, {"lr", c.lr},         {"warmup", c.warmup},
          {"tokenizer", c.tokenizer}};
}

class Checkpoints {
 public:
  explicit Checkpoints(const fs::path& output) : m_folder(output / "checkpoints") {}

  void save(int64_t step, TrainableLlama& model, torch::optim::AdamW& optimizer, const Json& state) {
    fs::create_directories(m_folder);
    const std::string name = "step-" + std::to_string(step);
    const fs::path temp = m_folder / ("." + name + ".tmp-" + std::to_string(::getpid()));
    fs::remove_all(temp);
    fs::create_directory(temp);
    torch::save(model, (temp / "model.pt").string());
    torch::save(optimizer, (temp / "optimizer.pt").string());
    torch::Tensor rng;
    {
      auto generator = at::detail::getDefaultCPUGenerator();
      std::lock_guard<std::mutex> lock(generator.mutex());
      rng = generator.get_state();
    }
    torch::save(rng, (temp / "rng.pt").string());
    for (const char* file : {"model.pt", "optimizer.pt", "rng.pt"}) fsyncFile(temp / file);
    writeTextAtomically(temp / "state.json", state.dump(2) + "\n");
    writeCheckpointManifest(temp, {"model.pt", "optimizer.pt", "rng.pt", "state.json"});
    fsyncDirectory(temp);
    const fs::path final = m_folder / name;
    fs::remove_all(final);
    fs::rename(temp, final);
    fsyncDirectory(m_folder);
    writeTextAtomically(m_folder / "latest", name + "\n");
  }

  /** Loads the newest checkpoint that verifies and loads; returns its state, or null. */
  Json loadNewest(TrainableLlama& model, torch::optim::AdamW& optimizer, JobContext& job) {
    std::vector<std::pair<int64_t, fs::path>> found;
    if (fs::is_directory(m_folder))
      for (const auto& entry : fs::directory_iterator(m_folder)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_directory() || !name.starts_with("step-")) continue;
        try {
          found.emplace_back(std::stoll(name.substr(5)), entry.path());
        } catch (const std::exception&) {
        }
      }
    std::sort(found.rbegin(), found.rend());
    for (const auto& [step, folder] : found) {
      if (!checkpointManifestValid(folder)) {
        job.warning("skipping checkpoint " + folder.string() + ": manifest does not match");
        continue;
      }
      try {
        Json state = Json::parse(readWholeFile(folder / "state.json"));
        torch::load(model, (folder / "model.pt").string());
        torch::load(optimizer, (folder / "optimizer.pt").string());
        torch::Tensor rng;
        torch::load(rng, (folder / "rng.pt").string());
        auto generator = at::detail::getDefaultCPUGenerator();
        std::lock_guard<std::mutex> lock(generator.mutex());
        generator.set_state(rng);
        return state;
      } catch (const std::exception& e) {
        job.warning("skipping checkpoint " + folder.string() + ": " + e.what());
      }
    }
    return nullptr;
  }

  /** Removes temp folders a crash left behind. */
  void removeStale() {
    if (!fs::is_directory(m_folder)) return;
    for (const auto& entry : fs::directory_iterator(m_folder))
      if (entry.path().filename().string().starts_with(".step-")) fs::remove_all(entry.path());
  }

 private:
  fs::path m_folder;
};

std::string fixed(double value, int digits) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(digits);
  out << value;
  return out.str();
}

void writeFolderDescription(const PretrainConfig& c, const PretrainSummary& s, int64_t vocab,
                            const std::string& tokenizerKind) {
  const Json training = {{"recipe", "pretrain"},
                         {"command", c.command},
                         {"corpus", c.corpus.string()},
                         {"corpus_hash", s.corpusHash},
                         {"train_tokens", s.trainTokens},
                         {"val_tokens", s.valTokens},
                         {"config", shapeJson(c, vocab)},
                         {"min_lr_ratio", c.minLrRatio},
                         {"weight_decay", c.weightDecay},
                         {"grad_clip", c.gradClip},
                         {"parameters", s.parameters},
                         {"steps", s.steps},
                         {"first_loss", s.firstLoss},
                         {"final_train_loss", s.finalTrainLoss},
                         {"final_val_loss", s.finalValLoss},
                         {"tokens_per_s", s.tokensPerSecond}};
  writeTextAtomically(c.output / "training.json", training.dump(2) + "\n");
  std::ostringstream md;
  md << "# Small Llama trained by `strata-cli pretrain`\n\n"
     << "A " << s.parameters << "-parameter LlamaForCausalLM (hidden " << c.dim << ", " << c.layers
     << " layers, " << c.heads << " heads, " << c.kvHeads << " key/value heads, MLP " << c.mlp
     << ", tied embeddings, vocabulary " << vocab << ", tokenizer: " << tokenizerKind
     << "), trained from scratch.\n\n"
     << "- Command: `" << c.command << "`\n"
     << "- Corpus: `" << c.corpus.string() << "` (" << s.corpusHash << "), " << s.trainTokens
     << " training tokens, " << s.valTokens << " held-out tokens (the last "
     << fixed(100 * c.valFraction, 0) << "%)\n"
     << "- Steps: " << s.steps << " × " << c.batch << " windows of " << c.seqLen
     << " tokens; AdamW (β 0.9/0.95, weight decay " << c.weightDecay << " on matrices), peak lr "
     << c.lr << ", " << c.warmup << " warm-up steps, cosine to " << c.minLrRatio
     << " × peak, gradient clip " << c.gradClip << ", seed " << c.seed << "\n"
     << "- Final train loss (mean of the last steps): " << fixed(s.finalTrainLoss, 4)
     << "; final validation loss: " << fixed(s.finalValLoss, 4) << " (nats/token)\n";
  writeTextAtomically(c.output / "README.md", md.str());
}

}  // namespace

PretrainSummary runPretrain(const PretrainConfig& requested, JobContext& job) {
  PretrainConfig c = requested;
  if (c.kvHeads == 0) c.kvHeads = c.heads;
  checkConfig(c);
  if (c.threads > 0) torch::set_num_threads(c.threads);
  fs::create_directories(c.output);
  const auto log = [&](const std::string& line) {
    if (c.onLog) c.onLog(line);
    else job.info(line);
  };

  PretrainSummary summary;
  summary.corpusHash = corpusHash(c.corpus, c.corpusOptions, &job);
  writeTokenizerFiles(c.tokenizer, c.output);
  const std::unique_ptr<Tokenizer> tokenizer = loadTokenizer(c.output);
  const int64_t vocab = tokenizer->vocabSize();
  const TokenSplit tokens = tokenise(c, *tokenizer, job);
  summary.trainTokens = static_cast<int64_t>(tokens.train.size());
  summary.valTokens = static_cast<int64_t>(tokens.val.size());

  torch::manual_seed(c.seed);
  TrainableLlamaConfig shape;
  shape.vocabSize = vocab;
  shape.dim = c.dim;
  shape.layers = c.layers;
  shape.heads = c.heads;
  shape.kvHeads = c.kvHeads;
  shape.mlp = c.mlp;
  shape.maxPositions = std::max<int64_t>(c.seqLen, 2048);
  TrainableLlama model(shape);
  model->initialiseWeights();
  for (const auto& p : model->parameters()) summary.parameters += p.numel();

  // AdamW with decoupled weight decay (Loshchilov & Hutter 2019) on matrices only.
  std::vector<torch::Tensor> decayed, plain;
  for (const auto& p : model->parameters()) (p.dim() >= 2 ? decayed : plain).push_back(p);
  const auto options = [&](double decay) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(c.lr).betas({0.9, 0.95}).eps(1e-8).weight_decay(decay));
  };
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.emplace_back(decayed, options(c.weightDecay));
  groups.emplace_back(plain, options(0.0));
  torch::optim::AdamW optimizer(groups, torch::optim::AdamWOptions(c.lr));

  // run.json as every recipe writes it (DESIGN.md "Files"): recipe, full config, code version.
  const Json runJson = {{"recipe", "pretrain"},
                        {"command", c.command},
                        {"code_version", build::kVersion},
                        {"corpus", c.corpus.string()},
                        {"corpus_hash", summary.corpusHash},
                        {"seed", c.seed},
                        {"config", shapeJson(c, vocab)},
                        {"min_lr_ratio", c.minLrRatio},
                        {"weight_decay", c.weightDecay},
                        {"grad_clip", c.gradClip},
                        {"val_fraction", c.valFraction},
                        {"checkpoint_every", c.checkpointEvery}};
  writeTextAtomically(c.output / "run.json", runJson.dump(2) + "\n");

  Checkpoints checkpoints(c.output);
  checkpoints.removeStale();
  const Json shapeNow = shapeJson(c, vocab);
  int64_t step = 0;
  if (c.resume) {
    const Json state = checkpoints.loadNewest(model, optimizer, job);
    if (state.is_null()) {
      log("no checkpoint to resume in " + (c.output / "checkpoints").string() + ": starting at step 0");
    } else {
      for (const auto& [key, value] : shapeNow.items())
        if (!state["config"].contains(key) || state["config"][key] != value)
          throw ConfigError(c.output / "checkpoints", key,
                            "differs from the checkpoint's (" + state["config"][key].dump() + ")");
      step = state.at("step").get<int64_t>();
      summary.firstLoss = state.value("first_loss", 0.0);
      log("resumed from step " + std::to_string(step));
    }
  }
  summary.startStep = step;
  const fs::path metricsPath = c.output / "metrics.jsonl";
  if (step > 0) truncateMetricsLog(metricsPath, step);
  else if (fs::exists(metricsPath)) fs::remove(metricsPath);
  std::ofstream metrics(metricsPath, std::ios::app);

  const auto stateAt = [&](int64_t s) {
    return Json{{"step", s},
                {"seed", c.seed},
                {"data_order", "splitmix64(seed, step, row)"},
                {"data_position", s * c.batch},
                {"first_loss", summary.firstLoss},
                {"config", shapeNow}};
  };
  const auto save = [&](int64_t s) { checkpoints.save(s, model, optimizer, stateAt(s)); };
  int64_t evaluatedAt = -1;
  const auto evaluate = [&](int64_t s) {
    if (s == evaluatedAt) return;
    evaluatedAt = s;
    summary.finalValLoss = validationLoss(c, model, tokens.val);
    metrics << Json{{"step", s}, {"val_loss", summary.finalValLoss}}.dump() << "\n" << std::flush;
    log("step " + std::to_string(s) + "/" + std::to_string(c.steps) + " val_loss " +
        fixed(summary.finalValLoss, 4));
  };

  std::vector<double> recent;
  double intervalLoss = 0;
  int64_t intervalSteps = 0;
  const auto runStart = std::chrono::steady_clock::now();
  auto intervalStart = runStart;
  int64_t tokensDone = 0;
  model->train();
  while (step < c.steps) {
    if (job.cancelled()) {
      if (step > summary.startStep) save(step);
      throw CancelledError();
    }
    const int64_t s = step + 1;
    const double lr = learningRate(c, s);
    for (auto& group : optimizer.param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    optimizer.zero_grad();
    torch::Tensor loss = model->loss(trainingBatch(c, tokens.train, s));
    loss.backward();
    torch::nn::utils::clip_grad_norm_(model->parameters(), c.gradClip);
    optimizer.step();
    step = s;

    const double value = loss.item<double>();
    if (!std::isfinite(value)) throw Error("pretrain: the loss became " + std::to_string(value) +
                                           " at step " + std::to_string(s) + " (try a lower --lr)");
    if (s == 1) summary.firstLoss = value;
    recent.push_back(value);
    if (recent.size() > 10) recent.erase(recent.begin());
    intervalLoss += value;
    ++intervalSteps;
    tokensDone += c.batch * c.seqLen;
    if (s == 1 || s % std::max<int64_t>(1, c.logEvery) == 0 || s == c.steps) {
      const auto now = std::chrono::steady_clock::now();
      const double seconds = std::chrono::duration<double>(now - intervalStart).count();
      const double perSecond =
          static_cast<double>(intervalSteps * c.batch * c.seqLen) / std::max(seconds, 1e-9);
      const double mean = intervalLoss / static_cast<double>(intervalSteps);
      metrics << Json{{"step", s}, {"loss", mean}, {"lr", lr}, {"tokens_per_s", perSecond}}.dump()
              << "\n" << std::flush;
      log("step " + std::to_string(s) + "/" + std::to_string(c.steps) + " loss " + fixed(mean, 4) +
          " lr " + fixed(lr * 1e3, 4) + "e-3 " + std::to_string(std::llround(perSecond)) +
          " tok/s");
      intervalLoss = 0;
      intervalSteps = 0;
      intervalStart = now;
    }
    job.progress(static_cast<double>(s) / static_cast<double>(c.steps), "pretrain");
    const bool atCheckpoint = c.checkpointEvery > 0 && s % c.checkpointEvery == 0;
    if ((c.evalEvery > 0 && s % c.evalEvery == 0) || atCheckpoint) evaluate(s);
    if (s == c.stopAfter && s < c.steps) {
      save(s);
      summary.steps = s;
      return summary;
    }
    if (atCheckpoint && s < c.steps) save(s);
  }

  summary.steps = step;
  summary.finished = true;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
  summary.tokensPerSecond = static_cast<double>(tokensDone) / std::max(summary.seconds, 1e-9);
  if (!recent.empty()) {
    double sum = 0;
    for (double v : recent) sum += v;
    summary.finalTrainLoss = sum / static_cast<double>(recent.size());
  }
  evaluate(step);
  save(step);

  // The Hugging Face folder: parameter names are already HF's (see trainable_llama.h).
  NamedTensors tensors;
  for (auto& [name, tensor] : model->huggingFaceTensors())
    tensors.emplace_back(name, tensor.to(torch::kCPU, torch::kFloat).contiguous());
  writeSafetensors(c.output / "model.safetensors", tensors);
  LlamaFolderConfig folder;
  folder.vocabSize = vocab;
  folder.dim = c.dim;
  folder.layers = c.layers;
  folder.heads = c.heads;
  folder.kvHeads = c.kvHeads;
  folder.mlp = c.mlp;
  folder.maxPositions = shape.maxPositions;
  folder.bos = tokenizer->bosId();
  folder.eos = tokenizer->eosId();
  writeTextAtomically(c.output / "config.json", llamaConfigJson(folder));
  writeFolderDescription(c, summary, vocab, tokenizer->kind());
  return summary;
}

}  // namespace strata
