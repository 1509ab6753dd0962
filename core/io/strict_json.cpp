#include "io/strict_json.h"

#include <set>

#include "common/error.h"

namespace strata::io {

nlohmann::json parseJsonRejectingDuplicates(
    std::string_view text, const std::filesystem::path& file, const std::string& invalidPrefix,
    const std::function<void(const DuplicateKey&)>& onDuplicate) {
  using nlohmann::json;
  // Invariant: one entry per object being parsed, innermost last.
  std::vector<std::set<std::string>> keysSeen;
  std::vector<std::string> lastKey;
  auto callback = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      keysSeen.emplace_back();
      lastKey.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      keysSeen.pop_back();
      lastKey.pop_back();
    } else if (event == json::parse_event_t::key) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!keysSeen.back().insert(key).second) {
        if (onDuplicate) onDuplicate({{lastKey.begin(), lastKey.end() - 1}, key});
        throw FormatError(file, "duplicate key", key, "key");
      }
      lastKey.back() = key;
    }
    return true;
  };
  try {
    return json::parse(text.begin(), text.end(), callback);
  } catch (const json::exception& error) {
    throw FormatError(file, invalidPrefix + error.what());
  }
}

}  // namespace strata::io
