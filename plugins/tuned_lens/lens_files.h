#pragma once
// The tuned lens's files in its run folder, both replaced atomically (temporary, fsync, rename,
// fsync of the folder), so a run killed at any moment keeps the previous complete one:
//
//   lens_checkpoint.bin     the whole LensState after a step, for resume. Little-endian:
//                           "TLENSCK1", u64 n + the data fingerprint (n bytes), i64 step,
//                           u64 n + mt19937_64 state as text, u64 position, u64 n + n × i64
//                           order, then per layer W, W_m, W_v (d×d f32, column-major), b, b_m,
//                           b_v (d f32), and "TLENSEND".
//   translators.safetensors the result, in the store's units (y ≈ W h + b, W row-major as a
//                           torch Linear's weight): "layers.<l>.weight" F32 [d, d],
//                           "layers.<l>.bias" F32 [d], "held_out" I64 [n] (the held-out token
//                           rows of the store), and __metadata__ (format, store, target_layer,
//                           layers, steps, held-out R² per layer).

#include <string>

#include "lens_training.h"

namespace tuned_lens {

void saveCheckpoint(const std::string& file, const LensData& data, const LensState& state);
/** Restores `state` from `file`. Throws std::runtime_error when the file is damaged or was
 *  written for other data or settings (its fingerprint differs). */
void loadCheckpoint(const std::string& file, const LensData& data, LensState& state);

void writeTranslators(const std::string& file, const LensData& data, const LensState& state,
                      const LensSettings& settings, const HeldOutScores& scores);

}  // namespace tuned_lens
