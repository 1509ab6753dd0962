// tokenizer.json and tokenizer_config.json from a GGUF's tokenizer.ggml.* metadata, in the steps
// transformers takes (get_gguf_tokenizer, convert_gguf_tokenizer, then the tokenizer class's
// constructor): read and check the metadata; build the backend (gguf_tokenizer_models.cpp);
// add special tokens — the builder class's defaults, CONTROL tokens, USER_DEFINED tokens, then
// the file's bos/eos/unk/pad names — with tokenizers' id rules; set the BOS/EOS template.

#include "io/gguf/gguf_tokenizer.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>

#include "common/error.h"
#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_tokenizer_parts.h"
#include "tokenizer/utf8_text.h"

namespace strata::io {

namespace {

using gguf_tokenizer::Backend;
using gguf_tokenizer::Json;
using gguf_tokenizer::Metadata;
using gguf_tokenizer::TokenIds;

Metadata readMetadata(const GgufFile& gguf) {
  Metadata m;
  m.file = gguf.path();
  const auto fail = [&m](const std::string& key, const std::string& problem) {
    return FormatError(m.file, problem, key, "key");
  };
  m.architecture = gguf.string("general.architecture");
  m.model = gguf.string("tokenizer.ggml.model");
  if (gguf.has("tokenizer.ggml.pre")) m.pre = gguf.string("tokenizer.ggml.pre");
  m.tokens = gguf.stringArray("tokenizer.ggml.tokens");
  if (m.tokens.empty()) throw fail("tokenizer.ggml.tokens", "is empty");
  if (m.tokens.size() > static_cast<size_t>(INT32_MAX))
    throw fail("tokenizer.ggml.tokens", "has more tokens than int32 ids can number");
  for (size_t i = 0; i < m.tokens.size(); ++i)
    if (!tokenizer::utf8::isValid(m.tokens[i]))
      throw fail("tokenizer.ggml.tokens", "token " + std::to_string(i) + " is not valid UTF-8");
  const auto sameCount = [&](const std::string& key, size_t count) {
    if (count != m.tokens.size())
      throw fail(key, "has " + std::to_string(count) + " entries for " +
                          std::to_string(m.tokens.size()) + " tokens");
  };
  if (gguf.has("tokenizer.ggml.token_type")) {
    m.tokenTypes = gguf.integerArray("tokenizer.ggml.token_type");
    sameCount("tokenizer.ggml.token_type", m.tokenTypes.size());
  }
  if (gguf.has("tokenizer.ggml.scores")) {
    m.scores = gguf.numberArray("tokenizer.ggml.scores");
    sameCount("tokenizer.ggml.scores", m.scores.size());
  }
  if (gguf.has("tokenizer.ggml.merges")) {
    m.merges = gguf.stringArray("tokenizer.ggml.merges");
    for (size_t i = 0; i < m.merges->size(); ++i)
      if (!tokenizer::utf8::isValid((*m.merges)[i]))
        throw fail("tokenizer.ggml.merges", "merge " + std::to_string(i) + " is not valid UTF-8");
  }
  const auto tokenId = [&](const std::string& key, std::optional<int32_t>& id) {
    if (!gguf.has(key)) return;
    const int64_t value = gguf.integer(key);
    if (value < 0 || value >= static_cast<int64_t>(m.tokens.size()))
      throw fail(key, "id " + std::to_string(value) + " is outside the " +
                          std::to_string(m.tokens.size()) + " tokens");
    id = static_cast<int32_t>(value);
  };
  tokenId("tokenizer.ggml.bos_token_id", m.bosId);
  tokenId("tokenizer.ggml.eos_token_id", m.eosId);
  tokenId("tokenizer.ggml.unknown_token_id", m.unkId);
  tokenId("tokenizer.ggml.padding_token_id", m.padId);
  if (gguf.has("tokenizer.ggml.add_bos_token"))
    m.addBos = gguf.boolean("tokenizer.ggml.add_bos_token");
  if (gguf.has("tokenizer.ggml.add_eos_token"))
    m.addEos = gguf.boolean("tokenizer.ggml.add_eos_token");
  // Older "llama" files have no flag, and llama.cpp adds BOS to such a vocabulary; Gemma 4's
  // flag is set but its reference tokenizer adds none (the chat template writes <bos>).
  if (m.model == "llama" && !m.addBos) m.addBos = true;
  if (m.model == "gemma4") m.addBos = false;
  if (gguf.has("tokenizer.chat_template")) {
    m.chatTemplate = gguf.string("tokenizer.chat_template");
    if (!tokenizer::utf8::isValid(*m.chatTemplate))
      throw fail("tokenizer.chat_template", "is not valid UTF-8");
  }
  return m;
}

/** tokenizers' AddedVocabulary::add_tokens as far as ids and flags go: a token already added
 *  keeps its id and takes the new flags; else it takes its vocabulary id, else the next free
 *  one (one past the largest added id, or the vocabulary size). */
class AddedTokens {
 public:
  struct Token {
    std::string content;
    bool special = false;
  };

