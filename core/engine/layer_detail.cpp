#include "engine/layer_detail.h"

#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <unordered_map>

#include "geometry/scatter_outliers.h"
#include "io/store/activation_store.h"
#include "tokenizer/tokenizer.h"

namespace strata::engine {

namespace {

/** Every row's token text, decoded once per distinct id; `note` says why when there are none. */
std::vector<std::string> decodeRows(const io::StoreMeta& meta, const std::vector<int32_t>& ids,
                                    std::string& note) {
  const std::filesystem::path folder(meta.modelId);
  std::error_code error;
  if (meta.modelId.empty() || !std::filesystem::is_directory(folder, error)) {
    note = "token text unavailable: the store's model folder “" + meta.modelId + "” is not there";
    return {};
  }
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  try {
    tokenizer = tokenizer::loadTokenizer(folder);
  } catch (const std::exception& e) {
    note = std::string("token text unavailable: ") + e.what();
    return {};
  }
  std::unordered_map<int32_t, std::string> decoded;
  std::vector<std::string> texts;
  texts.reserve(ids.size());
  for (const int32_t id : ids) {
    auto found = decoded.find(id);
    if (found == decoded.end()) {
      std::string text;
      try {
        text = tokenizer->decode(std::span<const int32_t>(&id, 1), false);
      } catch (const std::out_of_range&) {  // an id the tokenizer does not know
        text = "⟨" + std::to_string(id) + "⟩";
      }
      found = decoded.emplace(id, std::move(text)).first;
    }
    texts.push_back(found->second);
  }
  return texts;
}

}  // namespace

LayerDetail readLayerDetail(const std::filesystem::path& storeFile,
                            const geometry::LayerGeometry& geometry) {
  const io::ActivationStore store = io::ActivationStore::open(storeFile);
  const std::vector<float> rows = store.readLayer(geometry.layer);
  LayerDetail detail;
  detail.storeFile = storeFile;
  detail.hiddenSize = store.meta().hiddenSize;
  detail.geometry = geometry;
  const geometry::HiddenStates states{rows.data(), store.numTokens(), detail.hiddenSize};
  detail.plane = geometry::projectOnPrincipalPlane(states);
  detail.norms = geometry::rowNorms(states);
  detail.tokenIds = store.tokens().ids;
  detail.positions = store.tokens().position;
  detail.documents = store.tokens().doc;
  detail.tokenTexts = decodeRows(store.meta(), detail.tokenIds, detail.tokenTextNote);
  return detail;
}

}  // namespace strata::engine
