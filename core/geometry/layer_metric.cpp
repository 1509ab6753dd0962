#include "geometry/layer_metric.h"

#include "geometry/cpu/row_normalisation.h"

namespace strata::geometry {

std::vector<float> normalisedStates(const HiddenStates& states, Normalisation mode) {
  // The CPU backend's own normalisation, so a plugin sees exactly the rows the proxies see.
  const cpu::RowNormalisation norm = cpu::normaliseRows(states, {}, mode);
  std::vector<float> out(static_cast<size_t>(norm.rows.size()) * static_cast<size_t>(states.cols));
  cpu::normalisedRows(states, norm, out.data());
  return out;
}

}  // namespace strata::geometry
