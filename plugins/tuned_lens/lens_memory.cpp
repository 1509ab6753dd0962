// The tuned lens's memory count (see lens_memory.h).

#include "lens_memory.h"

#include <algorithm>
#include <cstdio>

namespace tuned_lens {
namespace {

std::string bytesText(int64_t bytes) {
  char text[32];
  const double b = static_cast<double>(bytes);
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(text, sizeof text, "%.2f GiB", b / (1024.0 * 1024 * 1024));
  else
    std::snprintf(text, sizeof text, "%.0f MiB", b / (1024.0 * 1024));
  return text;
}

}  // namespace

std::string LensMemory::parts() const {
  return "layers " + bytesText(layers) + ", held-out copies " + bytesText(heldOut) +
         ", translators and Adam's moments " + bytesText(translators) + ", working " +
         bytesText(working);
}

LensMemory lensMemory(const LensData& shape, const LensSettings& settings) {
  const int64_t d = shape.hidden, n = shape.tokens, f = sizeof(float);
  const auto chosen = static_cast<int64_t>(shape.layers.size());
  const auto held = static_cast<int64_t>(shape.heldOut.size());
  const int64_t batch = settings.batch;
  const int64_t threads = std::min<int64_t>(threadCount(settings), chosen);
  LensMemory m;
  m.layers = (chosen + 1) * d * n * f;  // + the target, h_L
  m.heldOut = (chosen + 1) * d * held * f;
  m.translators = chosen * 3 * (d * d + d) * f;  // parameters, first and second moments
  // Transients, one at a time (loadLensLayers, trainStep, evaluateHeldOut, writeTranslators):
  const int64_t staging = d * n * 2;          // a float16 layer before widening
  const int64_t heldOutTotal = d * held * 8;  // the held-out target in double
  const int64_t step = d * batch * f          // the batch's targets
                       + threads * ((2 * d * batch + d * d + d) * f);  // x, residual, ∇A, ∇b
  const int64_t evaluation = d * held * f;                             // one layer's residual
  const int64_t written = d * d * (8 + f);  // A in double, then row-major float
  m.working = std::max({staging, heldOutTotal, step, evaluation, written});
  return m;
}

std::string lensMemoryAdvice() {
  return "Translate fewer layers at a time (layers=0-7, then layers=8-15, …: each layer's "
         "translator is independent of the others), or use a store of fewer tokens "
         "(strata-cli capture --tokens): the layers grow with both";
}

}  // namespace tuned_lens
