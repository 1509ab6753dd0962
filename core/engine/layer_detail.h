#pragma once
// LayerDetail: what the workbench's layer detail tab shows of one layer of an activation store,
// copied out (readLayerDetail) so the store can be closed: the layer's geometry, its principal
// plane, and per stored row the token id, document, position, norm and text. No Qt and no torch.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "geometry/layer_geometry.h"
#include "geometry/pca.h"

namespace strata::engine {

struct LayerDetail {
  std::filesystem::path storeFile;
  int64_t hiddenSize = 0;            // d
  geometry::LayerGeometry geometry;  // proxies, intervals, spectrum, local λ_max
  geometry::PrincipalPlane plane;    // N×2 coordinates and explained shares
  std::vector<int32_t> tokenIds;     // one per row, as the store's /tokens
  std::vector<int32_t> positions;    // the token's index in its document (−1: a BOS)
  std::vector<int32_t> documents;    // the document's index in the corpus
  /** Each row's ‖h‖₂ as stored (before any centring or normalisation): massive activations
   *  (Sun et al. 2024) stand out here. Empty for a LayerDetail made without rows. */
  std::vector<float> norms;
  /** Each row's token decoded alone (raw bytes, possibly partial UTF-8); empty when the model's
   *  tokenizer could not be loaded (tokenTextNote says why). */
  std::vector<std::string> tokenTexts;
  std::string tokenTextNote;  ///< UTF-8; empty when every row has its text
};

/**
 * Reads `geometry.layer` of the store, projects its rows on their principal plane and decodes
 * every row's token with the tokenizer of the store's model folder (/meta model_id, the folder
 * capture read). A missing or unreadable tokenizer is no error: the texts stay empty and
 * tokenTextNote names the folder and the reason. Blocking I/O and an N×d covariance: call from
 * a job. Throws strata::Error for the store.
 */
LayerDetail readLayerDetail(const std::filesystem::path& storeFile,
                            const geometry::LayerGeometry& geometry);

}  // namespace strata::engine
