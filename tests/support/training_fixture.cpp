// Shared training-test helpers (see training_fixture.h).

#include "support/training_fixture.h"

#include <torch/torch.h>

#include <fstream>
#include <random>

#include "common/job.h"
#include "engine/metrics_log.h"
#include "engine/recipe_catalog.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/safetensors_torch.h"

namespace strata::testing {
namespace fs = std::filesystem;

void writeToyCorpus(const fs::path& file) {
  const std::vector<std::string> subjects = {"the cat", "a dog", "the old fox", "my friend"};
  const std::vector<std::string> verbs = {"sees", "likes", "follows", "finds"};
  const std::vector<std::string> objects = {"the ball.", "a red hat.", "the small bird.",
                                            "its shadow."};
  std::mt19937 rng(7);
  std::ofstream out(file);
  for (int doc = 0; doc < 120; ++doc) {
    for (int s = 0; s < 4; ++s)
      out << subjects[rng() % 4] << " " << verbs[rng() % 4] << " " << objects[rng() % 4] << " ";
    out << "\n\n";
  }
}

engine::ResolvedConfig tinyPretrainConfig(const fs::path& corpus) {
  engine::ResolvedConfig c(engine::recipeSchema("pretrain"));
  c.set("corpus", corpus.string());
  c.set("steps", int64_t{30});
  c.set("batch", int64_t{8});
  c.set("seq_len", int64_t{32});
  c.set("lr", 1e-2);
  c.set("warmup", int64_t{3});
  c.set("dim", int64_t{32});
  c.set("layers", int64_t{2});
  c.set("heads", int64_t{4});
  c.set("kv_heads", int64_t{2});  // grouped key/value heads: exercises repeat_kv
  c.set("mlp", int64_t{64});
  c.set("seed", int64_t{3});
  c.set("log_every", int64_t{1});
  c.set("checkpoint_every", int64_t{10});
  c.set("eval_windows", int64_t{8});
  return c;
}

engine::TrainingSummary trainTiny(const engine::ResolvedConfig& config, const fs::path& runFolder,
                                  engine::TrainingControl control) {
  return trainRecipe("pretrain", config, runFolder, control);
}

engine::TrainingSummary trainRecipe(const std::string& recipe, const engine::ResolvedConfig& config,
                                    const fs::path& runFolder, engine::TrainingControl control) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::TrainingRequest request;
  request.recipe = recipe;
  request.config = config;
  request.runFolder = runFolder;
  request.command = "training test";
  request.control = control;
  return engine::startTraining(request, job);
}

engine::TrainingSummary resumeTiny(const fs::path& runFolder,
                                   const std::vector<std::string>& overrides) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  return engine::resumeTraining(runFolder, job, {}, {}, overrides);
}

namespace {
std::map<int64_t, double> logged(const fs::path& runFolder, const std::string& name) {
  std::map<int64_t, double> values;
  for (const engine::MetricsRecord& r : engine::readMetricsLog(runFolder / "metrics.jsonl"))
    if (r.has(name)) values[r.step] = r.value(name);
  return values;
}
}  // namespace

std::map<int64_t, double> loggedLosses(const fs::path& runFolder) {
  return logged(runFolder, "loss");
}
std::map<int64_t, double> loggedValLosses(const fs::path& runFolder) {
  return logged(runFolder, "val_loss");
}

namespace {
template <typename Compare>
void forEachTensorPair(const fs::path& a, const fs::path& b, Compare compare) {
  const auto fa = io::SafetensorsFile::open(a);
  const auto fb = io::SafetensorsFile::open(b);
  if (fa->tensors().size() != fb->tensors().size())
    throw std::runtime_error("tensor counts differ");
  for (const io::TensorEntry& entry : fa->tensors()) {
    const io::TensorEntry* other = fb->find(entry.name);
    if (!other) throw std::runtime_error(entry.name + " missing");
    compare(model::tensorView(fa, entry), model::tensorView(fb, *other));
  }
}
}  // namespace

bool sameWeights(const fs::path& a, const fs::path& b) {
  bool same = true;
  forEachTensorPair(a, b, [&](const torch::Tensor& x, const torch::Tensor& y) {
    same = same && torch::equal(x, y);
  });
  return same;
}

double largestRelativeDifference(const fs::path& a, const fs::path& b) {
  double worst = 0;
  forEachTensorPair(a, b, [&](const torch::Tensor& x, const torch::Tensor& y) {
    const auto xd = x.to(torch::kDouble), yd = y.to(torch::kDouble);
    worst = std::max(worst, (xd - yd).abs().max().item<double>() /
                                std::max(yd.abs().max().item<double>(), 1e-12));
  });
  return worst;
}

}  // namespace strata::testing
