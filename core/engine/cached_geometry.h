#pragma once
// The layer geometry of a model over a corpus, computed once and kept: what the workbench's
// File ▸ Open Default Model, `strata-cli score --default` and scripts/run-default.sh show first.
//
// The activation store lives in a cache folder under a name derived from everything that decides
// its rows (the model's content fingerprint, the corpus's content hash, the sampling settings, the
// precision the forward passes resolve to),
// so a changed model or corpus gets a new store and an unchanged one is reused. Each step runs
// only when needed: an interrupted capture is resumed, a store whose /geometry was computed with
// other proxy options or other plugin metrics is scored again, a finished one is only read.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/compute_dtype.h"
#include "geometry/geometry_report.h"
#include "geometry/proxy_options.h"
#include "io/corpus/corpus.h"
#include "io/corpus/token_sampler.h"

namespace strata {

class JobContext;
namespace geometry {
class LayerMetric;
}

}  // namespace strata

namespace strata::engine {

struct CachedGeometryRequest {
  std::filesystem::path modelFolder;  ///< a model folder, or a .gguf file (imported on first use)
  std::filesystem::path corpus;
  std::filesystem::path cacheFolder;  ///< created when missing
  io::CorpusOptions corpusOptions;
  io::TokenSamplerConfig sampling;
  geometry::ProxyOptions options;
  std::string device = "auto";  ///< capture and geometry backend: "cpu", "cuda" or "auto"
  /** The capture's forward passes; Auto is resolved for the device before the cache is looked
   *  up, so a machine with native bf16 and one without keep different stores. */
  ComputeDType computeDType = ComputeDType::Auto;
};

struct CachedGeometry {
  std::filesystem::path modelFolder;  ///< the model read (a .gguf request: its import folder)
  std::filesystem::path store;
  bool captured = false;  ///< this call captured (or finished capturing) the store
  bool scored = false;    ///< this call computed /geometry; false: read from the store
  geometry::GeometryReport report;
};

/**
 * The default model (io/hf/default_model.h: SmolLM2-135M-Instruct) over defaultCorpusFile(), 4,096
 * tokens in sequences of 128, cached in userDataFolder()/geometry-cache (common/install_paths.h).
 * ConfigError when this Strata has no default model or the machine no default corpus.
 */
CachedGeometryRequest defaultGeometryRequest();

/** The store file `request` is cached in (the model folder's name and a 16-hex-digit key). */
std::filesystem::path cachedStorePath(const CachedGeometryRequest& request);

/**
 * Captures and scores as needed (see above) with every metric in `metrics` beside the proxies;
 * progress (capture ~70 %, scoring ~30 %) and cancellation through `job`. A cached store that
 * cannot be read, or that holds other tokens than the request samples, is captured again (a
 * warning says so). Throws like runCapture and scanStore; cancelling keeps the finished layers
 * (the next call resumes) and never writes a partial /geometry.
 */
CachedGeometry cachedGeometry(const CachedGeometryRequest& request, JobContext& job,
                              const std::vector<geometry::LayerMetric*>& metrics = {});

}  // namespace strata::engine
