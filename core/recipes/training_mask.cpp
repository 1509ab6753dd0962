// The training attention mask as a picture (see training_mask.h).

#include "recipes/training_mask.h"

#include <ATen/ATen.h>

#include "common/error.h"
#include "model/dcdm_masks.h"
#include "recipes/chunk_routing.h"

namespace strata {
namespace {

TrainingMaskPicture pictureOf(const std::string& variant, const std::vector<int64_t>& chunkIds) {
  TrainingMaskPicture picture;
  picture.variant = variant;
  picture.length = static_cast<int64_t>(chunkIds.size());
  picture.chunkIds = chunkIds;
  const at::Tensor ids = at::tensor(chunkIds, at::kLong).unsqueeze(0);
  const at::Tensor allowed = blockDiffusionAllowed(ids)[0].to(at::kByte).contiguous();
  const int64_t n = allowed.size(0);
  const uint8_t* data = allowed.data_ptr<uint8_t>();
  for (int64_t q = 0; q < n; ++q) picture.allowed.emplace_back(data + q * n, data + (q + 1) * n);
  return picture;
}

}  // namespace

TrainingMaskPicture positionalTrainingMask(const std::string& variant, int64_t length,
                                           int64_t blockSize) {
  const std::filesystem::path source = "the mask request";
  if (variant != "mdlm" && variant != "bdlm")
    throw ConfigError(source, "variant",
                      variant == "dcdm" ? "dcdm's chunks depend on the text: give a trained run and a text"
                                        : "must be mdlm, bdlm or dcdm, not '" + variant + "'");
  if (length < 1) throw ConfigError(source, "seq_len", "must be at least 1");
  if (blockSize < 1) throw ConfigError(source, "block_size", "must be at least 1");
  // The ids training uses: positionalChunkIds for bdlm, one chunk for mdlm.
  const at::Tensor ids = variant == "bdlm" ? positionalChunkIds(length, blockSize).contiguous()
                                           : at::zeros({length}, at::kLong);
  return pictureOf(variant, std::vector<int64_t>(ids.data_ptr<int64_t>(), ids.data_ptr<int64_t>() + length));
}

TrainingMaskPicture runTrainingMask(const std::filesystem::path& runFolder, const std::string& text,
                                    std::optional<int64_t> checkpointStep) {
  const ChunkRoutingReport routing = routeText(runFolder, text, checkpointStep);
  TrainingMaskPicture picture = pictureOf(routing.variant, routing.chunkIds);
  picture.tokenTexts = routing.tokenTexts;
  return picture;
}

}  // namespace strata
