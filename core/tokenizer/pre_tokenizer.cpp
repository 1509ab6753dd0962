#include "tokenizer/pre_tokenizer.h"

#include "tokenizer/byte_level.h"

namespace strata::tokenizer {

namespace {

// Replaces every piece by the pieces `cut` makes of it; only the first sub-piece of a piece
// that began the input still begins it.
template <typename Cut>
void splitEach(std::vector<PreToken>& pieces, Cut cut) {
  std::vector<PreToken> result;
  result.reserve(pieces.size() * 2);
  for (PreToken& piece : pieces) {
    const size_t first = result.size();
    cut(piece, result);
    if (result.size() > first) result[first].atInputStart = piece.atInputStart;
  }
  pieces = std::move(result);
}

void appendSpans(std::string_view text, const std::vector<TextSpan>& spans,
                 std::vector<PreToken>& out) {
  for (const TextSpan& s : spans)
    out.push_back({std::string(text.substr(s.begin, s.end - s.begin))});
}

}  // namespace

void SplitPreTokenizer::apply(std::vector<PreToken>& pieces) const {
  splitEach(pieces, [this](const PreToken& piece, std::vector<PreToken>& out) {
    appendSpans(piece.text, splitText(piece.text, m_pattern, m_behavior, m_invert), out);
  });
}

ByteLevelPreTokenizer::ByteLevelPreTokenizer(bool addPrefixSpace, bool useRegex)
    : m_addPrefixSpace(addPrefixSpace),
      m_useRegex(useRegex),
      m_pattern(useRegex ? SplitPattern::regex(std::string(kGpt2Pattern)) : SplitPattern()) {}

void ByteLevelPreTokenizer::apply(std::vector<PreToken>& pieces) const {
  splitEach(pieces, [this](PreToken& piece, std::vector<PreToken>& out) {
    if (m_addPrefixSpace && (piece.text.empty() || piece.text.front() != ' '))
      piece.text.insert(piece.text.begin(), ' ');
    if (!m_useRegex) {
      out.push_back({byte_level::encode(piece.text)});
      return;
    }
    for (const TextSpan& s : splitText(piece.text, m_pattern, SplitBehavior::Isolated))
      out.push_back(
          {byte_level::encode(std::string_view(piece.text).substr(s.begin, s.end - s.begin))});
  });
}

MetaspacePreTokenizer::MetaspacePreTokenizer(std::string replacement, PrependScheme scheme,
                                             bool split)
    : m_replacement(std::move(replacement)),
      m_scheme(scheme),
      m_split(split),
      m_pattern(SplitPattern::literal(m_replacement)) {}

void MetaspacePreTokenizer::apply(std::vector<PreToken>& pieces) const {
  static const SplitPattern space = SplitPattern::literal(" ");
  splitEach(pieces, [this](const PreToken& piece, std::vector<PreToken>& out) {
    std::string text = space.replaceAll(piece.text, m_replacement);
    const bool startsWithReplacement = text.starts_with(m_replacement);
    // HF Metaspace: "always" prepends to every piece, "first" only to the piece at offset 0.
    if (!startsWithReplacement && (m_scheme == PrependScheme::Always ||
                                   (m_scheme == PrependScheme::First && piece.atInputStart)))
      text.insert(0, m_replacement);
    if (!m_split) {
      out.push_back({std::move(text)});
      return;
    }
    appendSpans(text, splitText(text, m_pattern, SplitBehavior::MergedWithNext), out);
  });
}

void SequencePreTokenizer::apply(std::vector<PreToken>& pieces) const {
  for (const auto& step : m_steps) step->apply(pieces);
}

}  // namespace strata::tokenizer
