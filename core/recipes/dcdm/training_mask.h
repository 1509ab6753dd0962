#pragma once
// The attention mask a masked diffusion LM of the dcdm recipe trains with, as a picture: the
// 2L×2L 0/1 matrix of the dual stream [x_t ; x_0] (row = query, column = key, 1 = the row may
// attend the column; noisy rows and columns first) and every position's chunk id. mdlm and
// bdlm need only L (and B); dcdm's chunks depend on the content, so it needs a trained run and
// a text, routed exactly as training routes its clean tokens (model/diffusion/chunk_layout.h).
// `strata-cli mask` prints it; a GUI view can draw it. No torch here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/diffusion/dlm_variant.h"

namespace strata::recipes {

struct TrainingMaskPicture {
  model::DlmVariant variant = model::DlmVariant::Mdlm;
  int64_t length = 0;                         ///< L
  std::vector<int64_t> chunkIds;              ///< [L]
  std::vector<std::vector<uint8_t>> allowed;  ///< [2L][2L], order noisy then clean
  std::vector<std::string> tokenTexts;        ///< a run's text, one entry per token; else empty
};

/** The 2L×2L 0/1 rows (noisy then clean; 1 = the row may attend the column) of the block
 *  diffusion mask for these chunk ids (model/diffusion/dcdm_masks.h's blockDiffusionAllowed). */
std::vector<std::vector<uint8_t>> trainingMaskRows(const std::vector<int64_t>& chunkIds);

/** mdlm (one chunk) or bdlm (positional blocks of blockSize) of length L. Throws ConfigError
 *  for another variant, L < 1 or blockSize < 1. */
TrainingMaskPicture positionalTrainingMask(model::DlmVariant variant, int64_t length,
                                           int64_t blockSize);

/** The mask of `text` (encoded with the run's tokenizer, specials added, cut to the model's
 *  positions) under the trained run's variant and weights (dcdm: chunk-sequential routing). */
TrainingMaskPicture runTrainingMask(const std::filesystem::path& runFolder, const std::string& text,
                                    std::optional<int64_t> checkpointStep = std::nullopt);

}  // namespace strata::recipes
