#pragma once
// What a tuned-lens run holds in memory at its peak, counted from the store's sizes and the
// settings before any layer is read (the host compares it with what the machine has:
// StrataRecipeHost::plan_memory). Every term is float32 d × N-shaped data or d × d matrices;
// the run holds the first three for its whole life and the largest transient on top.

#include <cstdint>
#include <string>

#include "lens_training.h"

namespace tuned_lens {

struct LensMemory {
  int64_t layers = 0;       ///< the chosen layers and the target, normalised, d × N each
  int64_t heldOut = 0;      ///< their held-out columns, copied for evaluation
  int64_t translators = 0;  ///< A_l and b_l with Adam's two moments of each
  /** The largest transient: a float16 layer's staging while it is read, the held-out target
   *  in double, a step's products on its threads, an evaluation's residual, or a translator
   *  converted to the store's units as it is written. */
  int64_t working = 0;

  int64_t total() const { return layers + heldOut + translators + working; }
  /** "layers 320 MiB, held-out copies 40 MiB, translators and Adam's moments 48 MiB, working
   *  32 MiB": the line the run's memory plan shows. */
  std::string parts() const;
};

/** The count for `shape` (readLensShape: sizes, chosen layers and split) under `settings`. */
LensMemory lensMemory(const LensData& shape, const LensSettings& settings);

/** What the user can change to need less. */
std::string lensMemoryAdvice();

}  // namespace tuned_lens
