#pragma once
// Validation of a bridge (DESIGN.md "bridge", evaluation): on held-out windows, the diffusion
// loss, the MSE and cosine of sampled ĥ_{l*} against the true h_{l*}, and the frozen upper
// stack fed with ĥ versus with the true h: next-token cross-entropy and perplexity of both,
// their gap (the cost of the bridge), and top-1 agreement with the original model. Positions
// the bridge does not model (BridgeWindows::exactPositions) are left out of the loss, MSE and
// cosine, and reach the upper stack as the source model computed them. At layer 0 (embedding
// diffusion) also the rounding accuracy: the fraction of tokens whose nearest embedding row
// (model/diffusion/embedding_rounding.h) of the denoiser's x̂0 — at the validation loss's t and
// noise — is the true token.

#include <functional>
#include <map>
#include <string>

#include "recipes/bridge/bridge_diffusion.h"
#include "recipes/bridge/bridge_source.h"
#include "recipes/bridge/bridge_store_data.h"

namespace strata::recipes {

struct BridgeEvaluationData {
  const BridgeSource& source;
  const BridgeStatistics& statistics;
  /** Held-out windows [first, first + rows): ids, condition h_0 and true h_{l*}. */
  std::function<BridgeWindows(int64_t first, int64_t rows)> windowsAt;
  int64_t windows = 16;  ///< held-out windows evaluated
  int64_t batch = 8;
  uint64_t seed = 0;  ///< noise and t of the evaluation (fixed per run)
};

/** Keys: loss, mse, cosine, ce_bridge, ce_true, ce_gap, ppl_bridge, ppl_true, top1_agreement,
 *  and rounding_accuracy at layer 0 (the loop logs them with a val_ prefix). */
std::map<std::string, double> evaluateBridge(model::BridgeDenoiser& denoiser,
                                             const BridgeDiffusion& diffusion,
                                             const BridgeEvaluationData& data);

}  // namespace strata::recipes
