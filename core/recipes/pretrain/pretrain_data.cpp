// The pretrain recipe's data and description (see pretrain_data.h).

#include "recipes/pretrain/pretrain_data.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "common/split_mix.h"
#include "common/text_file.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "io/atomic_file.h"
#include "model/trainable/trainable_llama.h"
#include "recipes/pretrain/pretrain_files.h"
#include "tokenizer/tokenizer.h"

namespace strata {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<SettingSpec> corpusSettings(bool corpusRequired) {
  SettingSpec corpus = makeSetting("corpus", SettingType::Path, std::string(),
                                   "a text file, a folder of .txt files, or a .jsonl file", "data");
  corpus.required = corpusRequired;
  return {corpus,
          makeChoice("corpus_format", "auto", {"auto", "text", "folder", "jsonl"},
                     "how to read the corpus", "data"),
          makeChoice("split", "auto", {"auto", "paragraphs", "lines", "file", "wikitext"},
                     "how a text file divides into documents", "data"),
          makeSetting("jsonl_field", SettingType::Text, std::string("text"),
                      "the JSONL field holding the text", "data")};
}

uint64_t seededDraw(uint64_t seed, int64_t step, int64_t row, uint64_t n) {
  const uint64_t key = splitMix64(seed) ^ splitMix64(static_cast<uint64_t>(step) * 0x10001ULL +
                                                     static_cast<uint64_t>(row));
  return splitMix64(key) % n;
}

std::unique_ptr<Tokenizer> setUpRunTokenizer(const std::string& source, const fs::path& runFolder,
                                             int rank) {
  const fs::path folder =
      rank == 0 ? runFolder
                : fs::temp_directory_path() / ("strata-tokenizer-" + std::to_string(::getpid()));
  fs::create_directories(folder);
  writeTokenizerFiles(source, folder);
  std::unique_ptr<Tokenizer> tokenizer = loadTokenizer(folder);
  if (rank != 0) fs::remove_all(folder);
  return tokenizer;
}

CorpusOptions pretrainCorpusOptions(const ResolvedConfig& config) {
  CorpusOptions options;
  const auto format = parseCorpusFormat(config.text("corpus_format"));
  if (!format) throw ConfigError("run configuration", "corpus_format", "is not a corpus format");
  const auto split = parseDocumentSplit(config.text("split"));
  if (!split) throw ConfigError("run configuration", "split", "is not a document split");
  options.format = *format;
  options.split = *split;
  options.jsonlField = config.text("jsonl_field");
  return options;
}

TokenSplit tokeniseCorpus(const fs::path& corpus, const CorpusOptions& options,
                          const Tokenizer& tokenizer, int64_t seqLen, double valFraction,
                          JobContext& job) {
  const std::vector<CorpusDocument> documents = readCorpus(corpus, options, &job);
  const auto eos = tokenizer.eosId();
  if (!eos) throw FormatError(corpus, "the tokenizer has no EOS token to put between documents");
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
      seqLen + 1, static_cast<int64_t>(std::llround(valFraction * static_cast<double>(total))));
  if (total - valCount < seqLen + 1)
    throw FormatError(corpus, "has " + std::to_string(total) +
                                  " tokens: too few for a training "
                                  "and a validation window of seq_len " +
                                  std::to_string(seqLen) + " + 1");
  TokenSplit split;
  split.train.assign(all.begin(), all.end() - valCount);
  split.val.assign(all.end() - valCount, all.end());
  return split;
}

torch::Tensor trainingWindows(const std::vector<int32_t>& tokens, int64_t seqLen, uint64_t seed,
                              int64_t step, int64_t firstRow, int64_t rows) {
  const int64_t width = seqLen + 1;
  const auto starts = static_cast<uint64_t>(static_cast<int64_t>(tokens.size()) - width + 1);
  torch::Tensor batch = torch::empty({rows, width}, torch::kInt64);
  auto acc = batch.accessor<int64_t, 2>();
  for (int64_t r = 0; r < rows; ++r) {
    const auto start = static_cast<int64_t>(seededDraw(seed, step, firstRow + r, starts));
    for (int64_t t = 0; t < width; ++t) acc[r][t] = tokens[static_cast<size_t>(start + t)];
  }
  return batch;
}

