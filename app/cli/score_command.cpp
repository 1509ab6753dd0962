// `strata-cli score`: the geometry proxies of every layer, the DiHAL score and l*. Reads an
// activation store (--store), or captures --model over --corpus: into a store first with --out,
// else scoring each layer as it is captured, with nothing written.

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "command_line.h"
#include "commands.h"
#include "common/error.h"
#include "corpus_arguments.h"
#include "device_arguments.h"
#include "engine/cached_geometry.h"
#include "engine/capture.h"
#include "engine/capture_scoring.h"
#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "geometry/store_scoring.h"
#include "io/atomic_file.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/default_model.h"
#include "plugin/plugin_metric.h"
#include "plugin_arguments.h"
#include "score_output.h"
#include "terminal_progress.h"

namespace strata::cli {
namespace {

geometry::LayerRange parseRange(const CommandLine& cli, const std::string& name) {
  const auto [first, last] = cli.layerRange(name);
  return {first, last};
}

/** --weights: w_c,w_m,w_k, the weights of the three proxy series. */
geometry::ScoreWeights parseWeights(const std::string& text) {
  geometry::ScoreWeights w;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (w.size() == geometry::kBuiltInSeriesCount) break;
    try {
      size_t used = 0;
      w.push_back(std::stod(item, &used));
      if (used != item.size()) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError("--weights must be three numbers w_c,w_m,w_k, got '" + text + "'");
    }
  }
  if (w.size() != geometry::kBuiltInSeriesCount || in.rdbuf()->in_avail() > 0)
    throw UsageError("--weights must be three numbers w_c,w_m,w_k, got '" + text + "'");
  return w;
}

/** A refused proxy option in the words of the command line: "--bootstrap: must be 0 or more
 *  (got -1)", not the field's name in ProxyOptions. */
UsageError refusedOption(const ConfigError& e) {
  static const std::map<std::string, std::string> kOptionOfField = {
      {"ridgeFactor", "ridge"},
      {"spectrumSize", "spectrum"},
      {"bootstrapResamples", "bootstrap"},
      {"jackknifeBlocks", "jackknife-blocks"},
      {"normalisation", "normalise"}};
  const auto named = kOptionOfField.find(e.field());
  const std::string option = named == kOptionOfField.end() ? e.field() : named->second;
  std::string problem = e.what();
  const std::string where = "field '" + e.field() + "': ";
  if (const size_t at = problem.find(where); at != std::string::npos)
    problem = problem.substr(at + where.size());
  return UsageError("--" + option + ": " + problem);
}

geometry::ProxyOptions proxyOptionsFrom(const CommandLine& cli) {
  geometry::ProxyOptions o;
  o.anchors = cli.integer("anchors");
  o.neighbours = cli.integer("neighbours");
  o.directions = cli.integer("directions");
  o.ridgeFactor = cli.number("ridge");
  o.spectrumSize = cli.integer("spectrum");
  o.bootstrapResamples = cli.integer("bootstrap");
  o.confidence = cli.number("confidence");
  o.seed = static_cast<uint64_t>(cli.integer("seed"));
  try {
    o.monotonicity = geometry::parseMonotonicityMode(cli.value("monotonicity"));
    o.normalisation = geometry::parseNormalisation(cli.value("normalise"));
    o.jackknifeBlocks = cli.integer("jackknife-blocks");
    o.validate();
  } catch (const ConfigError& e) {
    throw refusedOption(e);
  }
  return o;
}

/** The capture behind the --model form of the command: --model over --corpus. */
engine::CaptureConfig captureConfigFrom(const CommandLine& cli) {
  engine::CaptureConfig config;
  config.modelFolder = cli.value("model");
  config.corpus = cli.value("corpus");
  config.sampling.tokenBudget = cli.integer("tokens");
  config.sampling.sequenceLength = cli.integer("seq-len");
  checkSamplingOptions(config.sampling);
  config.corpusOptions = corpusOptionsFrom(cli);
  config.device = cli.value("device");
  config.computeDType = computeDTypeFrom(cli);
  return config;
}

/** Captures --model over --corpus into `store` (--model with --out). */
void captureFirst(const CommandLine& cli, const std::filesystem::path& store) {
  engine::CaptureConfig config = captureConfigFrom(cli);
  config.output = store;
  config.overwrite = true;
  std::cerr << "capturing " << config.modelFolder.string() << " over " << config.corpus.string()
            << " into " << store.string() << "\n";
  if (runWithTerminalProgress([&](JobContext& job) { strata::engine::runCapture(config, job); }) ==
      JobOutcome::Cancelled)
    throw CancelledError();
}

/** --default: the report of the default model's cached store (engine/cached_geometry.h); returns
 *  the store's path. */
std::filesystem::path scoreDefault(const std::string& device, engine::ComputeDType computeDType,
                                   const geometry::ProxyOptions& options,
                                   const std::vector<geometry::LayerMetric*>& metrics,
                                   geometry::GeometryReport& report) {
  engine::CachedGeometryRequest request = engine::defaultGeometryRequest();
  request.options = options;
  request.device = device;
  request.computeDType = computeDType;
  const io::DefaultModel model = io::defaultModel();
  if (!model.fallbackReason.empty()) std::cerr << "note: " << model.fallbackReason << "\n";
  std::cerr << "default model: " << (model.name.empty() ? request.modelFolder.string() : model.name)
            << " (" << request.modelFolder.string() << ")\n";
  engine::CachedGeometry result;
  const auto work = [&](JobContext& job) {
    result = engine::cachedGeometry(request, job, metrics);
  };
  if (runWithTerminalProgress(work) == JobOutcome::Cancelled) throw CancelledError();
  std::cerr << (result.captured ? "captured " : "cached store ") << result.store.string()
            << (result.scored ? " (scored now)" : " (scores read from it)") << "\n";
  report = std::move(result.report);
  return result.store;
}

/**
 * --weights, --plugin-weights and --candidates as one choice of S, in the order of the scan's
 * series (the proxies, then every loaded plugin metric, which `metrics` receives).
 */
geometry::ScoreChoice scoreChoiceFrom(
    const CommandLine& cli, std::vector<std::unique_ptr<geometry::LayerMetric>>& metrics) {
  geometry::ScoreChoice choice;
  choice.weights = parseWeights(cli.value("weights"));
  // Plugin metrics: every loaded one is computed (weight 0 unless given), failures are named.
  std::map<std::string, double> pluginWeights;
  if (!cli.isSet("no-plugins")) {
    const plugin::PluginSet& plugins = pluginsReportingFailures();
    pluginWeights = parsePluginWeights(cli.optionalValue("plugin-weights").value_or(""), plugins);
    try {
      metrics = plugin::makePluginMetrics(
          plugins, parsePluginOptions(cli.optionalValue("plugin-options").value_or("")));
    } catch (const ConfigError& e) {
      throw UsageError(e.what());
    }
  } else if (cli.has("plugin-weights") || cli.has("plugin-options")) {
    throw UsageError("--plugin-weights and --plugin-options need plugins (drop --no-plugins)");
  }
  std::vector<geometry::MetricInfo> infos;
  for (const auto& metric : metrics) infos.push_back(metric->info());
  for (double w : orderedWeights(pluginWeights, infos)) choice.weights.push_back(w);
  if (cli.has("candidates")) choice.candidates = parseRange(cli, "candidates");
  return choice;
}

/** --layers and --candidates checked against the model's hidden states before it is sampled,
 *  loaded and captured (minutes for a large one): a usage error naming the option. */
void checkLayersOfModel(const std::filesystem::path& model, const std::vector<int64_t>& layers,
                        const geometry::ScoreChoice& choice) {
  const int64_t numLayers = io::modelLayerCount(model);
  try {
    geometry::checkLayerChoice(layers, choice, numLayers, model);
  } catch (const ConfigError& e) {
    throw UsageError("--" + e.field() + ": " + e.what());
  }
}

/** The table (or --json), and --csv. */
void printScored(const CommandLine& cli, const geometry::ScoredGeometry& scored) {
  if (cli.has("csv")) {
    const std::string target = cli.value("csv");
    const std::string csv = formatScoreCsv(scored);
    if (target == "-")
      std::cout << csv;
    else
      io::writeFileAtomically(target,
                              [&](int fd) { io::writeAll(fd, csv.data(), csv.size(), target); });
  }
  if (cli.isSet("json"))
    std::cout << formatScoreJson(scored);
  else if (cli.optionalValue("csv").value_or("") != "-")
    std::cout << formatScoreTable(scored);
}

}  // namespace

