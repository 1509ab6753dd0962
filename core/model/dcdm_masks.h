#pragma once
// Attention masks of the chunked masked-diffusion LMs (DESIGN.md "dcdm"): MDLM, BDLM and DCDM
// differ only in the chunk ids c_l they pass here. Chunks are ordered by id (chunk 0 first);
// generation decodes one chunk after another, so a token may look at its own chunk and at
// earlier ones, never at later ones.
//
// Training runs two streams over the concatenated input [x_t ; x_0] (BD3-LM's x_t ⊕ x_0,
// Arriola et al. 2025, with positional blocks generalised to arbitrary chunk ids). With
// q = query position, k = key position (both in 0..T−1 inside their stream):
//   noisy q → noisy k   iff c_k == c_q                       (own chunk, bidirectional)
//   noisy q → clean k   iff c_k <  c_q and k is not masked   (earlier chunks, clean tokens only)
//   clean q → noisy k   never
//   clean q → clean k   iff (c_k <= c_q and k is not masked) or k == q
// Invariant (the "no leakage" test): nothing a masked position's prediction depends on carries
// the clean token of any masked position — its own or another's, directly or through the clean
// stream — because the only clean keys anyone reads are unmasked ones, and a masked clean
// query (kept so that no row is empty) is read by nobody but itself.
// This is stricter than BD3-LM, whose noisy block sees every clean token of earlier blocks:
// here masked positions of earlier chunks are simply absent from the context, whereas at
// sampling time earlier chunks are fully decoded.
//
// Special cases: MDLM = all ids equal (the noisy stream sees every noisy token and no clean
// one, so the clean stream is irrelevant); BDLM = positionalChunkIds(T, B).
//
// Masks are additive: float32 0 where attention is allowed and −inf where not, shaped
// [B, 1, Tq, Tk] to broadcast over heads; every row has at least one 0 (the diagonal).
// Pure functions; the result lives on the device of `ids`.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace strata {

/** Chunk ids position / blockSize, shaped [length] (int64, CPU): BDLM's positional blocks. */
at::Tensor positionalChunkIds(int64_t length, int64_t blockSize);

/** Single stream (sampling, and the clean stream's rule without the noise mask): query l
 *  attends key m iff c_m <= c_l. ids [B, T] integer → [B, 1, T, T]. */
at::Tensor chunkCausalMask(const at::Tensor& ids);

/** The 2T×2T mask of the dual stream [x_t ; x_0] under the rules above. ids [B, T] integer,
 *  noised [B, T] bool (true = masked in x_t) → [B, 1, 2T, 2T]. */
at::Tensor dualStreamMask(const at::Tensor& ids, const at::Tensor& noised);

/** 0 where `allowed` (bool) is true, −inf elsewhere, as float32. */
at::Tensor additiveMask(const at::Tensor& allowed);

}  // namespace strata
