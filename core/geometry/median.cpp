#include "geometry/median.h"

#include <algorithm>
#include <stdexcept>

namespace strata::geometry {

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("the median of no values");
  const size_t n = values.size();
  const size_t mid = n / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const double upper = values[mid];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

double curvatureFromLambdaMax(std::span<const double> lambdaMax) {
  std::vector<double> inverse(lambdaMax.size());
  std::transform(lambdaMax.begin(), lambdaMax.end(), inverse.begin(),
                 [](double lambda) { return 1.0 / lambda; });
  return median(std::move(inverse));
}

}  // namespace strata::geometry