int runScore(const Arguments& args) {
  CommandLine cli(
      "score",
      "Compute the geometry proxies of every layer of an activation store (local\n"
      "curvature m_curv, global monotonicity m_mono, effective rank k_eff, each with a\n"
      "bootstrap interval), the selection score S(l) and l*. The results are written\n"
      "into the store (/geometry) unless --no-write. Give --store, or --model and\n"
      "--corpus to capture (into --out, then scored from it; without --out each layer\n"
      "is scored as it is captured and nothing is written), or --default.");
  cli.option("store", "FILE", "an activation store (.h5) written by `capture`")
      .option("model", "DIR", "a Hugging Face model folder or .gguf file to capture first")
      .option("corpus", "PATH", "the corpus to capture (with --model)")
      .flag("default",
            "the built-in default model (SmolLM2-135M-Instruct, or $STRATA_DEFAULT_MODEL) over "
            "the default corpus (argparse.py, or "
            "$STRATA_DEFAULT_CORPUS), 4096 tokens of 128: captured and scored once, then read "
            "from the store cached in the user's data folder (as the workbench's Open Default "
            "Model)")
      .option("out", "FILE",
              "write the store captured with --model here (replaced if present), then score "
              "it; without --out nothing is written")
      .option("tokens", "N", "tokens to capture (with --model)", "8192")
      .option("seq-len", "T", "tokens per sequence (with --model)", "128")
      .option("device", "DEV", "cpu, cuda or auto", "auto")
      .option("anchors", "M", "anchors for m_curv", "1024")
      .option("neighbours", "K", "nearest neighbours per anchor", "32")
      .option("directions", "M", "random difference directions for m_mono", "1024")
      .option("ridge", "R", "ε = R·tr(Σ)/d in m_mono", "0.001")
      .option("monotonicity", "MODE", "rayleigh or min-eig", "rayleigh")
      .option("normalise", "MODE",
              "standardise (unit variance per dimension), trace (tr Σ = d) or none (raw "
              "scale); docs/geometry.md",
              "standardise")
      .option("spectrum", "S", "leading covariance eigenvalues kept", "64")
      .option("bootstrap", "B", "bootstrap resamples for the intervals (0 = none)", "20")
      .option("confidence", "C", "confidence of the intervals", "0.95")
      .option("jackknife-blocks", "G",
              "token blocks of the jackknife behind BCa intervals "
              "(0 = percentile intervals)",
              "10")
      .option("seed", "S", "seed of anchors, directions and resamples", "0")
      .option("layers", "A..B", "score only these layers (default: every stored layer)")
      .option("candidates", "A..B", "candidate layers for l* (default 1..L-1)")
      .option("weights", "WC,WM,WK", "weights of m_curv, m_mono, k_eff in S", "1,1,1")
      .option("plugin-weights", "NAME=W,...", "weights of plugin metrics in S (default 0 each)")
      .option("plugin-options", "NAME:K=V;K=V,...",
              "options of plugin metrics (`strata-cli plugins`)")
      .flag("no-plugins", "compute no plugin metrics")
      .option("csv", "FILE", "also write the table as CSV (- for stdout)")
      .flag("json", "print the report as JSON instead of a table")
      .flag("no-write", "do not write the results into the store");
  addCorpusOptions(cli);
  addComputeDTypeOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const bool fromDefault = cli.isSet("default");
  const bool fromStore = cli.has("store");
  if (fromDefault) {
    for (const char* other : {"store", "model", "corpus", "out", "layers"})
      if (cli.has(other))
        throw UsageError(std::string("--default chooses the store itself: drop --") + other);
    if (cli.isSet("no-write"))
      throw UsageError("--default keeps its scores in its store: drop --no-write");
  } else if (fromStore == cli.has("model")) {
    throw UsageError("give either --store or --model (with --corpus), or --default");
  }
  if (!fromDefault && !fromStore && !cli.has("corpus")) throw UsageError("--model needs --corpus");
  if (fromStore && cli.value("compute-dtype") != "auto")
    throw UsageError("--compute-dtype sets how --model or --default captures; a store's is fixed");
  const geometry::ProxyOptions options = proxyOptionsFrom(cli);
  std::vector<std::unique_ptr<geometry::LayerMetric>> pluginMetrics;
  const geometry::ScoreChoice choice = scoreChoiceFrom(cli, pluginMetrics);
  geometry::DeviceChoice device;
  try {
    device = geometry::parseDeviceChoice(cli.value("device"));
  } catch (const ConfigError& e) {
    throw UsageError(e.what());
  }

  geometry::ScoredGeometry scored;
  if (fromDefault) {
    if (cli.has("candidates"))
      checkLayersOfModel(engine::defaultGeometryRequest().modelFolder, {}, choice);
    const std::filesystem::path store =
        scoreDefault(cli.value("device"), computeDTypeFrom(cli), options,
                     plugin::pointers(pluginMetrics), scored.report);
    scored = geometry::scoreReport(std::move(scored.report), choice);
    if (cli.has("weights") || cli.has("plugin-weights") || cli.has("candidates"))
      geometry::writeGeometry(store, scored);  // the cache's /geometry follows what is printed
  } else {
    geometry::StoreScoring request;
    request.options = options;
    request.device = device;
    request.metrics = plugin::pointers(pluginMetrics);
    request.choice = choice;
    if (cli.has("layers")) {
      const auto range = parseRange(cli, "layers");
      for (int64_t l = range.first; l <= range.last; ++l) request.layers.push_back(l);
    }
    const bool keepStore = fromStore || cli.has("out");
    if (!fromStore && (cli.has("layers") || cli.has("candidates")))
      checkLayersOfModel(cli.value("model"), request.layers, choice);
    JobOutcome outcome = JobOutcome::Succeeded;
    if (keepStore) {
      request.store = fromStore ? cli.value("store") : cli.value("out");
      if (!fromStore) captureFirst(cli, request.store);
      request.writeGeometry = !cli.isSet("no-write");
      outcome = runWithTerminalProgress(
          [&](JobContext& job) { scored = geometry::scoreStore(request, job); });
    } else {
      // Each layer is scored as soon as it is captured: no store is written and read back, and
      // the report is the one --out's store would give (engine/capture_scoring.h).
      const engine::CaptureConfig config = captureConfigFrom(cli);
      std::cerr << "capturing " << config.modelFolder.string() << " over " << config.corpus.string()
                << ", scoring each layer as it is captured (no store is written; --out keeps "
                   "one)\n";
      outcome = runWithTerminalProgress(
          [&](JobContext& job) { scored = engine::captureAndScore(config, request, job); });
    }
    if (outcome == JobOutcome::Cancelled) {
      std::cerr << "score cancelled: nothing was written\n";
      return 130;
    }
    if (keepStore && request.writeGeometry)
      std::cerr << "wrote the geometry into " << request.store.string() << " (/geometry)\n";
  }
  for (const std::string& w : scored.scoreWarnings) std::cerr << "warning: " << w << "\n";
  printScored(cli, scored);
  return 0;
}

}  // namespace strata::cli
