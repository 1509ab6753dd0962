#pragma once
// The covariance side of the proxies: Σ of the normalised rows (float32 ssyrk, blocked over
// rows), its leading eigenvalues (Lanczos), and m_mono through a Cholesky factor of Σ + εI.

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"

namespace strata::geometry::cpu {

/**
 * Σ = Σ_i w_i x̃_i x̃_iᵀ / (W − 1) over the normalised rows x̃ of positive weight (`normalised`,
 * from normalisedRows), as the lower triangle of a symmetric d×d double matrix (column-major;
 * the strict upper triangle is left as it was: every reader takes the lower one). The product
 * runs in float32: one cblas_ssyrk over all rows for unit weights or when the rows already
 * carry their sqrt(w) (`rootWeighted`), else ssyrk over blocks of sqrt(w)-scaled copies; only
 * the d×d result is widened, into `sigma`. Returns that float32 result (workspace.lower, the
 * column-major lower triangle; valid until workspace.lower is taken again): every element of
 * `sigma` is one of its values, so leadingEigenvalues can read it in their place.
 */
const float* normalisedCovariance(const float* normalised, const RowNormalisation& norm,
                                  bool rootWeighted, Workspace& workspace, double* sigma);

/**
 * The `count` largest eigenvalues of the symmetric positive semi-definite d×d S, descending:
 * Lanczos (Spectra::SymEigsSolver) when its Krylov space ncv = max(2·count + 1, 20) is smaller
 * than d, otherwise (and should Lanczos not converge in 1000 restarts) Eigen's dense solver.
 * `count` is clipped to d. Lanczos's products read `floatLower` when given — the same matrix's
 * lower triangle in float32, column-major, each element exactly S's (normalisedCovariance's
 * result) — on CPUs with AVX-512 (symmetricProductOfFloatLower), else S by cblas_dsymv.
 */
std::vector<double> leadingEigenvalues(const double* S, int64_t d, int64_t count,
                                       const float* floatLower = nullptr);

/**
 * In place on the column-major n×n A: A = L Lᵀ, lower triangle (the upper one is left as it was).
 * Blocked right-looking Cholesky: Eigen's LLT on 64-wide diagonal blocks, cblas_dtrsm /
 * cblas_dsyrk for the rest. Throws strata::Error when A is not numerically positive definite.
 */
void choleskyInPlace(double* A, int64_t n);

/**
 * m_mono's Rayleigh form: the mean over the pairs with u = x̃_a − x̃_b ≠ 0 of uᵀ(LLᵀ)⁻¹u / uᵀu
 * = ‖L⁻¹u‖² / ‖u‖², all directions solved at once (in float32 panels by sgemm, the diagonal
 * blocks' inverses formed in double; sums in double). u is formed in double from the raw rows,
 * u = s∘(x_a − x_b) (the mean cancels), and rounded to float32. `scratch` holds the d×P
 * directions, `factorScratch` the rounded d×d factor and one panel. Throws
 * std::invalid_argument when every pair is a zero direction.
 */
double meanRayleighQuotient(const double* choleskyLower, const HiddenStates& states,
                            const RowNormalisation& norm,
                            std::span<const std::pair<int64_t, int64_t>> pairs, HugeBuffer& scratch,
                            HugeBuffer& factorScratch);

}  // namespace strata::geometry::cpu
