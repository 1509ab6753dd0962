// Bridge windows from an activation store (see bridge_store_data.h).

#include "recipes/bridge/bridge_store_data.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>

#include "common/error.h"
#include "io/store/activation_store.h"
#include "recipes/corpus_tokens.h"

namespace strata::recipes {

namespace fs = std::filesystem;

namespace {

torch::Tensor layerTensor(const io::ActivationStore& store, int64_t layer, int64_t d) {
  std::vector<float> rows = store.readLayer(layer);
  return torch::from_blob(rows.data(), {static_cast<int64_t>(rows.size()) / d, d}, torch::kFloat)
      .clone();
}

}  // namespace

BridgeStoreData::BridgeStoreData(const fs::path& storePath, int64_t layer, int64_t hiddenSize,
                                 int64_t seqLen, double valFraction, const torch::Device& device)
    : m_seqLen(seqLen), m_device(device) {
  const io::ActivationStore store = io::ActivationStore::open(storePath);
  if (store.meta().hiddenSize != hiddenSize)
    throw FormatError(storePath, "holds hidden size " + std::to_string(store.meta().hiddenSize) +
                                     "; the source model has " + std::to_string(hiddenSize));
  for (const int64_t l : {int64_t{0}, layer})
    if (!store.layerComplete(l))
      throw FormatError(storePath, "has no complete layer " + std::to_string(l) +
                                       " (bridge targets from a store need layers 0 and l*)");
  const io::TokenTable& tokens = store.tokens();
  m_ids = torch::tensor(std::vector<int64_t>(tokens.ids.begin(), tokens.ids.end()), torch::kInt64);
  m_condition = layerTensor(store, 0, hiddenSize);
  m_target = layerTensor(store, layer, hiddenSize);

  // Windows: seqLen consecutive rows of one document at consecutive positions.
  std::vector<int64_t> starts;
  const auto n = static_cast<int64_t>(tokens.size());
  int64_t runStart = 0;
  for (int64_t row = 1; row <= n; ++row) {
    const bool continues =
        row < n &&
        tokens.doc[static_cast<size_t>(row)] == tokens.doc[static_cast<size_t>(row - 1)] &&
        tokens.position[static_cast<size_t>(row)] ==
            tokens.position[static_cast<size_t>(row - 1)] + 1;
    if (continues) continue;
    for (int64_t start = runStart; start + seqLen <= row; start += seqLen) starts.push_back(start);
    runStart = row;
  }
  if (starts.size() < 2)
    throw FormatError(storePath, "holds " + std::to_string(starts.size()) + " runs of " +
                                     std::to_string(seqLen) +
                                     " consecutive positions: too few for a "
                                     "training and a validation window (capture a longer --seq-len "
                                     "or more tokens)");
  const auto held =
      std::clamp<int64_t>(std::llround(valFraction * static_cast<double>(starts.size())), 1,
                          static_cast<int64_t>(starts.size()) - 1);
  m_train.assign(starts.begin(), starts.end() - held);
  m_val.assign(starts.end() - held, starts.end());
}

BridgeWindows BridgeStoreData::gather(const std::vector<int64_t>& startRows) const {
  std::vector<torch::Tensor> index;
  for (const int64_t start : startRows) index.push_back(torch::arange(start, start + m_seqLen));
  const torch::Tensor rows = torch::stack(index);  // [B, T]
  return {m_ids.index({rows}), m_condition.index({rows}).to(m_device),
          m_target.index({rows}).to(m_device)};
}

BridgeWindows BridgeStoreData::training(uint64_t seed, int64_t step, int64_t firstRow,
                                        int64_t rows) const {
  std::vector<int64_t> starts;
  for (int64_t r = 0; r < rows; ++r) {
    starts.push_back(m_train[seededDraw(seed, step, firstRow + r, m_train.size())]);
  }
  return gather(starts);
}

BridgeWindows BridgeStoreData::validation(int64_t first, int64_t rows) const {
  std::vector<int64_t> starts(m_val.begin() + first, m_val.begin() + first + rows);
  return gather(starts);
}

}  // namespace strata::recipes
