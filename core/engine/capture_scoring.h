#pragma once
// Scoring a model without a store: the capture's layers go straight into a geometry scan as
// their forward passes finish (`strata-cli score --model` without --out). Nothing is written;
// the report is the one that capturing into a store and scoring it (scoreStore) gives.

#include "engine/capture.h"
#include "geometry/store_scoring.h"

namespace strata {
class JobContext;
}  // namespace strata

namespace strata::engine {

/**
 * Captures config.modelFolder over config.corpus and scores each layer as soon as it is
 * computed. Each layer's rows are rounded to config.dtype first, as a store keeps them, so that
 * the result equals scoreStore(scoring) on the store runCapture(config) writes, bit for bit.
 * Only the layers the scan needs are computed (scoring.layers, and with plugin metrics each
 * one's l−1), and memory holds the model, one layer's hidden states and the scan's (at most
 * the rows of l and the normalised rows of l and l−1). The memory plan runs before the model
 * is loaded, as for any capture.
 *
 * Writes nothing: config.output, overwrite, resume and write are not used, nor are
 * scoring.store and scoring.writeGeometry. Progress runs once through the layers ("layer l of
 * L", then "scoring layer l of L"); throws as runCapture and scoreStore (CancelledError when
 * cancelled, a ConfigError naming a layer of scoring.layers the model does not have).
 */
geometry::ScoredGeometry captureAndScore(const CaptureConfig& config,
                                         const geometry::StoreScoring& scoring, JobContext& job);

}  // namespace strata::engine
