// The prompts of the DiHAL studies' hybrid generations (see corpus_prompts.h).

#include "studies/corpus_prompts.h"

#include <cctype>

#include "common/error.h"
#include "common/text_file.h"

namespace strata::studies {

namespace fs = std::filesystem;

std::vector<std::string> corpusPrompts(const fs::path& corpus, int64_t count, size_t bytes) {
  const std::string text = readWholeFile(corpus);
  const size_t tail = text.size() - text.size() / 20;
  std::vector<std::string> prompts;
  for (int64_t k = 0; k < count; ++k) {
    const size_t from =
        tail + (text.size() - tail) * static_cast<size_t>(k) / static_cast<size_t>(count);
    size_t start = text.find('\n', from);
    while (start != std::string::npos && start + 1 < text.size() &&
           std::isspace(static_cast<unsigned char>(text[start])))
      ++start;
    if (start == std::string::npos || start + bytes >= text.size()) break;
    std::string line = text.substr(start, bytes);
    line = line.substr(0, line.find('\n'));
    const size_t space = line.rfind(' ');
    if (space != std::string::npos && space > 0) line.resize(space);
    if (!line.empty()) prompts.push_back(line);
  }
  if (prompts.empty())
    throw FormatError(corpus, "has no held-out lines to prompt the hybrid generation with");
  return prompts;
}

}  // namespace strata::studies
