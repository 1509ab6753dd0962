#pragma once
// Settings under which two terms of S carry the same information (docs/geometry.md,
// "Normalisation"). With `min-eig`, m_mono = 1/(λ_max + ε) and k_eff = tr(Σ)/λ_max, so
// log m_mono = log k_eff − log tr(Σ) up to ε/λ_max. Under `trace` tr(Σ) = d on every layer, and
// under `standardise` tr(Σ) = d minus the constant dimensions: the two z-scores are equal and
// +w_m·z(log m_mono) − w_k·z(log k_eff) = (w_m − w_k)·z(log k_eff). Under `none` tr(Σ) grows
// with the residual stream, so the terms differ by z(log tr Σ). The Rayleigh form cancels nothing.

#include <string>

#include "geometry/proxy_options.h"
#include "geometry/score.h"

namespace strata::geometry {

/**
 * The warning for settings under which S's m_mono and k_eff terms cancel (w_m = w_k) or merge
 * into one term (w_m ≠ w_k), both weights non-zero; "" for every other combination.
 */
std::string cancellingTermsWarning(Normalisation normalisation, MonotonicityMode monotonicity,
                                   const ScoreWeights& weights);

}  // namespace strata::geometry
