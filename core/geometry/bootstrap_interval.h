#pragma once
// Bootstrap confidence intervals from replicates already computed: the percentile interval and
// Efron's bias-corrected and accelerated (BCa) interval (Efron 1987, "Better bootstrap confidence
// intervals", JASA 82:171). Pure arithmetic, so a reference (tests/reference/bca_reference.py,
// scipy.stats' own BCa step) can check it on the very same replicates.

#include <vector>

#include "geometry/layer_geometry.h"

namespace strata::geometry {

/** numpy.percentile's default ("linear"): q·(n − 1) between the sorted values; q in [0, 1]. */
double percentile(std::vector<double> values, double q);

/**
 * The percentile interval of the defined (finite or ±∞) replicates; NaN replicates (degenerate
 * resamples) are left out. A bound that is not finite or that no replicate supports is
 * kUndefined.
 */
Interval percentileInterval(std::vector<double> replicates, double confidence);

/**
 * The BCa interval: the percentile interval at the adjusted levels
 *   α₁ = Φ(z₀ + (z₀ + z_{α/2}) / (1 − a(z₀ + z_{α/2}))), α₂ likewise with z_{1−α/2},
 * with the bias correction z₀ = Φ⁻¹(share of replicates below the point, ties counted half)
 * and the acceleration a = Σ(θ̄ − θ_(g))³ / (6·(Σ(θ̄ − θ_(g))²)^{3/2}) from the jackknife
 * values θ_(g) (θ̄ their mean). NaN replicates are left out; `jackknife` with fewer than two
 * finite values (or any non-finite one) gives a = 0 (bias correction only).
 * When the point lies outside every replicate (z₀ = ±∞) BCa does not exist: the percentile
 * interval is returned and `*pointOutside` (if given) is set; it is also set whenever the
 * returned interval does not contain the point.
 */
Interval bcaInterval(std::vector<double> replicates, double point,
                     const std::vector<double>& jackknife, double confidence,
                     bool* pointOutside = nullptr);

/** The jackknife acceleration a of `bcaInterval` (0 when it cannot be formed). */
double jackknifeAcceleration(const std::vector<double>& jackknife);

/** Φ, the standard normal distribution function. */
double normalCdf(double z);
/** Φ⁻¹ on (0, 1) (±∞ at 0 and 1); Acklam's rational approximation with one Halley step. */
double normalQuantile(double p);

}  // namespace strata::geometry
