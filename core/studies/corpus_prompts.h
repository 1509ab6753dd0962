#pragma once
// The prompts the DiHAL studies' hybrid generations start from: lines of a corpus's held-out tail.
// No torch here.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::studies {

/** `count` prompts from the held-out tail (the last 5 %, pretrain's val_fraction) of the corpus:
 *  the first `bytes` bytes of lines spread evenly over it, cut at a space. FormatError naming
 *  the corpus when the tail has no such line. */
std::vector<std::string> corpusPrompts(const std::filesystem::path& corpus, int64_t count,
                                       size_t bytes);

}  // namespace strata::studies
