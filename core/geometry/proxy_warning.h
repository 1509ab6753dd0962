#pragma once
// Undefined proxies and the warnings that say why (docs/geometry.md, "Degenerate layers").
// A proxy whose definition gives no finite number on a layer (a constant layer, too few rows,
// a median over zero-spread neighbourhoods, …) is carried as kUndefined (a quiet NaN) together
// with a ProxyWarning naming the proxy and the reason. Every consumer (score, store, CLI, views)
// tests isDefined() and shows "n/a", null, an empty cell or a gap — never the NaN itself.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace strata::geometry {

/** The value of an undefined proxy, interval bound, score or plugin metric. */
inline constexpr double kUndefined = std::numeric_limits<double>::quiet_NaN();

/** Whether a proxy value is a number Strata reports (finite). */
inline bool isDefined(double value) { return std::isfinite(value); }

/** One warning about one layer: which proxy, why, and whether its value is undefined. */
struct ProxyWarning {
  int64_t layer = -1;
  /** "m_curv", "m_mono", "k_eff", "all" (every proxy), "S" (the score) or a plugin metric name. */
  std::string proxy;
  std::string reason;
  /** True: the proxy's value is kUndefined here. False: the value stands, read it with care. */
  bool undefined = false;

  /** "layer 0, m_curv: undefined — <reason>" or "layer 0, m_curv: <reason>". */
  std::string text() const {
    return "layer " + std::to_string(layer) + ", " + proxy + ": " +
           (undefined ? "undefined — " : "") + reason;
  }
  bool operator==(const ProxyWarning&) const = default;
};

}  // namespace strata::geometry
