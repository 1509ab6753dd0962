#pragma once
// GPT-2's reversible map between the 256 byte values and 256 printable characters, so that any
// byte string becomes a string of "visible" characters that a BPE vocabulary can hold
// (openai/gpt-2 encoder.py bytes_to_unicode; HF tokenizers pre_tokenizers/byte_level.rs).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace strata::tokenizer::byte_level {

/** The code point that stands for byte `b`: 33–126, 161–172, 174–255 map to themselves; the
 *  other 68 bytes map, in order, to U+0100 onwards (space → U+0120 'Ġ', newline → U+010A 'Ċ'). */
char32_t codepointOfByte(uint8_t b);

/** The byte that code point `cp` stands for, or std::nullopt when it is not one of the 256. */
std::optional<uint8_t> byteOfCodepoint(int32_t cp);

/** Appends the byte-level form of `bytes` (each byte replaced by its character) to `out`. */
void appendEncoded(std::string_view bytes, std::string& out);

/** The byte-level form of `bytes`: the form in which byte-level vocabularies store tokens. */
std::string encode(std::string_view bytes);

/** Inverse of encode(); std::nullopt when some character is not one of the 256. */
std::optional<std::string> decode(std::string_view text);

}  // namespace strata::tokenizer::byte_level
