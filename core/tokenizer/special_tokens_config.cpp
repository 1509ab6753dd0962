#include "tokenizer/special_tokens_config.h"

#include <array>

#include "tokenizer/json_fields.h"

namespace strata::tokenizer {

namespace {

using Role = std::optional<std::optional<std::string>> TokenizerConfig::*;

struct RoleInfo {
  const char* key;
  Role member;
  std::optional<int32_t> SpecialTokenIds::*id;
  std::vector<std::string_view> spellings;  // Llama-3, Llama-2/Mistral, GPT-2/Qwen, BERT style
};

const std::array<RoleInfo, 5>& roles() {
  static const std::array<RoleInfo, 5> table{{
      {"bos_token",
       &TokenizerConfig::bos,
       &SpecialTokenIds::bos,
       {"<|begin_of_text|>", "<s>", "<|endoftext|>"}},
      {"eos_token",
       &TokenizerConfig::eos,
       &SpecialTokenIds::eos,
       {"<|end_of_text|>", "</s>", "<|endoftext|>"}},
      {"pad_token", &TokenizerConfig::pad, &SpecialTokenIds::pad, {"<pad>", "<|pad|>", "[PAD]"}},
      {"unk_token", &TokenizerConfig::unk, &SpecialTokenIds::unk, {"<unk>", "[UNK]"}},
      {"mask_token",
       &TokenizerConfig::mask,
       &SpecialTokenIds::mask,
       {"<mask>", "<|mask|>", "[MASK]"}},
  }};
  return table;
}

// A role is a string, null, or an AddedToken object {"content": ..., ...}.
std::optional<std::string> roleName(const JsonFields& fields, const Json& value,
                                    const std::string& key) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return value.get<std::string>();
  return fields.string(value, "content", key);
}

void readRoles(const std::filesystem::path& file, TokenizerConfig& config) {
  if (!std::filesystem::exists(file)) return;
  const Json root = readJsonFile(file);
  const JsonFields fields(file);
  if (!root.is_object()) throw fields.error("", "expected a JSON object");
  for (const RoleInfo& role : roles()) {
    auto& slot = config.*role.member;
    const auto it = root.find(role.key);
    if (slot || it == root.end()) continue;
    slot = roleName(fields, *it, role.key);
  }
  if (const auto addBos = root.find("add_bos_token");
      !config.addBosToken && addBos != root.end() && addBos->is_boolean())
    config.addBosToken = addBos->get<bool>();
  const auto decoder = root.find("added_tokens_decoder");
  if (decoder == root.end() || !config.addedTokens.empty()) return;
  if (!decoder->is_object()) throw fields.error("added_tokens_decoder", "expected an object");
  for (const auto& [idText, entry] : decoder->items()) {
    const std::string path = "added_tokens_decoder." + idText;
    AddedToken token;
    try {
      token.id = std::stoi(idText);
    } catch (const std::exception&) {
      throw fields.error(path, "the key must be a token id");
    }
    token.content = fields.string(entry, "content", path);
    token.special = fields.flag(entry, "special", path, false);
    token.singleWord = fields.flag(entry, "single_word", path, false);
    token.lstrip = fields.flag(entry, "lstrip", path, false);
    token.rstrip = fields.flag(entry, "rstrip", path, false);
    token.normalized = fields.flag(entry, "normalized", path, !token.special);
    config.addedTokens.push_back(std::move(token));
  }
}

}  // namespace

TokenizerConfig readTokenizerConfig(const std::filesystem::path& folder) {
  TokenizerConfig config;
  readRoles(folder / "tokenizer_config.json", config);
  readRoles(folder / "special_tokens_map.json", config);
  return config;
}

SpecialTokenIds resolveSpecialTokens(
    const TokenizerConfig& config,
    const std::function<std::optional<int32_t>(std::string_view)>& lookUp,
    const SpecialTokenIds& fallback) {
  SpecialTokenIds ids;
  for (const RoleInfo& role : roles()) {
    std::optional<int32_t>& id = ids.*role.id;
    if (const auto& configured = config.*role.member) {
      if (*configured) id = lookUp(**configured);
      continue;
    }
    id = fallback.*role.id;
    for (size_t i = 0; !id && i < role.spellings.size(); ++i) id = lookUp(role.spellings[i]);
  }
  return ids;
}

}  // namespace strata::tokenizer
