#include "tokenizer/decoder.h"

#include "tokenizer/byte_level.h"

namespace strata::tokenizer {

int byteFallbackValue(std::string_view token) {
  // HF ByteFallback: len 6, "<0x" + two hex digits (either case) + ">".
  if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return -1;
  int value = 0;
  for (const char c : token.substr(3, 2)) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

void ByteLevelDecoder::decodeChain(std::vector<std::string>& tokens) const {
  std::string bytes;
  for (const std::string& token : tokens) {
    // HF: a token with a character outside the byte map contributes its own UTF-8 bytes.
    if (auto decoded = byte_level::decode(token))
      bytes += *decoded;
    else
      bytes += token;
  }
  tokens.assign(1, std::move(bytes));
}

void MetaspaceDecoder::decodeChain(std::vector<std::string>& tokens) const {
  // HF drops every "▁" of the first token, not only a leading one.
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] =
        m_pattern.replaceAll(tokens[i], i == 0 && m_scheme != PrependScheme::Never ? "" : " ");
}

void ByteFallbackDecoder::decodeChain(std::vector<std::string>& tokens) const {
  std::vector<std::string> result;
  result.reserve(tokens.size());
  std::string pendingBytes;
  bool pending = false;
  for (std::string& token : tokens) {
    const int byte = byteFallbackValue(token);
    if (byte >= 0) {
      pendingBytes += static_cast<char>(byte);
      pending = true;
      continue;
    }
    if (pending) result.push_back(std::move(pendingBytes));
    pendingBytes.clear();
    pending = false;
    result.push_back(std::move(token));
  }
  if (pending) result.push_back(std::move(pendingBytes));
  tokens = std::move(result);
}

void FuseDecoder::decodeChain(std::vector<std::string>& tokens) const {
  std::string joined;
  for (const std::string& token : tokens) joined += token;
  tokens.assign(1, std::move(joined));
}

void StripDecoder::decodeChain(std::vector<std::string>& tokens) const {
  if (m_content.empty()) return;
  for (std::string& token : tokens) {
    std::string_view view = token;
    for (size_t i = 0; i < m_start && view.starts_with(m_content); ++i)
      view.remove_prefix(m_content.size());
    for (size_t i = 0; i < m_stop && view.ends_with(m_content); ++i)
      view.remove_suffix(m_content.size());
    token = std::string(view);
  }
}

void ReplaceDecoder::decodeChain(std::vector<std::string>& tokens) const {
  for (std::string& token : tokens) token = m_pattern.replaceAll(token, m_content);
}

void SequenceDecoder::decodeChain(std::vector<std::string>& tokens) const {
  for (const auto& step : m_steps) step->decodeChain(tokens);
}

}  // namespace strata::tokenizer
