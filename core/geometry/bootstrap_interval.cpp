#include "geometry/bootstrap_interval.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace strata::geometry {

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double position = q * double(values.size() - 1);
  const size_t below = static_cast<size_t>(std::floor(position));
  const size_t above = std::min(below + 1, values.size() - 1);
  const double fraction = position - double(below);
  if (fraction == 0) return values[below];  // never 0·∞
  return values[below] + fraction * (values[above] - values[below]);
}

namespace {

Interval boundsAt(std::vector<double> values, double lowLevel, double highLevel) {
  if (values.empty()) return {kUndefined, kUndefined};
  const auto bound = [](double v) { return isDefined(v) ? v : kUndefined; };
  return {bound(percentile(values, std::clamp(lowLevel, 0.0, 1.0))),
          bound(percentile(std::move(values), std::clamp(highLevel, 0.0, 1.0)))};
}

}  // namespace

Interval percentileInterval(std::vector<double> replicates, double confidence) {
  std::erase_if(replicates, [](double v) { return std::isnan(v); });
  const double tail = (1.0 - confidence) / 2.0;
  return boundsAt(std::move(replicates), tail, 1.0 - tail);
}

double jackknifeAcceleration(const std::vector<double>& jackknife) {
  if (jackknife.size() < 2) return 0;
  double mean = 0;
  for (double v : jackknife) {
    if (!std::isfinite(v)) return 0;
    mean += v;
  }
  mean /= double(jackknife.size());
  double squares = 0, cubes = 0;
  for (double v : jackknife) {
    const double u = mean - v;
    squares += u * u;
    cubes += u * u * u;
  }
  if (!(squares > 0)) return 0;
  return cubes / (6.0 * std::pow(squares, 1.5));
}

Interval bcaInterval(std::vector<double> replicates, double point,
                     const std::vector<double>& jackknife, double confidence, bool* pointOutside) {
  std::erase_if(replicates, [](double v) { return std::isnan(v); });
  const double tail = (1.0 - confidence) / 2.0;
  const auto outside = [&](const Interval& i) {
    if (pointOutside)
      *pointOutside = isDefined(i.low) && isDefined(i.high) && (point < i.low || point > i.high);
  };
  if (replicates.empty() || std::isnan(point)) {
    const Interval i = boundsAt(std::move(replicates), tail, 1.0 - tail);
    outside(i);
    return i;
  }
  // z₀ from the share below the point, ties counted half (scipy's percentileofscore "mean").
  double below = 0;
  for (double v : replicates) below += v < point ? 1.0 : (v == point ? 0.5 : 0.0);
  const double share = below / double(replicates.size());
  if (share <= 0 || share >= 1) {
    // Every replicate on one side: z₀ = ±∞ and BCa has no interval. Percentile, flagged.
    const Interval i = boundsAt(std::move(replicates), tail, 1.0 - tail);
    if (pointOutside) *pointOutside = true;
    return i;
  }
  const double z0 = normalQuantile(share);
  const double a = jackknifeAcceleration(jackknife);
  const auto level = [&](double alpha) {
    const double z = z0 + normalQuantile(alpha);
    return normalCdf(z0 + z / (1.0 - a * z));
  };
  const Interval i = boundsAt(std::move(replicates), level(tail), level(1.0 - tail));
  outside(i);
  return i;
}

double normalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normalQuantile(double p) {
  if (!(p > 0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1)) return std::numeric_limits<double>::infinity();
  // Acklam (2003): relative error below 1.15e-9, then one Halley step to full precision.
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double low = 0.02425;
  double x;
  if (p < low) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - low) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  const double e = normalCdf(x) - p;
  const double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

}  // namespace strata::geometry
