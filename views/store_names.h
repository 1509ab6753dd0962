#pragma once
// How tabs and the project dock name an activation store: by what it holds — the model and the
// corpus from its /meta — not by its file name, which for captures Strata names carries content
// hashes. The full path stays in the tooltip.

#include <QString>

#include "display_text.h"
#include "io/store/activation_store.h"

namespace strata {

/**
 * "SmolLM2-135M-Instruct.Q4_1 · wikitext2-valid.txt": the model folder's displayName and the
 * corpus's name (/meta@corpus_name). A store captured before the corpus name was recorded, or
 * without `meta`, keeps displayName(storeFile).
 */
inline QString storeDisplayName(const QString& storeFile, const io::StoreMeta* meta) {
  if (meta == nullptr) return displayName(storeFile);
  const auto corpus = meta->extra.find("corpus_name");
  if (corpus == meta->extra.end() || corpus->second.empty() || meta->modelId.empty())
    return displayName(storeFile);
  return displayName(toQString(meta->modelId)) + QStringLiteral(" · ") +
         QString::fromStdString(corpus->second);
}

}  // namespace strata
