#pragma once
// The normalizer, pre-tokenizer and decoder sections of an HF tokenizer.json. Each parser takes
// the section's JSON value and its key path; an unsupported "type" or a malformed field throws
// FormatError naming the file and the key.

#include <memory>
#include <string>

#include "tokenizer/decoder.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"

namespace strata::tokenizer {

/** Null JSON gives a null pointer (no normalizer). */
std::unique_ptr<Normalizer> parseNormalizer(const JsonFields& fields, const Json& value,
                                            const std::string& path);
std::unique_ptr<PreTokenizer> parsePreTokenizer(const JsonFields& fields, const Json& value,
                                                const std::string& path);
std::unique_ptr<Decoder> parseDecoder(const JsonFields& fields, const Json& value,
                                      const std::string& path);

}  // namespace strata::tokenizer
