#pragma once
// How a backbone's blocks attend: causal or bidirectional, which tokens are padding, and the
// position of every token. Shared by Backbone's public API and the blocks.

#include <ATen/core/Tensor.h>

#include <cstdint>

#include "model/backbone/rope.h"

namespace strata::model {

/**
 * Options of one forward pass. The defaults are a causal language model over unpadded
 * sequences with positions 0..T−1.
 */
struct AttentionOptions {
  /** false: every token attends to every (real) token — the bidirectional student of
   *  REPR-ALIGN. The weights are the same; only the mask changes. */
  bool causal = true;
  /** [B, T], nonzero (or true) for real tokens, zero for padding; left or right padding.
   *  Undefined: no padding. Real tokens never attend to padding; a padding token attends only
   *  to itself, so its (meaningless) hidden state stays finite. */
  at::Tensor paddingMask;
  /** [B, T] or [T] integer positions. Undefined: counted over real tokens (cumsum of
   *  paddingMask − 1, as Hugging Face's generate() does), so that a padded sequence gets the
   *  same hidden states as the same sequence unpadded; 0..T−1 when there is no mask. */
  at::Tensor positions;
};

/**
 * What Gemma-3's sliding-window layers read instead of PreparedAttention's mask, causal flag
 * and rotary tables: the window cut into the mask (masking_utils' sliding_window_overlay: a
 * query sees the `window` latest keys, its own included; bidirectional: |q − k| < window), and
 * the tables of the local RoPE base.
 */
struct SlidingAttention {
  at::Tensor mask;      ///< as PreparedAttention::mask, or undefined with `causal`
  bool causal = false;  ///< a sequence that fits in the window needs no cut: is_causal
  RopeTables rope;
};

/**
 * AttentionOptions resolved for one [B, T] batch: what every block of a pass over that batch
 * reads, built once (Backbone::prepare) rather than once per block or per runLayers() call.
 */
struct PreparedAttention {
  int64_t batch = 0;
  int64_t length = 0;
  /** Added to the scores: 0 where a query may see a key, −inf where not, [B|1, 1, T, T] in
   *  the compute dtype; undefined when every pair may attend (bidirectional, no padding) and
   *  when `causal` says it all. */
  at::Tensor mask;
  /** Causal over unpadded sequences: no mask tensor, and scaled-dot-product attention's
   *  is_causal instead, so that the flash / memory-efficient kernels may run. */
  bool causal = false;
  RopeTables rope;  ///< in the compute dtype; undefined for GPT-2 (learned positions)
  /** Gemma-3's sliding layers; all undefined for a model without them. */
  SlidingAttention sliding;
};

}  // namespace strata::model
