#include "engine/cached_geometry.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "common/error.h"
#include "common/install_paths.h"
#include "common/job.h"
#include "engine/capture.h"
#include "engine/device_choice.h"
#include "engine/progress_share.h"
#include "geometry/backend.h"
#include "geometry/layer_metric.h"
#include "geometry/proxy_options_json.h"
#include "geometry/store_scoring.h"
#include "io/corpus/corpus_hash.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/default_model.h"
#include "io/hf/model_fingerprint.h"
#include "io/store/activation_store.h"

namespace strata::engine {

namespace {

constexpr double kCaptureShare = 0.7;  // of the progress bar; scoring takes the rest

ComputeDType resolvedComputeDType(const CachedGeometryRequest& r) {
  return chooseComputeDType(r.computeDType, resolveDevice(r.device, "device")).dtype;
}

/** Everything that decides the stored rows, as one JSON text (hashed into the file name). */
std::string storeIdentity(const CachedGeometryRequest& r, JobContext* job) {
  const io::TokenSamplerConfig& s = r.sampling;
  const ComputeDType compute = resolvedComputeDType(r);
  const nlohmann::json identity = {{"cache_format", 1},
                                   {"model_fingerprint", io::modelFingerprint(r.modelFolder)},
                                   {"corpus_hash", corpusHash(r.corpus, r.corpusOptions, job)},
                                   {"corpus_format", int(r.corpusOptions.format)},
                                   {"document_split", int(r.corpusOptions.split)},
                                   {"jsonl_field", r.corpusOptions.jsonlField},
                                   {"recursive", r.corpusOptions.recursive},
                                   {"sequence_length", s.sequenceLength},
                                   {"token_budget", s.tokenBudget},
                                   {"skip_first_positions", s.skipFirstPositions},
                                   {"add_bos", s.addBos ? int(*s.addBos) : -1},
                                   {"seed", s.seed},
                                   {"max_documents", s.maxDocuments},
                                   {"short_pieces", int(s.shortPieces)},
                                   {"distinct_prefixes", s.distinctPrefixes},
                                   {"store_dtype", "float16"}};
  // Float32 stores keep the names they had before bf16 existed.
  if (compute == ComputeDType::Float32) return identity.dump();
  nlohmann::json withPrecision = identity;
  withPrecision["compute_dtype"] = computeDTypeName(compute);
  return withPrecision.dump();
}

void requireInputs(const CachedGeometryRequest& r) {
  if (r.modelFolder.empty()) throw ConfigError({}, "model", "no model folder was given");
  if (r.corpus.empty())
    throw ConfigError({}, "corpus",
                      "no corpus was given (for the default model: set STRATA_DEFAULT_CORPUS to a "
                      "text file)");
  if (r.cacheFolder.empty()) throw ConfigError({}, "cache folder", "no cache folder was given");
}

/** Whether the cached store holds every layer; removes it (with a warning) when unreadable. */
bool storeComplete(const std::filesystem::path& store, JobContext& job) {
  std::error_code error;
  if (!std::filesystem::exists(store, error)) return false;
  try {
    const io::ActivationStore existing = io::ActivationStore::open(store);
    return existing.completedLayers().size() == static_cast<size_t>(existing.meta().numLayers + 1);
  } catch (const FormatError& e) {
    job.warning(std::string("the cached store cannot be read, capturing it again: ") + e.what());
    std::filesystem::remove(store, error);
    return false;
  }
}

void capture(const CachedGeometryRequest& r, const std::filesystem::path& store, JobContext& job) {
  CaptureConfig config;
  config.modelFolder = r.modelFolder;
  config.corpus = r.corpus;
  config.output = store;
  config.corpusOptions = r.corpusOptions;
  config.sampling = r.sampling;
  config.device = r.device;
  config.computeDType = resolvedComputeDType(r);
  std::error_code error;
  config.resume = std::filesystem::exists(store, error);
  ProgressShareSink share(job, 0.0, kCaptureShare);
  JobContext step = share.context();
  if (!config.resume) {
    runCapture(config, step);
    return;
  }
  try {
    runCapture(config, step);
  } catch (const FormatError& e) {
    // Resuming refuses a store with other tokens (a tokenizer changed beside the same weights).
    job.warning(std::string("the cached store cannot be resumed, capturing it again: ") + e.what());
    config.resume = false;
    config.overwrite = true;
    runCapture(config, step);
  }
}

/** Whether a stored /geometry is what scoring `r` with `metrics` would compute. */
bool sameScan(const geometry::GeometryReport& stored, const CachedGeometryRequest& r,
              const std::vector<geometry::LayerMetric*>& metrics, int64_t numLayers) {
  if (geometry::optionsToJson(stored.options) != geometry::optionsToJson(r.options)) return false;
  if (static_cast<int64_t>(stored.layers.size()) != numLayers + 1) return false;
  if (stored.pluginMetrics.size() != metrics.size()) return false;
  for (size_t m = 0; m < metrics.size(); ++m)
    if (stored.pluginMetrics[m].name != metrics[m]->info().name) return false;
  return true;
}

}  // namespace

CachedGeometryRequest defaultGeometryRequest() {
  CachedGeometryRequest r;
  const io::DefaultModel model = io::defaultModel();
  r.modelFolder = model.path;
  if (r.modelFolder.empty())
    throw ConfigError({}, "default model",
                      model.fallbackReason +
                          ", and this Strata has no small built-in model "
                          "either (share/strata/models/default, or resources/models/default in a "
                          "build tree)");
  r.corpus = defaultCorpusFile();
  if (r.corpus.empty())
    throw ConfigError({}, "default corpus",
                      "no /usr/lib/python3.*/argparse.py on this machine: set "
                      "STRATA_DEFAULT_CORPUS to a text file");
  r.cacheFolder = userDataFolder() / "geometry-cache";
  r.sampling.tokenBudget = 4096;
  r.sampling.sequenceLength = 128;
  return r;
}

namespace {

/** cachedStorePath; hashing the corpus reports progress to and checks cancellation of `job`. */
std::filesystem::path storePathFor(const CachedGeometryRequest& request, JobContext* job) {
  requireInputs(request);
  const std::string key = io::sha256Hex(storeIdentity(request, job)).substr(0, 16);
  std::string model =
      std::filesystem::absolute(request.modelFolder).lexically_normal().filename().string();
  if (model.empty()) model = "model";
  return request.cacheFolder / (model + "-" + key + ".h5");
}

}  // namespace

std::filesystem::path cachedStorePath(const CachedGeometryRequest& request) {
  CachedGeometryRequest resolved = request;
  resolved.modelFolder = io::resolveModelFolder(request.modelFolder);
  return storePathFor(resolved, nullptr);
}

CachedGeometry cachedGeometry(const CachedGeometryRequest& given, JobContext& job,
                              const std::vector<geometry::LayerMetric*>& metrics) {
  requireInputs(given);
  // A .gguf model is imported once into a model folder (io/gguf/gguf_import.h); from here on the
  // request names that folder.
  CachedGeometryRequest request = given;
  request.modelFolder = io::resolveModelFolder(given.modelFolder, &job);
  request.options.validate();
  const geometry::DeviceChoice device = geometry::parseDeviceChoice(request.device);
  job.progress(-1.0, "fingerprinting the model and the corpus");
  CachedGeometry result;
  result.modelFolder = request.modelFolder;
  result.store = storePathFor(request, &job);  // a large corpus: progress and Cancel
  std::error_code error;
  std::filesystem::create_directories(request.cacheFolder, error);
  if (error)
    throw IoError(request.cacheFolder,
                  "cannot create the geometry cache folder: " + error.message());

  if (!storeComplete(result.store, job)) {
    job.info("capturing " + request.modelFolder.string() + " over " + request.corpus.string() +
             " into " + result.store.string());
    capture(request, result.store, job);
    result.captured = true;
  }
  job.checkCancelled();

  int64_t numLayers = 0;
  {
    const io::ActivationStore store = io::ActivationStore::open(result.store);
    numLayers = store.meta().numLayers;
  }
  std::optional<geometry::GeometryReport> stored;
  try {
    stored = geometry::readGeometry(result.store);
  } catch (const FormatError& e) {
    job.warning(std::string("the cached /geometry cannot be read, scoring again: ") + e.what());
  }
  if (stored && sameScan(*stored, request, metrics, numLayers)) {
    job.info("the layer geometry of " + result.store.string() + " is cached: nothing to compute");
    result.report = std::move(*stored);
    job.progress(1.0, "cached");
    return result;
  }

  ProgressShareSink share(job, kCaptureShare, 1.0 - kCaptureShare);
  JobContext step = share.context();
  step.progress(-1.0, "starting the geometry backend");
  geometry::StoreScoring scoring;
  scoring.store = result.store;
  scoring.options = request.options;
  scoring.device = device;
  scoring.metrics = metrics;
  result.report = geometry::scoreStore(scoring, step).report;
  result.scored = true;
  job.progress(1.0, "done");
  return result;
}

}  // namespace strata::engine
