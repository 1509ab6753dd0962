#pragma once
// Attention masks of the chunked masked-diffusion LMs (DESIGN.md "dcdm"): MDLM, BDLM and DCDM
// differ only in the chunk ids c_l they pass here. Chunks are ordered by id (chunk 0 first);
// generation decodes one chunk after another, so a token may look at its own chunk and at
// earlier ones, never at later ones.
//
// Training is block diffusion (BD3-LM, Arriola et al. 2025, `block_diff_mask` of the public
// bd3lms code) with positional blocks generalised to arbitrary chunk ids. Two streams run over
// the concatenated input [x_t ; x_0] (2T tokens, noisy first). With q = query position and
// k = key position (both in 0..T−1 inside their stream):
//   noisy q → noisy k   iff c_k == c_q   (own chunk, bidirectional: BD3-LM's block diagonal)
//   noisy q → clean k   iff c_k <  c_q   (every clean token of every earlier chunk: BD3-LM's
//                                         offset block-causal term)
//   clean q → noisy k   never
//   clean q → clean k   iff c_k <= c_q   (chunk-causal, own chunk included: block-causal)
// Invariant (the "no leakage" tests): no noisy query reaches, through any number of layers, a
// clean token of its own chunk or of a later one — a clean key of chunk c_k < c_q only ever
// reads clean keys of chunks <= c_k. So the prediction of a masked token of chunk c depends on
// x_t of chunk c and on x_0 of chunks < c: exactly the state the sampler decodes chunk c from.
// There is one noise level per chunk (masked_diffusion.h, sampleChunkTimes), as BD3-LM has one
// per block.
//
// Special cases: MDLM = all ids equal (the noisy stream sees every noisy token and no clean
// one, so the clean stream is irrelevant); BDLM = positionalChunkIds(T, B).
//
// Masks are additive: float32 0 where attention is allowed and −inf where not, shaped
// [B, 1, Tq, Tk] to broadcast over heads; every row has at least one 0 (the diagonal).
// Pure functions; the result lives on the device of `ids`.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace strata::model {

/** Chunk ids position / blockSize, shaped [length] (int64, CPU): BDLM's positional blocks. */
at::Tensor positionalChunkIds(int64_t length, int64_t blockSize);

/** Single stream (sampling): query l attends key m iff c_m <= c_l. ids [B, T] integer →
 *  [B, 1, T, T]. */
at::Tensor chunkCausalMask(const at::Tensor& ids);

/** Which pairs of the dual stream [x_t ; x_0] may attend under the rules above: ids [B, T]
 *  integer → bool [B, 2T, 2T] (row = query, column = key, true = may attend). */
at::Tensor blockDiffusionAllowed(const at::Tensor& ids);

/** blockDiffusionAllowed as an additive mask [B, 1, 2T, 2T]: what training attends with. */
at::Tensor blockDiffusionMask(const at::Tensor& ids);

/** 0 where `allowed` (bool) is true, −inf elsewhere, as float32. */
at::Tensor additiveMask(const at::Tensor& allowed);

}  // namespace strata::model
