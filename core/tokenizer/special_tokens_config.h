#pragma once
// Which tokens are BOS, EOS, PAD, UNK and MASK. tokenizer.json does not say; HF reads it from
// tokenizer_config.json (or special_tokens_map.json) next to it. Where neither names a role,
// the usual spellings of the supported families are tried.

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/added_vocabulary.h"
#include "tokenizer/tokenizer.h"

namespace strata::tokenizer {

/** What the configuration files next to a tokenizer say. */
struct TokenizerConfig {
  /** Per role: absent = not mentioned; present but empty optional = explicitly null. */
  std::optional<std::optional<std::string>> bos, eos, pad, unk, mask;
  /** tokenizer_config.json "add_bos_token" when it is a boolean (HF's switch for whether
   *  encoding starts with BOS); absent otherwise. */
  std::optional<bool> addBosToken;
  /** tokenizer_config.json "added_tokens_decoder" (used for vocab.json + merges.txt folders). */
  std::vector<AddedToken> addedTokens;
};

/** Reads tokenizer_config.json, then special_tokens_map.json for roles still unnamed, from
 *  `folder`; missing files are fine, malformed ones throw FormatError. */
TokenizerConfig readTokenizerConfig(const std::filesystem::path& folder);

/** Resolves roles to ids: the configured name when the config names one (a name that is not in
 *  the vocabulary leaves the role empty, as there is no id to give it), otherwise the
 *  fallback, otherwise the first of the family spellings that exists. */
SpecialTokenIds resolveSpecialTokens(
    const TokenizerConfig& config,
    const std::function<std::optional<int32_t>(std::string_view)>& lookUp,
    const SpecialTokenIds& fallback);

}  // namespace strata::tokenizer
