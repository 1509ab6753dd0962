// Writing and reading training checkpoints (see training_checkpoint.h).

#include "engine/training_checkpoint.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/job.h"
#include "common/text_file.h"
#include "engine/generator_states.h"
#include "io/atomic_file.h"

namespace strata::engine {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Json countersJson(const LoopCounters& c) {
  Json metrics = Json::object();
  for (const auto& [name, value] : c.intervalMetrics) metrics[name] = value;
  return {{"step", c.step},
          {"best_val_loss", std::isfinite(c.bestValLoss) ? Json(c.bestValLoss) : Json(nullptr)},
          {"best_step", c.bestStep},
          {"interval",
           {{"loss", c.intervalLoss},
            {"steps", c.intervalSteps},
            {"tokens", c.intervalTokens},
            {"seconds", c.intervalSeconds},
            {"metrics", metrics}}},
          {"train_seconds", c.trainSeconds}};
}

/** Serialised in memory, then written by our own writer: torch's file writer turns a full disk
 *  into an exception thrown from a destructor (std::terminate), ours into an IoError. */
template <typename Value>
std::string serialised(const Value& value) {
  std::ostringstream out;
  torch::save(value, out);
  return std::move(out).str();
}

LoopCounters countersFrom(const Json& json) {
  LoopCounters c;
  c.step = json.at("step").get<int64_t>();
  const Json& best = json.at("best_val_loss");
  c.bestValLoss = best.is_null() ? std::numeric_limits<double>::infinity() : best.get<double>();
  c.bestStep = json.at("best_step").get<int64_t>();
  const Json& interval = json.at("interval");
  c.intervalLoss = interval.at("loss").get<double>();
  c.intervalSteps = interval.at("steps").get<int64_t>();
  c.intervalTokens = interval.at("tokens").get<int64_t>();
  if (interval.contains("seconds")) {
    c.intervalSeconds = interval.at("seconds").get<double>();
  } else {
    // Written before the loop counted its seconds: the tokens' time is unknown, and counting
    // them over the resumed part alone would inflate the first tokens_per_s.
    c.intervalTokens = 0;
  }
  for (const auto& [name, value] : interval.at("metrics").items())
    c.intervalMetrics[name] = value.get<double>();
  c.trainSeconds = json.value("train_seconds", 0.0);
  return c;
}

}  // namespace

void saveTrainingCheckpoint(const CheckpointStore& store, const LoopCounters& counters,
                            Recipe& recipe, torch::optim::Optimizer& optimizer, at::Device device,
                            bool isBest, int64_t keepLast) {
  const fs::path temp = store.begin(counters.step);
  std::vector<std::string> files = {"model.pt", "optimizer.pt", "state.json"};
  try {
    {
      torch::serialize::OutputArchive archive;
      recipe.model().save(archive);
      std::ostringstream out;
      archive.save_to(out);
      io::writeTextAtomically(temp / "model.pt", std::move(out).str());
    }
    io::writeTextAtomically(temp / "optimizer.pt", serialised(optimizer));
    for (const std::string& state : saveGeneratorStates(temp, device)) files.push_back(state);
    io::writeTextAtomically(temp / "state.json", countersJson(counters).dump(2) + "\n");
    for (const std::string& extra : recipe.saveExtraState(temp)) files.push_back(extra);
  } catch (...) {  // a full disk: leave no half-written temporary behind
    std::error_code ec;
    fs::remove_all(temp, ec);
    throw;
  }
  store.commit(temp, counters.step, files, isBest, keepLast);
}

std::optional<LoopCounters> loadNewestTrainingCheckpoint(const CheckpointStore& store,
                                                         Recipe& recipe,
                                                         torch::optim::Optimizer& optimizer,
                                                         at::Device device, JobContext& job) {
  for (const auto& [step, folder] : store.checkpoints()) {
    if (!CheckpointStore::verify(folder)) {
      job.warning("skipping checkpoint " + folder.string() +
                  ": its files do not match manifest.json (damaged or incomplete)");
      continue;
    }
    try {
      LoopCounters counters = countersFrom(Json::parse(readWholeFile(folder / "state.json")));
      torch::serialize::InputArchive archive;
      archive.load_from((folder / "model.pt").string());
      recipe.model().load(archive);
      torch::load(optimizer, (folder / "optimizer.pt").string());
      restoreGeneratorStates(folder, device, job);
      recipe.restoreExtraState(folder);
      return counters;
    } catch (const std::exception& e) {
      job.warning("skipping checkpoint " + folder.string() + ": " + e.what());
    }
  }
  return std::nullopt;
}

}  // namespace strata::engine
