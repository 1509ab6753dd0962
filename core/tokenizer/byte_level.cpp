#include "tokenizer/byte_level.h"

#include <array>

#include "tokenizer/utf8_text.h"

namespace strata::tokenizer::byte_level {
namespace {

// The table is built once, exactly as bytes_to_unicode() builds it: printable Latin-1 bytes keep
// their value, the rest are numbered from 256 upwards in byte order.
struct Tables {
  std::array<char32_t, 256> codepoint{};
  std::array<std::string, 256> utf8{};
  std::array<int16_t, 256 + 68> byteOf{};  // highest code point used is U+0143

  Tables() {
    byteOf.fill(-1);
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
      codepoint[b] = printable ? static_cast<char32_t>(b) : next++;
      utf8[b] = utf8::encode(codepoint[b]);
      byteOf[codepoint[b]] = static_cast<int16_t>(b);
    }
  }
};

const Tables& tables() {
  static const Tables instance;
  return instance;
}

}  // namespace

char32_t codepointOfByte(uint8_t b) { return tables().codepoint[b]; }

std::optional<uint8_t> byteOfCodepoint(int32_t cp) {
  const Tables& t = tables();
  if (cp < 0 || static_cast<size_t>(cp) >= t.byteOf.size() || t.byteOf[cp] < 0) return std::nullopt;
  return static_cast<uint8_t>(t.byteOf[cp]);
}

void appendEncoded(std::string_view bytes, std::string& out) {
  const Tables& t = tables();
  for (const char c : bytes) out += t.utf8[static_cast<uint8_t>(c)];
}

std::string encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  appendEncoded(bytes, out);
  return out;
}

std::optional<std::string> decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t length = 0;
    const auto byte = byteOfCodepoint(utf8::decodeAt(text, pos, &length));
    if (!byte) return std::nullopt;
    out += static_cast<char>(*byte);
    pos += length;
  }
  return out;
}

}  // namespace strata::tokenizer::byte_level