  AddedTokens(const Metadata& m, const TokenIds& vocab) : m_metadata(m), m_vocab(vocab) {}

  void add(const std::string& content, bool special) {
    if (content.empty()) return;
    auto id = idOf(content);
    if (!id) {
      int32_t next = static_cast<int32_t>(m_vocab.size());
      if (!m_byId.empty() && m_byId.rbegin()->first >= next) next = m_byId.rbegin()->first + 1;
      id = next;
      // A repeated token leaves the vocabulary with fewer entries than ids; tokenizers would then
      // give a new token an id a vocabulary token has. No real file does this.
      if (next < static_cast<int32_t>(m_metadata.tokens.size()))
        throw FormatError(m_metadata.file,
                          "repeated tokens leave no free id for added token '" + content + "'",
                          "tokenizer.ggml.tokens", "key");
    }
    m_idByContent[content] = *id;
    m_byId[*id] = Token{content, special};
  }

  bool contains(const std::string& content) const { return m_idByContent.contains(content); }

  /** convert_tokens_to_ids: an added token first, then the model's vocabulary. */
  std::optional<int32_t> idOf(const std::string& content) const {
    if (const auto it = m_idByContent.find(content); it != m_idByContent.end()) return it->second;
    if (const auto it = m_vocab.find(content); it != m_vocab.end()) return it->second;
    return std::nullopt;
  }

  Json json() const {
    Json list = Json::array();
    // Listed by id, as tokenizers does. transformers adds every GGUF token with normalized =
    // false: each is matched in the raw text, before the normalizer runs.
    for (const auto& [id, t] : m_byId)
      list.push_back({{"id", id},
                      {"content", t.content},
                      {"single_word", false},
                      {"lstrip", false},
                      {"rstrip", false},
                      {"normalized", false},
                      {"special", t.special}});
    return list;
  }

