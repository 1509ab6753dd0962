#pragma once
// The 2-D principal-component scatter of a layer's tokens, for the layer detail view.

#include <cstdint>
#include <vector>

#include "geometry/proxy_options.h"

namespace strata::geometry {

struct PrincipalPlane {
  /** N×2 row-major: each token's coordinates on the first two principal axes. */
  std::vector<float> coordinates;
  /** Share of the total variance each of the two axes explains. */
  double explained[2] = {0, 0};
};

/** Centres the rows and projects them on the two leading eigenvectors of their covariance. */
PrincipalPlane projectOnPrincipalPlane(const HiddenStates& states);

}  // namespace strata::geometry
