#pragma once
// JSON parsing that refuses repeated keys. nlohmann (like most JSON libraries) silently keeps
// one of two equal keys; for a safetensors header or a shard index that would hide a
// corrupt or malicious file, so every object's keys are tracked while parsing.

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace strata::io {

struct DuplicateKey {
  std::vector<std::string> parents;  ///< keys of the enclosing objects, outermost first
  std::string key;
};

/**
 * Parses `text`. Invalid JSON is a FormatError on `file` reading `invalidPrefix` + the parser's
 * detail. A repeated key calls `onDuplicate`, which should throw its own, more specific
 * error; if it returns, a generic FormatError "duplicate key" is thrown.
 */
nlohmann::json parseJsonRejectingDuplicates(
    std::string_view text, const std::filesystem::path& file, const std::string& invalidPrefix,
    const std::function<void(const DuplicateKey&)>& onDuplicate = {});

}  // namespace strata::io
