#include "tokenizer/split_pattern.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <stdexcept>

#include "tokenizer/utf8_text.h"

namespace strata::tokenizer {

struct SplitPattern::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

namespace {

// PCRE2's JIT runs on its own stack, 32 KiB by default; a long run of whitespace against
// `\s+(?!\S)` can need more. One larger stack and match context per thread, made on first use.
struct ThreadMatchContext {
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  ThreadMatchContext() {
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
    if (context != nullptr && stack != nullptr) pcre2_jit_stack_assign(context, nullptr, stack);
  }
  ~ThreadMatchContext() {
    pcre2_jit_stack_free(stack);
    pcre2_match_context_free(context);
  }
};

pcre2_match_context* threadMatchContext() {
  thread_local ThreadMatchContext instance;
  return instance.context;
}

struct MatchData {
  pcre2_match_data* data;
  explicit MatchData(const pcre2_code* code)
      : data(pcre2_match_data_create_from_pattern(code, nullptr)) {
    if (data == nullptr) throw std::bad_alloc();
  }
  ~MatchData() { pcre2_match_data_free(data); }
  MatchData(const MatchData&) = delete;
  MatchData& operator=(const MatchData&) = delete;
};

std::string pcre2Message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof buffer);
  return reinterpret_cast<const char*>(buffer);
}

}  // namespace

SplitPattern SplitPattern::regex(const std::string& pattern) {
  uint32_t options = PCRE2_UTF | PCRE2_UCP;
#ifdef PCRE2_MATCH_INVALID_UTF
  // Tokenizer input may hold invalid UTF-8; such bytes then simply never match (10.34+).
  options |= PCRE2_MATCH_INVALID_UTF;
#endif
  int error = 0;
  PCRE2_SIZE offset = 0;
  auto compiled = std::make_shared<Compiled>();
  compiled->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                 options, &error, &offset, nullptr);
  if (compiled->code == nullptr)
    throw std::invalid_argument("invalid regex at offset " + std::to_string(offset) + ": " +
                                pcre2Message(error));
  // JIT is an optimisation only: where it is unavailable pcre2_match interprets the pattern.
  pcre2_jit_compile(compiled->code, PCRE2_JIT_COMPLETE);
  SplitPattern result;
  result.m_regex = std::move(compiled);
  return result;
}

SplitPattern SplitPattern::literal(std::string text) {
  SplitPattern result;
  result.m_literal = std::move(text);
  return result;
}

void SplitPattern::findAll(std::string_view text, std::vector<TextSpan>& out) const {
  if (!m_regex) {
    if (m_literal.empty()) return;
    for (size_t pos = text.find(m_literal); pos != std::string_view::npos;
         pos = text.find(m_literal, pos + m_literal.size()))
      out.push_back({pos, pos + m_literal.size()});
    return;
  }
  MatchData match(m_regex->code);
  pcre2_match_context* context = threadMatchContext();
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start <= text.size()) {
    const int rc = pcre2_match(m_regex->code, subject, text.size(), start, 0, match.data, context);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) throw std::runtime_error("regex match failed: " + pcre2Message(rc));
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(match.data);
    const size_t begin = ovector[0];
    const size_t end = ovector[1];
    if (end > begin) {
      out.push_back({begin, end});
      start = end;
    } else {
      // An empty match contributes no piece; step over one character and search again.
      if (begin >= text.size()) break;
      start = begin + utf8::sequenceLength(text, begin);
    }
  }
}

std::string SplitPattern::replaceAll(std::string_view text, std::string_view replacement) const {
  std::vector<TextSpan> matches;
  findAll(text, matches);
  if (matches.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t previous = 0;
  for (const TextSpan& m : matches) {
    out.append(text.substr(previous, m.begin - previous));
    out.append(replacement);
    previous = m.end;
  }
  out.append(text.substr(previous));
  return out;
}

std::vector<TextSpan> splitText(std::string_view text, const SplitPattern& pattern,
                                SplitBehavior behavior, bool invert) {
  // Partition the text into alternating (span, isMatch) parts, as HF's Pattern::find_matches.
  struct Part {
    TextSpan span;
    bool isMatch;
  };
  std::vector<TextSpan> matches;
  pattern.findAll(text, matches);
  std::vector<Part> parts;
  parts.reserve(matches.size() * 2 + 1);
  size_t previous = 0;
  for (const TextSpan& m : matches) {
    if (m.begin != previous) parts.push_back({{previous, m.begin}, false});
    parts.push_back({m, true});
    previous = m.end;
  }
  if (previous != text.size()) parts.push_back({{previous, text.size()}, false});
  if (invert)
    for (Part& p : parts) p.isMatch = !p.isMatch;

  std::vector<TextSpan> pieces;
  pieces.reserve(parts.size());
  bool previousMatch = false;
  switch (behavior) {
    case SplitBehavior::Isolated:
      for (const Part& p : parts) pieces.push_back(p.span);
      break;
    case SplitBehavior::Removed:
      for (const Part& p : parts)
        if (!p.isMatch) pieces.push_back(p.span);
      break;
    case SplitBehavior::Contiguous:
      for (const Part& p : parts) {
        if (p.isMatch == previousMatch && !pieces.empty())
          pieces.back().end = p.span.end;
        else
          pieces.push_back(p.span);
        previousMatch = p.isMatch;
      }
      break;
    case SplitBehavior::MergedWithPrevious:
      for (const Part& p : parts) {
        if (p.isMatch && !previousMatch && !pieces.empty())
          pieces.back().end = p.span.end;
        else
          pieces.push_back(p.span);
        previousMatch = p.isMatch;
      }
      break;
    case SplitBehavior::MergedWithNext:
      // HF walks the parts from the end, gluing each delimiter onto the piece after it.
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->isMatch && !previousMatch && !pieces.empty())
          pieces.back().begin = it->span.begin;
        else
          pieces.push_back(it->span);
        previousMatch = it->isMatch;
      }
      std::reverse(pieces.begin(), pieces.end());
      break;
  }
  std::erase_if(pieces, [](const TextSpan& s) { return s.end == s.begin; });
  return pieces;
}

}  // namespace strata::tokenizer
