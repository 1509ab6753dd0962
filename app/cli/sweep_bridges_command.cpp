// `strata-cli sweep-bridges`: the bridgeability study — an equal-budget bridge at every layer
// of a range, then Spearman ρ between the geometry score and −validation loss. It runs as a
// study (studies/comparison_studies.h), as compare-dlm and compare-align do.

#include <cstdio>
#include <iostream>
#include <string>
#include <tuple>
#include <utility>

#include "command_line.h"
#include "commands.h"
#include "common/error.h"
#include "corpus_arguments.h"
#include "device_arguments.h"
#include "recipes/bridge/bridge_sweep.h"
#include "studies/comparison_studies.h"
#include "terminal_progress.h"
#include "training_arguments.h"

namespace strata::cli {

int runSweepBridges(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  CommandLine cli(
      "sweep-bridges",
      "Train an equal-budget DiHAL bridge at every layer of --layers (each a resumable\n"
      "run in OUT/runs/layer-<l>-s<seed>), then report each layer's best validation\n"
      "loss and the Spearman ρ between the geometry score S(l) and −loss, with a\n"
      "permutation p-value. Layer scores come from --store, or from a store captured\n"
      "and scored into OUT/acts.h5. Running it again continues an interrupted sweep;\n"
      "OUT/study.json and study.md record it as a study.");
  cli.option("model", "DIR", "the source model (Hugging Face folder or .gguf file)")
      .option("corpus", "PATH", "training corpus of the bridges")
      .option("layers", "A..B", "the layers to bridge")
      .option("steps", "N", "optimizer steps of every bridge", "300")
      .option("out", "DIR", "the sweep folder", "sweep")
      .option("store", "FILE", "an activation store with scores (default: capture one)")
      .option("tokens", "N", "tokens to capture when there is no --store", "8192")
      .option("permutations", "N", "permutations for the p-value", "10000")
      .option("set", "KEY=VALUE", "any other bridge setting (repeatable), e.g. width=64")
      .flag("no-baseline", "skip the layer-0 baseline (unconditional embedding-space diffusion)");
  addDeviceOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  recipes::BridgeSweepConfig config;
  config.model = cli.value("model");
  config.corpus = cli.value("corpus");
  config.folder = cli.value("out");
  if (cli.has("store")) config.store = cli.value("store");
  std::tie(config.firstLayer, config.lastLayer) = cli.layerRange("layers");
  config.steps = cli.integer("steps");
  config.captureTokens = cli.integer("tokens");
  config.permutations = cli.integer("permutations");
  config.settings = sets;
  config.device = deviceFrom(cli);
  config.layerZeroBaseline = !cli.isSet("no-baseline");
  // Refused as typed before anything is captured or trained (the sweep's own checks come later,
  // in the words of its settings).
  try {
    recipes::checkBridgeSweepLayers(config);
  } catch (const ConfigError&) {
    throw UsageError("--layers must be a range a..b of at least two layers (0 ≤ a < b)");
  }
  for (const auto& [option, value] : {std::pair<const char*, int64_t>{"steps", config.steps},
                                      {"tokens", config.captureTokens},
                                      {"permutations", config.permutations}})
    if (value < 1)
      throw UsageError(std::string("--") + option + " must be at least 1 (got " +
                       std::to_string(value) + ")");
  recipes::BridgeSweepResult result;
  if (runWithTerminalProgress([&](JobContext& job) {
        result = studies::runBridgeSweep(config, job);
      }) == JobOutcome::Cancelled) {
    std::cerr << "sweep stopped: run the same command again to continue\n";
    return 130;
  }
  std::cout << "layer   score S(l)   best val loss   val cosine   CE gap\n";
  char line[200];
  for (const auto& row : result.rows) {
    std::snprintf(line, sizeof line, "%5lld %12.4f %15.5f %12.4f %8.4f%s\n",
                  static_cast<long long>(row.layer), row.score, row.valLoss, row.valCosine,
                  row.ceGap, row.layer == result.bestByScore ? "   <- l* (score)" : "");
    std::cout << line;
  }
  for (const auto& row : result.baselines) {
    std::snprintf(line, sizeof line,
                  "%5lld %12s %15.5f %12.4f %8.4f   (baseline, not in rho: embedding diffusion, "
                  "rounding accuracy %.4f)\n",
                  static_cast<long long>(row.layer), "-", row.valLoss, row.valCosine, row.ceGap,
                  row.roundingAccuracy);
    std::cout << line;
  }
  if (!result.baselines.empty())
    std::cout << "The baseline generates h_0 from noise with no condition (Diffusion-LM style); "
                 "its loss is on h_0\nand unconditional: a reference, not a number to rank with "
                 "the bridges' conditional losses.\n";
  std::snprintf(line, sizeof line,
                "Spearman rho(score, -val loss) = %.3f, permutation p = %.4f (%zu layers); "
                "lowest loss at layer %lld, lowest score at layer %lld\n",
                result.rho, result.pValue, result.rows.size(),
                static_cast<long long>(result.bestByLoss),
                static_cast<long long>(result.worstByScore));
  std::cout << line;
  // What S is up against: each proxy alone, depth alone, and S once depth is accounted for.
  std::cout << "\n" << recipes::sweepStatisticsMarkdown(result) << "\n";
  std::cout << "Wrote " << (config.folder / "sweep.json").string() << ", sweep.csv and sweep.md\n";
  return 0;
}

}  // namespace strata::cli
