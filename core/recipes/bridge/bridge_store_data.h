#pragma once
// Bridge targets read from an activation store instead of computed by the source model: the
// store keeps h_0 (the condition) and h_{l*} (the target) of runs of consecutive positions of
// sampled sequences, so windows of seq_len consecutive stored rows of one document are
// training examples as they are. The BOS position a capture skips is not in the store, so
// these windows start after it (the upper stack then also sees them without it).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <filesystem>
#include <vector>

namespace strata::recipes {

struct BridgeWindows {
  at::Tensor ids;        ///< [B, T] int64
  at::Tensor condition;  ///< [B, T, d] h_0
  at::Tensor target;     ///< [B, T, d] h_{l*}
  /// Leading positions the bridge does not model. 1 for windows cut from a token stream: their
  /// position 0 starts a context, so it is the source model's attention sink (a huge-norm state
  /// that depends on token 0 alone; the capture's geometry and store skip it too), and the
  /// source model computes it itself. 0 for store windows: they start after the skipped BOS.
  int64_t exactPositions = 0;
  at::Tensor modelledCondition() const { return condition.slice(1, exactPositions); }
  at::Tensor modelledTarget() const { return target.slice(1, exactPositions); }
};

class BridgeStoreData {
 public:
  /** Reads layers 0 and `layer` of `store` (FormatError when either is missing or the hidden
   *  size is not `hiddenSize`); cuts non-overlapping windows of seqLen rows; the last
   *  valFraction of them (at least one) are held out. */
  BridgeStoreData(const std::filesystem::path& store, int64_t layer, int64_t hiddenSize,
                  int64_t seqLen, double valFraction, const at::Device& device);

  int64_t trainWindows() const { return static_cast<int64_t>(m_train.size()); }
  int64_t valWindows() const { return static_cast<int64_t>(m_val.size()); }
  /** Training rows of a micro-batch: window SplitMix64(seed, step, row) mod trainWindows(). */
  BridgeWindows training(uint64_t seed, int64_t step, int64_t firstRow, int64_t rows) const;
  /** Held-out windows [first, first + rows). */
  BridgeWindows validation(int64_t first, int64_t rows) const;

 private:
  BridgeWindows gather(const std::vector<int64_t>& startRows) const;
  at::Tensor m_ids, m_condition, m_target;  // every stored row: [N], [N, d], [N, d]
  std::vector<int64_t> m_train, m_val;      // first row of each window
  int64_t m_seqLen;
  at::Device m_device;
};

}  // namespace strata::recipes
