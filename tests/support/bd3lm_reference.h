#pragma once
// BD3-LM's block_diff_mask (Arriola et al. 2025, public bd3lms code, models/dit.py), written
// from the paper element by element — deliberately not vectorised and not shared with the
// product — so tests can compare Strata's bdlm training mask against it. The dual stream has n
// tokens of x_t then n of x_0; q_idx and kv_idx lie in [0, 2n); true = q may attend kv.

#include <cstdint>

namespace strata::testing {

inline bool bd3lmBlockDiffMask(int64_t qIdx, int64_t kvIdx, int64_t blockSize, int64_t n) {
  const bool x0FlagQ = qIdx >= n, x0FlagKv = kvIdx >= n;
  const int64_t blockQ = x0FlagQ ? (qIdx - n) / blockSize : qIdx / blockSize;
  const int64_t blockKv = x0FlagKv ? (kvIdx - n) / blockSize : kvIdx / blockSize;
  const bool blockDiagonal = blockQ == blockKv && x0FlagQ == x0FlagKv;      // M_BD
  const bool offsetBlockCausal = blockQ > blockKv && x0FlagKv && !x0FlagQ;  // M_OBC
  const bool blockCausal = blockQ >= blockKv && x0FlagKv && x0FlagQ;        // M_BC
  return blockDiagonal || offsetBlockCausal || blockCausal;
}

}  // namespace strata::testing
