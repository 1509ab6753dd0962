#pragma once
// Comparisons of a tokenizer converted from a GGUF (core/io/gguf/gguf_tokenizer) with what
// transformers built from the same file (tests/python/gguf_tokenizer_reference.py). Each adds
// gtest failures that name the section, the text, and where Strata and transformers part.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/tokenizer.h"

namespace strata::testing {

/** Strata's tokenizer.json text against transformers' saved file, field by field: every
 *  top-level section, every model option, the vocabulary, the merges in order (either
 *  serialization), the added tokens with their flags. */
void expectSameTokenizerJson(const std::string& ours, const std::filesystem::path& theirs);

/** tokenizer_config.json's bos/eos/unk/pad/mask names and add_bos_token / add_eos_token
 *  against the reference's "special" record. */
void expectSameSpecialTokens(const std::string& oursConfig, const nlohmann::json& reference);

/** For every text of the reference: encode(text, true) against tokenizer(text), encode(text)
 *  against the ids without special tokens, decode and decode skipping special tokens against
 *  transformers' decodes. Prints the counts compared per kind of text. */
void expectSameEncodings(const tokenizer::Tokenizer& tokenizer, const nlohmann::json& reference,
                         const std::string& name);

}  // namespace strata::testing
