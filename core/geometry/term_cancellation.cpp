#include "geometry/term_cancellation.h"

namespace strata::geometry {

std::string cancellingTermsWarning(Normalisation normalisation, MonotonicityMode monotonicity,
                                   const ScoreWeights& weights) {
  if (monotonicity != MonotonicityMode::MinEigenvalue) return {};
  if (normalisation == Normalisation::None) return {};
  // A proxy's weight defaults to 1 when not given (score.h).
  const auto weight = [&](BuiltInSeries s) { return s < weights.size() ? weights[s] : 1.0; };
  const double wm = weight(kMonotonicitySeries);
  const double wk = weight(kEffectiveRankSeries);
  if (wm == 0 || wk == 0) return {};
  const std::string trace =
      normalisation == Normalisation::Trace ? "d" : "d minus the constant dimensions";
  std::string text = std::string("under --normalise ") + normalisationName(normalisation) +
                     " with --monotonicity min-eig, log m_mono = log k_eff − log tr(Σ) up to ε "
                     "and tr(Σ) = " +
                     trace + " on every layer, so ";
  if (wm == wk) return text + "the m_mono and k_eff terms of S cancel: S ranks by m_curv alone";
  return text + "the m_mono and k_eff terms of S are one term, (w_m − w_k)·z(log k_eff)";
}

}  // namespace strata::geometry
