#include "geometry/cpu/jackknife_covariance.h"

#include <cblas.h>

#include <numeric>
#include <utility>

namespace strata::geometry::cpu {

namespace {

/** The rows [begin, end) minus μ₀, times a, float32, into `out` (row-major, stride d). */
void centredRows(const HiddenStates& states, const CentredGram& total, int64_t begin, int64_t end,
                 float* out) {
  RowNormalisation centring;
  centring.dims = states.cols;
  centring.mean = total.mean;
  centring.scale = total.scale;
  std::vector<int64_t> rows(size_t(end - begin));
  std::iota(rows.begin(), rows.end(), begin);
  writeNormalisedRows(states, centring, rows.data(), end - begin, nullptr, out, true);
}

}  // namespace

CentredGram centredGram(const HiddenStates& states, Workspace& scratch) {
  const int64_t n = states.rows, d = states.cols;
  CentredGram out;
  out.dims = d;
  RowNormalisation columns = normaliseRows(states, {}, Normalisation::Standardise);
  out.mean = std::move(columns.mean);
  out.scale = std::move(columns.scale);
  float* centred = scratch.normalised.take<float>(n * d);
  centredRows(states, out, 0, n, centred);
  out.gram.resize(size_t(d * d));
  cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, int(d), int(n), 1.0f, centred, int(d), 0.0f,
              out.gram.data(), int(d));
  return out;
}

void downdatedCovariance(const HiddenStates& states, const CentredGram& total,
                         const RowNormalisation& norm, int64_t begin, int64_t end,
                         Workspace& workspace, double* sigma) {
  const int64_t d = total.dims, n = end - begin;
  float* block = workspace.lower.take<float>(d * d);
  if (n > 0) {
    float* centred = workspace.scaled.take<float>(n * d);
    centredRows(states, total, begin, end, centred);
    cblas_ssyrk(CblasRowMajor, CblasUpper, CblasTrans, int(d), int(n), 1.0f, centred, int(d), 0.0f,
                block, int(d));
  }
  const double* a = total.scale.data();
  std::vector<double> shift(static_cast<size_t>(d));  // δ = a∘(μ − μ₀)
  std::vector<double> s(static_cast<size_t>(d));      // s / a: back to the block's own scale
  for (int64_t j = 0; j < d; ++j) {
    shift[size_t(j)] = a[j] * (norm.mean[size_t(j)] - total.mean[size_t(j)]);
    s[size_t(j)] = a[j] > 0 ? norm.scale[size_t(j)] / a[j] : 0.0;  // a constant column stays 0
  }
  const double w = norm.weightSum, denominator = w - 1;
  const float* t = total.gram.data();
  // Element i·d + j, j ≥ i, is row-major upper (i, j) of the float Grams and column-major lower
  // (j, i) of Σ: one contiguous pass.
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < d; ++i)
    for (int64_t j = i; j < d; ++j) {
      const int64_t k = i * d + j;
      const double kept =
          double(t[k]) - (n > 0 ? double(block[k]) : 0.0) - w * shift[size_t(i)] * shift[size_t(j)];
      sigma[k] = s[size_t(i)] * s[size_t(j)] * kept / denominator;
    }
}

}  // namespace strata::geometry::cpu
