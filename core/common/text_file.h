#pragma once
// Whole small files (config.json, index.json, tokenizer files) read into memory.

#include <filesystem>
#include <string>

namespace strata {

/** The bytes of `file`; IoError naming the file when it cannot be opened or read. */
std::string readWholeFile(const std::filesystem::path& file);

}  // namespace strata
