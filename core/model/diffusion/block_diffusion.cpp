// Block diffusion over chunks: one batch (see block_diffusion.h).

#include "model/diffusion/block_diffusion.h"

namespace strata::model {

BlockDiffusionBatch blockDiffusionBatch(DcdmTransformerImpl& model,
                                        const MaskedDiffusion& diffusion, const torch::Tensor& x0,
                                        std::optional<at::Generator> generator,
                                        std::optional<ChunkLayout> layout) {
  // The layout first: chunk membership comes from clean content only, so the per-chunk noise
  // levels can be drawn afterwards (for dcdm, before the chunks exist there is nothing to draw).
  ChunkLayout chunks = layout ? std::move(*layout) : model.chunkLayout(x0);
  const torch::Tensor t = diffusion.sampleChunkTimes(chunks.ids, chunks.chunks,
                                                     x0.options().dtype(torch::kFloat), generator);
  const torch::Tensor noised = diffusion.sampleNoiseMask(x0, t, generator);
  return blockDiffusionAt(model, diffusion, x0, std::move(chunks), t, noised);
}

BlockDiffusionBatch blockDiffusionAt(DcdmTransformerImpl& model, const MaskedDiffusion& diffusion,
                                     const torch::Tensor& x0, ChunkLayout layout,
                                     const torch::Tensor& t, const torch::Tensor& noised) {
  BlockDiffusionBatch batch;
  batch.layout = std::move(layout);
  batch.t = t;
  batch.noised = noised;
  batch.xt = applyMask(x0, batch.noised, model.config().maskId());
  batch.logits = model.forwardTraining(batch.xt, x0, batch.layout);
  batch.loss =
      maskedDiffusionLoss(diffusion, batch.logits, x0, batch.noised, batch.t, model.config().vocab);
  return batch;
}

}  // namespace strata::model
