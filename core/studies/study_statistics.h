#pragma once
// The statistics every study reports over its seeds: mean, sample standard deviation (n − 1)
// and a percentile-bootstrap 95 % interval of the mean; for a comparison, the same over the
// paired differences (arm − baseline at the same seed, so the same data order and the same
// initial draw wherever the recipe seeds them alike).
//
// The bootstrap: B resamples (with replacement, n of the n values) drawn by a 64-bit Mersenne
// Twister seeded with `seed` (index = draw mod n, so every platform draws the same), the
// resample means sorted, the interval their (1 − level)/2 and (1 + level)/2 quantiles with
// linear interpolation between order statistics (NumPy's default "linear" method). With n
// values the interval can never leave [min, max]; with 3 seeds the 2.5 % quantile is the
// smallest value itself (P(all three draws are the minimum) = 1/27 > 2.5 %), so an interval that
// excludes 0 means every seed agrees in sign. No torch here.

#include <cstdint>
#include <vector>

namespace strata::studies {

struct BootstrapSettings {
  int64_t resamples = 10000;
  uint64_t seed = 20;  ///< fixed, so an analysis redone gives the same interval
  double level = 0.95;
};

/** Mean, sample sd and bootstrap interval of some values (non-finite values are left out). */
struct SeedSummary {
  int64_t n = 0;
  double mean = 0;
  double sd = 0;   ///< n − 1 in the denominator; NaN for n < 2 (one seed has no spread to show)
  double low = 0;  ///< the interval; equal to the value for n = 1, NaN for n = 0
  double high = 0;
  std::vector<double> values;  ///< the finite values summarised, in the order given
};

double meanOf(const std::vector<double>& values);
/** Sample standard deviation (n − 1); NaN for fewer than 2 values. */
double sampleSd(const std::vector<double>& values);
/** The q-quantile (0..1) of sorted values, linear between order statistics. */
double linearQuantile(const std::vector<double>& sorted, double q);

/** The percentile-bootstrap interval of the mean: {low, high}. */
std::pair<double, double> bootstrapMeanInterval(const std::vector<double>& values,
                                                const BootstrapSettings& settings);

SeedSummary summarise(const std::vector<double>& values, const BootstrapSettings& settings);

/** a[i] − b[i] where both are finite (a pair with a missing side is dropped). Throws Error
 *  when the sizes differ. */
std::vector<double> pairedDifferences(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace strata::studies
