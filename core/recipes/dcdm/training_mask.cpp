// The training attention mask as a picture (see training_mask.h).

#include "recipes/dcdm/training_mask.h"

#include <ATen/ATen.h>

#include "common/error.h"
#include "model/diffusion/dcdm_masks.h"
#include "recipes/dcdm/chunk_routing.h"

namespace strata::recipes {

std::vector<std::vector<uint8_t>> trainingMaskRows(const std::vector<int64_t>& chunkIds) {
  const at::Tensor ids = at::tensor(chunkIds, at::kLong).unsqueeze(0);
  const at::Tensor allowed = model::blockDiffusionAllowed(ids)[0].to(at::kByte).contiguous();
  const int64_t n = allowed.size(0);
  const uint8_t* data = allowed.data_ptr<uint8_t>();
  std::vector<std::vector<uint8_t>> rows;
  rows.reserve(static_cast<size_t>(n));
  for (int64_t q = 0; q < n; ++q) rows.emplace_back(data + q * n, data + (q + 1) * n);
  return rows;
}

namespace {

TrainingMaskPicture pictureOf(model::DlmVariant variant, const std::vector<int64_t>& chunkIds) {
  TrainingMaskPicture picture;
  picture.variant = variant;
  picture.length = static_cast<int64_t>(chunkIds.size());
  picture.chunkIds = chunkIds;
  picture.allowed = trainingMaskRows(chunkIds);
  return picture;
}

}  // namespace

TrainingMaskPicture positionalTrainingMask(model::DlmVariant variant, int64_t length,
                                           int64_t blockSize) {
  const std::filesystem::path source = "the mask request";
  if (variant == model::DlmVariant::Dcdm)
    throw ConfigError(source, "variant",
                      "dcdm's chunks depend on the text: give a trained run and a text");
  if (length < 1) throw ConfigError(source, "seq_len", "must be at least 1");
  if (blockSize < 1) throw ConfigError(source, "block_size", "must be at least 1");
  // The ids training uses: positionalChunkIds for bdlm, one chunk for mdlm.
  const at::Tensor ids = variant == model::DlmVariant::Bdlm
                             ? model::positionalChunkIds(length, blockSize).contiguous()
                             : at::zeros({length}, at::kLong);
  return pictureOf(variant,
                   std::vector<int64_t>(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + length));
}

TrainingMaskPicture runTrainingMask(const std::filesystem::path& runFolder, const std::string& text,
                                    std::optional<int64_t> checkpointStep) {
  ChunkRoutingReport routing = routeText(runFolder, text, checkpointStep);
  TrainingMaskPicture picture;
  picture.variant = routing.variant;
  picture.length = static_cast<int64_t>(routing.chunkIds.size());
  picture.chunkIds = routing.chunkIds;
  picture.allowed = std::move(routing.trainingMask);
  picture.tokenTexts = routing.tokenTexts;
  return picture;
}

}  // namespace strata::recipes
