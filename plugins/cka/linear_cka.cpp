#include "linear_cka.h"

#include <cblas.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace strata_plugins {
namespace {

/** Column-centred copy in double. */
std::vector<double> centred(const float* m, int64_t n, int64_t d) {
  std::vector<double> out(size_t(n * d));
  std::vector<double> mean(size_t(d), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) mean[size_t(k)] += m[i * d + k];
  for (auto& v : mean) v /= double(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) out[size_t(i * d + k)] = m[i * d + k] - mean[size_t(k)];
  return out;
}

double squaredFrobenius(const std::vector<double>& m) {
  double s = 0;
  for (double v : m) s += v * v;
  return s;
}

/** ‖AᵀB‖²_F for A (n×da), B (n×db): the feature-space form, d×d products. */
double crossFeatures(const std::vector<double>& a, int64_t da, const std::vector<double>& b,
                     int64_t db, int64_t n) {
  std::vector<double> product(size_t(da * db));
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, int(da), int(db), int(n), 1.0, a.data(),
              int(da), b.data(), int(db), 0.0, product.data(), int(db));
  return squaredFrobenius(product);
}

/** ‖AᵀB‖²_F = ⟨AAᵀ, BBᵀ⟩_F: the sample-space form, n×n products (cheaper when n < d). */
double crossSamples(const std::vector<double>& a, int64_t da, const std::vector<double>& b,
                    int64_t db, int64_t n) {
  std::vector<double> k(size_t(n * n)), l(size_t(n * n));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(n), int(da), 1.0, a.data(),
              int(da), a.data(), int(da), 0.0, k.data(), int(n));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(n), int(n), int(db), 1.0, b.data(),
              int(db), b.data(), int(db), 0.0, l.data(), int(n));
  double s = 0;
  for (size_t i = 0; i < k.size(); ++i) s += k[i] * l[i];
  return s;
}

}  // namespace

double linearCka(const float* x, int64_t n, int64_t dx, const float* y, int64_t dy) {
  if (n < 2) throw std::invalid_argument("CKA needs at least 2 rows, got " + std::to_string(n));
  const auto a = centred(x, n, dx), b = centred(y, n, dy);
  const bool samples = n < std::max(dx, dy);
  auto cross = [&](const std::vector<double>& p, int64_t dp, const std::vector<double>& q,
                   int64_t dq) {
    return samples ? crossSamples(p, dp, q, dq, n) : crossFeatures(p, dp, q, dq, n);
  };
  const double xy = cross(b, dy, a, dx), xx = cross(a, dx, a, dx), yy = cross(b, dy, b, dy);
  if (!(xx > 0) || !(yy > 0))
    throw std::invalid_argument("a layer's rows are all equal: CKA is undefined");
  return xy / std::sqrt(xx * yy);
}

}  // namespace strata_plugins