 private:
  const Metadata& m_metadata;
  const TokenIds& m_vocab;
  std::map<int32_t, Token> m_byId;
  std::unordered_map<std::string, int32_t> m_idByContent;
};

void addGgufTokens(const Metadata& m, const Backend& b, AddedTokens& added) {
  for (const std::string& token : b.classSpecialTokens) added.add(token, true);
  if (m.tokenTypes.empty()) return;
  // CONTROL tokens are special; in a byte-level vocabulary one spelled outside the byte
  // alphabet is skipped (transformers' add_gguf_special_tokens). Every byte-level vocabulary
  // key is spelled in that alphabet, so "in the vocabulary as spelled" is that test.
  for (size_t i = 0; i < m.tokens.size(); ++i)
    if (m.tokenTypes[i] == gguf_tokenizer::kControlToken &&
        (!b.byteLevel || b.vocab.contains(m.tokens[i])))
      added.add(m.tokens[i], true);
  // USER_DEFINED tokens stay whole but are not special; only those the vocabulary holds as
  // spelled (Gemma's whitespace runs were respelled with "▁" and are left to the merges).
  std::vector<const std::string*> userDefined;
  for (size_t i = 0; i < m.tokens.size(); ++i)
    if (m.tokenTypes[i] == gguf_tokenizer::kUserDefinedToken &&
        (b.vocab.contains(m.tokens[i]) || added.contains(m.tokens[i])))
      userDefined.push_back(&m.tokens[i]);
  for (const std::string* token : userDefined) added.add(*token, false);
}

/** The named special tokens, bos eos unk pad mask: transformers' tokenizer_config (the file's
 *  ids, spelled as the file spells them) plus the mask token of the model's tokenizer class. */
using SpecialNames = std::array<std::pair<const char*, std::optional<std::string>>, 5>;

SpecialNames specialNames(const Metadata& m, const Backend& b) {
  const auto name = [&m](const std::optional<int32_t>& id) -> std::optional<std::string> {
    if (!id) return std::nullopt;
    return m.tokens[static_cast<size_t>(*id)];
  };
  return {{{"bos_token", name(m.bosId)},
           {"eos_token", name(m.eosId)},
           {"unk_token", name(m.unkId)},
           {"pad_token", name(m.padId)},
           {"mask_token", b.maskToken}}};
}

// update_post_processor: "<bos> $A <eos>" as the flags and the named tokens allow.
Json postProcessor(const std::optional<std::string>& bos, const std::optional<std::string>& eos,
                   bool addBos, bool addEos, const AddedTokens& added) {
  const auto special = [](const std::string& name, int typeId) {
    return Json{{"SpecialToken", {{"id", name}, {"type_id", typeId}}}};
  };
  const auto sequence = [](const char* id, int typeId) {
    return Json{{"Sequence", {{"id", id}, {"type_id", typeId}}}};
  };
  Json single = Json::array(), pair = Json::array();
  Json specials = Json::object();
  for (int typeId = 0; typeId < 2; ++typeId) {
    Json& list = typeId == 0 ? single : pair;
    if (typeId == 1) list = single;
    if (addBos) list.push_back(special(*bos, typeId));
    list.push_back(sequence(typeId == 0 ? "A" : "B", typeId));
    if (addEos) list.push_back(special(*eos, typeId));
  }
  for (const auto& [use, name] : {std::pair{addBos, bos}, std::pair{addEos, eos}})
    if (use) specials[*name] = {{"id", *name}, {"ids", {*added.idOf(*name)}}, {"tokens", {*name}}};
  return {{"type", "TemplateProcessing"},
          {"single", single},
          {"pair", pair},
          {"special_tokens", specials}};
}

// The model section: vocabulary in id order and merges as [left, right] pairs, as tokenizers
// writes them; assembled as text because a 262,144-entry ordered JSON object is slow to build.
std::string modelSection(const Backend& b) {
  std::vector<std::pair<int32_t, const std::string*>> byId;
  byId.reserve(b.vocab.size());
  for (const auto& [token, id] : b.vocab) byId.emplace_back(id, &token);
  std::sort(byId.begin(), byId.end());
  std::string text = b.model.dump();
  text.pop_back();  // the closing brace
  text += R"(,"vocab":{)";
  for (size_t i = 0; i < byId.size(); ++i)
    text += (i ? "," : "") + Json(*byId[i].second).dump() + ":" + std::to_string(byId[i].first);
  text += R"(},"merges":[)";
  for (size_t i = 0; i < b.merges.size(); ++i)
    text += (i ? "," : "") + Json::array({b.merges[i].first, b.merges[i].second}).dump();
  return text + "]}";
}

}  // namespace

GgufTokenizerFiles ggufTokenizerFiles(const GgufFile& gguf) {
  const Metadata m = readMetadata(gguf);
  const Backend b = gguf_tokenizer::buildBackend(m);
  AddedTokens added(m, b.vocab);
  addGgufTokens(m, b, added);
  const SpecialNames names = specialNames(m, b);
  for (const auto& [role, name] : names)
    if (name && !added.contains(*name)) added.add(*name, true);

  const std::optional<std::string>& bos = names[0].second;
  const std::optional<std::string>& eos = names[1].second;
  const bool addBos = m.addBos.value_or(false) && bos.has_value();
  const bool addEos = m.addEos.value_or(false) && eos.has_value();
  Json head = {{"version", "1.0"},
               {"truncation", nullptr},
               {"padding", nullptr},
               {"added_tokens", added.json()},
               {"normalizer", b.normalizer},
               {"pre_tokenizer", b.preTokenizer},
               {"post_processor", postProcessor(bos, eos, addBos, addEos, added)},
               {"decoder", b.decoder}};
  std::string tokenizerJson = head.dump();
  tokenizerJson.pop_back();
  tokenizerJson += R"(,"model":)" + modelSection(b) + "}\n";

  // TokenizersBackend reads tokenizer.json as it is, whatever the model's own class would build.
  Json config = {{"tokenizer_class", "TokenizersBackend"},
                 {"add_bos_token", addBos},
                 {"add_eos_token", addEos}};
  for (const auto& [role, name] : names) config[role] = name ? Json(*name) : Json();
  config["clean_up_tokenization_spaces"] = false;
  if (m.chatTemplate) config["chat_template"] = *m.chatTemplate;
  return {std::move(tokenizerJson), config.dump(2) + "\n"};
}

}  // namespace strata::io
