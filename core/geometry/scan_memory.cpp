#include "geometry/scan_memory.h"

#include <algorithm>
#include <sstream>

#include "common/human_format.h"
#include "common/job.h"
#include "common/memory_budget.h"
#include "geometry/backend.h"

namespace strata::geometry {

void ScanMemory::lanesWithin(int64_t budget, int threads) {
  const int64_t oneLane = rows + perLayer + plugins + lane;
  const int64_t more = lane > 0 ? std::max<int64_t>(0, budget - oneLane) / lane : 0;
  lanes = int(std::clamp<int64_t>(1 + more, 1, std::max(threads, 1)));
}

ScanMemory scanMemory(int64_t rows, int64_t dims, const ProxyOptions& options, bool pluginMetrics,
                      const GeometryBackend& backend) {
  const int64_t n = rows, d = dims;
  ScanMemory m;
  m.rows = 4 * n * d;
  // Every evaluation of the layer (the point, B resamples, G jackknife blocks) is drawn before
  // any runs: its row weights twice (the batch's request and the plan's own), its pairs and
  // anchors, and what it returns (each anchor's λ_max, the spectrum). The screening holds
  // 36 bytes a row; the jackknife's Gram of the whole layer is a float32 d×d (with its columns'
  // means and scales).
  const int64_t evaluations = 1 + options.bootstrapResamples + options.jackknifeBlocks;
  const int64_t perEvaluation =
      8 * n + 16 * options.directions + 16 * options.anchors + 8 * options.spectrumSize;
  m.perLayer =
      36 * n + evaluations * perEvaluation + (options.jackknifeBlocks > 0 ? 4 * d * d + 16 * d : 0);
  m.lane = backend.laneBytes(n, d, options);
  // Layers l and l−1 normalised (float32), and each metric's scratch: the built-in ones hold
  // at most twice their inputs (CKA's centred pair and its Gram, TwoNN's copy of distinct rows).
  if (pluginMetrics) m.plugins = 2 * m.rows + 2 * (2 * m.rows);
  return m;
}

ScanMemory checkScanMemory(ScanMemory scan, GeometryBackend& backend, const std::string& what,
                           JobContext* job) {
  const int64_t available = availableHostMemory();
  const int64_t usable = usableShareOf(available);
  const int64_t process = processCost(0, false);
  scan.lanesWithin(usable - process, backend.laneThreads());
  const int64_t needed = process + scan.needed();
  std::ostringstream plan;
  plan << "memory plan for scoring " << what << ": rows " << formatBytes(scan.rows)
       << "; bootstrap draws " << formatBytes(scan.perLayer);
  if (scan.lane > 0)
    plan << "; " << scan.lanes << (scan.lanes == 1 ? " lane of " : " lanes of ")
         << formatBytes(scan.lane);
  if (scan.plugins > 0) plan << "; plugin metrics " << formatBytes(scan.plugins);
  plan << "; process " << formatBytes(process) << " — needs " << formatBytes(needed) << " of "
       << formatBytes(available) << " available memory";
  const bool fits = needed <= usable;
  if (job) job->info(plan.str() + (fits ? "" : ": does not fit"));
  if (!fits) {
    std::ostringstream refusal;
    refusal << "scoring " << what << " needs about " << formatBytes(needed)
            << " of memory (the rows of a layer " << formatBytes(scan.rows)
            << (scan.plugins > 0 ? ", the plugin metrics " + formatBytes(scan.plugins) : "")
            << ", one lane's scratch " << formatBytes(scan.lane) << ", the process "
            << formatBytes(process) << ") but only " << formatBytes(available) << " is available. "
            << (scan.plugins > 0 ? "Score without plugin metrics (--no-plugins), or capture"
                                 : "Capture")
            << " fewer tokens (--tokens: every term grows with them), or score on a machine "
               "with more memory";
    throw MemoryError(refusal.str());
  }
  backend.limitLanes(scan.lanes);
  return scan;
}

}  // namespace strata::geometry