torch::Tensor heldOutWindows(const std::vector<int32_t>& tokens, int64_t firstWindow, int64_t rows,
                             int64_t width, int64_t stride) {
  torch::Tensor block = torch::empty({rows, width}, torch::kInt64);
  auto acc = block.accessor<int64_t, 2>();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t t = 0; t < width; ++t)
      acc[r][t] = tokens[static_cast<size_t>((firstWindow + r) * stride + t)];
  return block;
}

double validationLoss(TrainableLlamaImpl& model, const std::vector<int32_t>& tokens, int64_t seqLen,
                      int64_t batch, int64_t maxWindows, const torch::Device& device) {
  torch::NoGradGuard noGrad;
  const int64_t width = seqLen + 1;
  const int64_t windows =
      std::min<int64_t>(maxWindows, (static_cast<int64_t>(tokens.size()) - 1) / seqLen);
  double sum = 0;
  for (int64_t first = 0; first < windows; first += batch) {
    const int64_t rows = std::min(batch, windows - first);
    const torch::Tensor block = heldOutWindows(tokens, first, rows, width, seqLen);
    sum += model.loss(block.to(device)).item<double>() * static_cast<double>(rows);
  }
  return sum / static_cast<double>(std::max<int64_t>(1, windows));
}

void writePretrainDescription(const fs::path& runFolder, const ResolvedConfig& c,
                              const std::map<std::string, std::string>& facts,
                              const std::string& tokenizerKind) {
  double firstLoss = 0, finalLoss = 0, finalVal = 0, throughput = 0;
  int64_t steps = 0, throughputCount = 0;
  const RunMetrics metrics = RunFolder(runFolder).metrics();
  for (const MetricsRecord& r : metrics.records()) {
    if (r.has("loss")) {
      if (r.step == 1) firstLoss = r.value("loss");
      finalLoss = r.value("loss");
      throughput += r.value("tokens_per_s");
      ++throughputCount;
    }
    if (r.has("val_loss")) finalVal = r.value("val_loss");
    steps = std::max(steps, r.step);
  }
  const RunManifest run = readRunManifest(runFolder);
  Json training = {{"recipe", "pretrain"},
                   {"command", run.command},
                   {"corpus", c.text("corpus")},
                   {"config", Json::parse(run.config())},
                   {"steps", steps},
                   {"first_loss", firstLoss},
                   {"final_train_loss", finalLoss},
                   {"final_val_loss", finalVal},
                   {"tokens_per_s", throughputCount ? throughput / throughputCount : 0.0}};
  for (const auto& [key, value] : facts) training[key] = value;
  writeTextAtomically(runFolder / "training.json", training.dump(2) + "\n");

  std::ostringstream md;
  md << "# Small Llama trained by Strata's pretrain recipe\n\n"
     << "A " << facts.at("parameters") << "-parameter LlamaForCausalLM (hidden " << c.integer("dim")
     << ", " << c.integer("layers") << " layers, " << c.integer("heads") << " heads, MLP "
     << c.integer("mlp") << ", tied embeddings, vocabulary " << facts.at("vocab_size")
     << ", tokenizer: " << tokenizerKind << "), trained from scratch.\n\n"
     << "- Command: `" << run.command << "`\n"
     << "- Corpus: `" << c.text("corpus") << "` (" << facts.at("corpus_hash") << "), "
     << facts.at("train_tokens") << " training tokens, " << facts.at("val_tokens")
     << " held-out tokens (the last " << formatFixed(100 * c.real("val_fraction"), 0) << "%)\n"
     << "- Steps: " << steps << " × " << c.integer("batch") * c.integer("grad_accum")
     << " windows of " << c.integer("seq_len") << " tokens; AdamW (β " << c.real("beta1") << "/"
     << c.real("beta2") << ", weight decay " << c.real("weight_decay") << " on matrices), peak lr "
     << c.real("lr") << ", " << c.integer("warmup") << " warm-up steps, cosine to "
     << c.real("min_lr_ratio") << " × peak, gradient clip " << c.real("grad_clip") << ", seed "
     << c.integer("seed") << "\n"
     << "- Final train loss (mean of the last logged interval): " << formatFixed(finalLoss, 4)
     << "; final validation loss: " << formatFixed(finalVal, 4) << " (nats/token)\n";
  writeTextAtomically(runFolder / "README.md", md.str());
}

}  // namespace strata
