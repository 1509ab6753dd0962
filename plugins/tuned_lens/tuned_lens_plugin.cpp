// The tuned_lens recipe plugin: the C ABI of core/plugin/strata_plugin.h around the trainer of
// lens_training.h (docs/plugins.md, "tuned_lens"). Strata calls run() on a worker thread with
// the settings and the run folder; this file owns only the loop's order of events: metrics,
// evaluation, checkpoints, progress and cancellation.

#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <string>

#include "../common/plugin_options.h"
#include "lens_files.h"
#include "lens_memory.h"
#include "lens_training.h"
#include "plugin/strata_plugin.h"

namespace {

using namespace tuned_lens;

void report(const StrataRecipeHost* host, int64_t step, const std::string& name, double value) {
  host->metric(host->context, step, name.c_str(), value);
}

void reportHeldOut(const StrataRecipeHost* host, int64_t step, const LensData& data,
                   const HeldOutScores& scores) {
  double mean = 0;
  for (size_t k = 0; k < data.layers.size(); ++k) {
    report(host, step, "val_r2_l" + std::to_string(data.layers[k]), scores.r2[k]);
    mean += scores.r2[k] / static_cast<double>(data.layers.size());
  }
  report(host, step, "val_r2_mean", mean);
  report(host, step, "val_loss", scores.meanSquaredError);
}

int runTunedLens(const char* settingsText, const char* runFolder, const StrataRecipeHost* host,
                 char* error, size_t errorSize) {
  try {
    const LensSettings settings = parseSettings(settingsText);
    const std::filesystem::path folder(runFolder);
    const std::string checkpoint = (folder / "lens_checkpoint.bin").string();
    host->progress(host->context, -1, "reading the store");
    LensData data = readLensShape(settings);
    // Planned before any layer is read: a run that cannot fit is refused, not killed later.
    const LensMemory memory = lensMemory(data, settings);
    if (host->plan_memory(host->context, memory.total(), memory.parts().c_str(),
                          lensMemoryAdvice().c_str(), error, errorSize) != 0)
      return 1;
    loadLensLayers(settings, data);
    LensState state = initialState(data, settings);
    if (std::filesystem::exists(checkpoint)) loadCheckpoint(checkpoint, data, state);
    int64_t saved = state.step;

    while (state.step < settings.steps) {
      if (host->cancelled(host->context)) {  // keep every finished step for the resume
        if (state.step > saved) saveCheckpoint(checkpoint, data, state);
        return 0;
      }
      const int64_t step = state.step + 1;
      const double lr = learningRate(settings, step);
      const double loss = trainStep(data, state, settings, lr);
      report(host, step, "loss", loss);
      report(host, step, "lr", lr);
      if (!data.heldOut.empty() &&
          ((settings.evalEvery > 0 && step % settings.evalEvery == 0) || step == settings.steps))
        reportHeldOut(host, step, data, evaluateHeldOut(data, state));
      if ((settings.checkpointEvery > 0 && step % settings.checkpointEvery == 0) ||
          step == settings.steps) {
        saveCheckpoint(checkpoint, data, state);
        saved = step;
      }
      host->progress(
          host->context, static_cast<double>(step) / static_cast<double>(settings.steps),
          ("step " + std::to_string(step) + "/" + std::to_string(settings.steps)).c_str());
    }
    writeTranslators((folder / "translators.safetensors").string(), data, state, settings,
                     evaluateHeldOut(data, state));
    return 0;
  } catch (const std::exception& e) {
    strata_plugins::reportError(error, errorSize, e.what());
    return 1;
  } catch (...) {
    strata_plugins::reportError(error, errorSize, "unknown error");
    return 1;
  }
}

const StrataOption kSettings[] = {
    {"store", "", "the activation store (.h5 from strata-cli capture); required"},
    {"layers", "all", "layers to translate: all (0..L-1) or a list such as 0,4,8-11"},
    {"steps", "1000", "optimizer steps (Adam), every layer trained on the same batches"},
    {"lr", "0.001", "Adam's learning rate (inputs and target are normalised to unit RMS)"},
    {"batch", "256", "tokens per mini-batch"},
    {"held_out", "0.1", "share of tokens held out (whole documents) for R²"},
    {"seed", "0", "seed of the split and the batches"},
    {"eval_every", "100", "held-out R² every n steps (and at the last); 0: at the last only"},
    {"checkpoint_every", "100", "checkpoint every n steps (and when stopped); 0: at the last only"},
    {"schedule", "cosine", "learning rate: cosine (decays to 0) or constant"},
    {"threads", "0", "threads (layers train in parallel); 0: one per core"},
};

const StrataRecipe kRecipes[] = {
    {"tuned_lens",
     "tuned lens: per-layer affine translators h_l -> A_l h_l + b_l predicting the last layer's "
     "hidden states (least squares, Adam), with held-out R²",
     kSettings, static_cast<int32_t>(sizeof kSettings / sizeof kSettings[0]), runTunedLens}};

const StrataPlugin kPlugin = {STRATA_PLUGIN_ABI_VERSION,
                              "tuned_lens",
                              "1.0",
                              "tuned-lens translators between each layer and the last",
                              nullptr,
                              0,
                              kRecipes,
                              1};

}  // namespace

extern "C" STRATA_PLUGIN_EXPORT const StrataPlugin* strata_plugin_entry(void) { return &kPlugin; }
