#pragma once
// How much memory scoring holds, planned before the first layer is read: the layer's rows, what
// the bootstrap draws for it, the backend's lanes (each with its scratch) and, with plugin
// metrics, layers l and l−1 normalised and the metrics' own scratch. Scoring a store checks it
// against what the machine has (checkScanMemory); scoring a capture as it runs adds it to the
// capture's plan (engine/capture_scoring.h). The lanes a bootstrap runs side by side are
// limited to what the plan leaves room for, so a 16-core machine does not spend on lanes the
// memory that the plugins need after them.

#include <cstdint>
#include <string>

#include "geometry/proxy_options.h"

namespace strata {
class JobContext;
}  // namespace strata

namespace strata::geometry {

class GeometryBackend;

/** What scoring one layer at a time holds at its peak, in bytes. */
struct ScanMemory {
  int64_t rows = 0;      ///< the layer being scored, float32 (read from a store or captured)
  int64_t perLayer = 0;  ///< the screening, the resamples' weights and draws, the jackknife's Gram
  int64_t lane = 0;      ///< one lane's scratch (the backend's; 0 where it works on a device)
  /** With plugin metrics: layers l and l−1 normalised, and the metrics' scratch, taken as at
   *  most twice those two layers (the plugin contract, docs/plugins.md). */
  int64_t plugins = 0;
  int lanes = 1;  ///< lanes the plan leaves room for (lanesWithin)

  /** Everything with `lanes` lanes. */
  int64_t needed() const { return rows + perLayer + plugins + lanes * lane; }
  /** Sets `lanes` to what `budget` bytes allow beyond one lane, at most `threads`, at least 1. */
  void lanesWithin(int64_t budget, int threads);
};

/** The scan of an N×d layer under `options` on `backend` (its lanes' scratch), with or without
 *  plugin metrics; one lane. */
ScanMemory scanMemory(int64_t rows, int64_t dims, const ProxyOptions& options, bool pluginMetrics,
                      const GeometryBackend& backend);

/**
 * Plans scoring `what` (a store's name, for the messages) with what the machine has now
 * (common/memory_budget.h): reports the plan through `job` (info), throws MemoryError naming
 * what is needed and what to change when even one lane does not fit, and otherwise limits the
 * backend's lanes to what fits. Returns the plan.
 */
ScanMemory checkScanMemory(ScanMemory scan, GeometryBackend& backend, const std::string& what,
                           JobContext* job);

}  // namespace strata::geometry
