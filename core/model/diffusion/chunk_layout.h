#pragma once
// Which chunk every token of a sequence belongs to, and the routing quantities that go with it,
// for the three variants of the dcdm recipe (DESIGN.md "dcdm"): mdlm is one chunk, bdlm
// positional blocks, dcdm K content-defined chunks found by CHUNK-SEQUENTIAL ROUTING.
//
// Chunk-sequential routing (why: the router must not leak clean content into the noisy
// stream). Chunk membership is decided chunk by chunk, as the sampler decodes:
//   pass c = 0..K−1: the router reads the sequence in which every token already assigned to a
//   chunk < c shows its clean token and every other token is [MASK] (its position embedding
//   kept); among the still unassigned positions, those whose hard argmax (affinity + balance
//   bias) is <= c join chunk c; after pass K−1 every remaining position is in chunk K−1.
// So the members of chunk c, and every routing quantity used by chunk-c rows, depend only on
// the clean content of chunks < c — which chunk c's noisy tokens may read anyway under the
// block-diffusion mask (dcdm_masks.h). Leak-free by construction, and the sampler reproduces
// it exactly: when it decodes chunk c, chunks < c are clean, which is all pass c reads.
//
// Soft path: row l of the order bias log P(c_m <= c_l) (chunkRelationLogProbability, AtMost;
// both its noisy and its clean copy) uses the soft assignments p of the pass that assigned l,
// for l and for every key m alike. The balance loss and the loads see each token's affinity
// row from the pass that assigned it.
//
// K router passes are cheap (one context head and K·h projections each).
// Pure functions of their inputs (the router's balance bias included); no RNG.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <functional>

#include "model/diffusion/chunk_router.h"

namespace strata::model {

struct ChunkLayout {
  at::Tensor ids;          ///< c [B, T] int64
  int64_t chunks = 1;      ///< chunk slots, one noise level each: K, ⌈T/B⌉ or 1
  at::Tensor affinity;     ///< dcdm: a [B, T, K], row l from the pass that assigned l
  at::Tensor assignments;  ///< dcdm: p [B, T, K], the same rows (differentiable)
  at::Tensor orderBias;    ///< dcdm: [B, T, T] log P(c_m <= c_l), row l from pass c_l
};

/** Given ids [B, T] in [0, chunks), no routing quantities (no soft bias). */
ChunkLayout fixedChunkLayout(const at::Tensor& ids, int64_t chunks);

/** BDLM: block position / blockSize for every sequence, ⌈length / blockSize⌉ slots. */
ChunkLayout positionalChunkLayout(int64_t batch, int64_t length, int64_t blockSize);

/** Token ids [B, T] → the router's input embeddings [B, T, d] (token + position). */
using TokenEmbedder = std::function<at::Tensor(const at::Tensor& ids)>;

/** Chunk-sequential routing (header) of clean tokens x0 [B, T] with the router's K chunks.
 *  pinned [B, T] bool (may be undefined): positions placed in chunk 0 before pass 0 — the
 *  sampler's prompt; like every chunk-0 token they are [MASK] in pass 0's input. */
ChunkLayout routeChunkSequentially(ChunkRouterImpl& router, const TokenEmbedder& embed,
                                   const at::Tensor& x0, int64_t maskId,
                                   const at::Tensor& pinned = {});

}  // namespace strata::model
