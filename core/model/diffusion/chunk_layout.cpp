// Chunk layouts and chunk-sequential routing (see chunk_layout.h).

#include "model/diffusion/chunk_layout.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/diffusion/dcdm_masks.h"

namespace strata::model {

ChunkLayout fixedChunkLayout(const torch::Tensor& ids, int64_t chunks) {
  if (!ids.defined() || ids.dim() != 2 || chunks < 1)
    throw std::invalid_argument("a chunk layout needs ids [B, T] and at least one chunk");
  if (ids.numel() > 0 && (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() >= chunks))
    throw std::invalid_argument("chunk ids must lie in [0, " + std::to_string(chunks) + ")");
  ChunkLayout layout;
  layout.ids = ids.to(torch::kLong);
  layout.chunks = chunks;
  return layout;
}

ChunkLayout positionalChunkLayout(int64_t batch, int64_t length, int64_t blockSize) {
  const torch::Tensor ids =
      positionalChunkIds(length, blockSize).unsqueeze(0).expand({batch, length}).contiguous();
  return fixedChunkLayout(ids, std::max<int64_t>(1, (length + blockSize - 1) / blockSize));
}

ChunkLayout routeChunkSequentially(ChunkRouterImpl& router, const TokenEmbedder& embed,
                                   const torch::Tensor& x0, int64_t maskId,
                                   const torch::Tensor& pinned) {
  if (!x0.defined() || x0.dim() != 2)
    throw std::invalid_argument("chunk-sequential routing needs token ids [B, T]");
  const int64_t chunks = router.config().chunks;
  const torch::Tensor tokens = x0.to(torch::kLong);
  torch::Tensor assigned = torch::full(tokens.sizes(), -1, tokens.options());  // −1 = open
  if (pinned.defined())
    assigned = assigned.masked_fill(pinned.to(tokens.device(), torch::kBool), 0);
  const torch::Tensor masks = torch::full_like(tokens, maskId);
  std::vector<torch::Tensor> affinities, assignments, relations;
  for (int64_t c = 0; c < chunks; ++c) {
    // Pass c reads the clean tokens of chunks < c only; everything else is [MASK].
    const torch::Tensor visible = assigned.ge(0) & assigned.lt(c);
    const ChunkRouting routing = router.forward(embed(torch::where(visible, tokens, masks)));
    const torch::Tensor open = assigned.lt(0);
    const torch::Tensor joins = c + 1 < chunks ? open & routing.ids.le(c) : open;
    assigned = assigned.masked_fill(joins, c);
    affinities.push_back(routing.affinity);
    assignments.push_back(routing.assignments);
    relations.push_back(chunkRelationLogProbability(routing.assignments, ChunkRelation::AtMost));
    if (!assigned.lt(0).any().item<bool>()) break;  // later passes would assign nobody
  }
  // Row l of every routing quantity comes from the pass that assigned l (pass c_l).
  const auto fromAssigningPass = [&](const std::vector<torch::Tensor>& perPass) {
    const torch::Tensor stacked = torch::stack(perPass);  // [P, B, T, X]
    const torch::Tensor index = assigned.unsqueeze(0).unsqueeze(-1).expand(
        {1, stacked.size(1), stacked.size(2), stacked.size(3)});
    return stacked.gather(0, index).squeeze(0);
  };
  ChunkLayout layout;
  layout.ids = assigned;
  layout.chunks = chunks;
  layout.affinity = fromAssigningPass(affinities);
  layout.assignments = fromAssigningPass(assignments);
  layout.orderBias = fromAssigningPass(relations);
  return layout;
}

}  // namespace strata::model
