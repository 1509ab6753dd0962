// The pretrain recipe's data and description (see pretrain_data.h).

#include "recipes/pretrain/pretrain_data.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "io/atomic_file.h"
#include "model/trainable/trainable_llama.h"
#include "recipes/pretrain/pretrain_files.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

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

double validationLoss(model::TrainableLlamaImpl& model, const std::vector<int32_t>& tokens,
                      int64_t seqLen, int64_t batch, int64_t maxWindows,
                      const torch::Device& device) {
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

void writePretrainDescription(const fs::path& runFolder, const engine::ResolvedConfig& c,
                              const std::map<std::string, std::string>& facts,
                              const std::string& tokenizerKind) {
  double firstLoss = 0, finalLoss = 0, finalVal = 0, throughput = 0;
  int64_t steps = 0, throughputCount = 0;
  const engine::RunMetrics metrics = engine::RunFolder(runFolder).metrics();
  for (const engine::MetricsRecord& r : metrics.records()) {
    if (r.has("loss")) {
      if (r.step == 1) firstLoss = r.value("loss");
      finalLoss = r.value("loss");
      throughput += r.value("tokens_per_s");
      ++throughputCount;
    }
    if (r.has("val_loss")) finalVal = r.value("val_loss");
    steps = std::max(steps, r.step);
  }
  const engine::RunManifest run = engine::readRunManifest(runFolder);
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
  io::writeTextAtomically(runFolder / "training.json", training.dump(2) + "\n");

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
  io::writeTextAtomically(runFolder / "README.md", md.str());
}

}  // namespace strata::recipes
