// Loading an HF tokenizer.json (tokenizers' serde layout) into a BpeTokenizer: the BPE model,
// added tokens and post-processor here; normalizer, pre-tokenizer and decoder in
// tokenizer_json_pipeline.cpp.

#include <stdexcept>

#include "common/error.h"
#include "common/text_file.h"
#include "tokenizer/bpe_tables_json.h"
#include "tokenizer/bpe_tokenizer.h"
#include "tokenizer/json_fields.h"
#include "tokenizer/special_tokens_config.h"
#include "tokenizer/tokenizer_json_pipeline.h"

namespace strata::tokenizer {

namespace {

Vocabulary parseVocabulary(const JsonFields& fields, const Json& model,
                           const BpeTablesJson& tables) {
  if (tables.vocabType.empty()) fields.require(model, "vocab", "model");  // throws: none
  if (tables.vocabType != "object")
    throw fields.error("model.vocab", "expected an object of token → id");
  if (tables.firstBadId)
    throw fields.error("model.vocab." + tables.firstBadId->first,
                       "expected an integer, found " + tables.firstBadId->second);
  Vocabulary vocabulary;
  vocabulary.reserve(tables.vocab.size());
  for (const auto& [token, id] : tables.vocab) {
    if (id < 0 || id > INT32_MAX || !vocabulary.add(token, static_cast<int32_t>(id)))
      throw FormatError(fields.file(),
                        "id " + std::to_string(id) + " is negative, too large or already used",
                        token, "token");
  }
  return vocabulary;
}

// Merges come as "a b" strings (older files) or ["a", "b"] pairs (tokenizers >= 0.20, which
// allows spaces inside tokens). Rank = position in the list (HF BPE::from_builder).
PairMergeTable parseMerges(const JsonFields& fields, const BpeTablesJson& tables,
                           const Vocabulary& vocabulary, const std::string& prefix) {
  PairMergeTable table;
  if (tables.mergesType.empty()) return table;
  if (tables.mergesType != "array") throw fields.error("model.merges", "expected an array");
  table.reserve(tables.merges.size());
  for (size_t rank = 0; rank < tables.merges.size(); ++rank) {
    const std::string path = JsonFields::element("model.merges", rank);
    const MergeEntry& merge = tables.merges[rank];
    std::string left, right;
    if (merge.kind == MergeEntry::Kind::Line) {
      const std::string& line = merge.left;
      const size_t space = line.find(' ');
      if (space == std::string::npos || line.find(' ', space + 1) != std::string::npos)
        throw fields.error(path, "expected \"left right\", found \"" + line + "\"");
      left = line.substr(0, space);
      right = line.substr(space + 1);
    } else if (merge.kind == MergeEntry::Kind::Pair) {
      if (merge.badPart >= 0)
        throw fields.error(JsonFields::element(path, size_t(merge.badPart)),
                           "expected a string, found " + merge.badPartType);
      left = merge.left;
      right = merge.right;
    } else {
      throw fields.error(path, "expected \"left right\" or [\"left\", \"right\"]");
    }
    if (const auto missing =
            addMergeRule(table, vocabulary, left, right, static_cast<int32_t>(rank), prefix))
      throw fields.error(path, "merge token '" + *missing + "' is not in the vocabulary");
  }
  return table;
}

std::unique_ptr<BpeModel> parseModel(const JsonFields& fields, const Json& root,
                                     const BpeTablesJson& tables) {
  const Json& model = fields.require(root, "model", "");
  // Old files omit "type"; HF then recognises BPE by its fields.
  const std::string type = fields.optionalString(model, "type", "model").value_or("BPE");
  if (type != "BPE")
    throw fields.error("model.type",
                       "unsupported model type '" + type + "' (only BPE is supported)");
  BpeOptions options;
  options.unkToken = fields.optionalString(model, "unk_token", "model");
  options.fuseUnk = fields.flag(model, "fuse_unk", "model", false);
  options.byteFallback = fields.flag(model, "byte_fallback", "model", false);
  options.ignoreMerges = fields.flag(model, "ignore_merges", "model", false);
  options.continuingSubwordPrefix =
      fields.optionalString(model, "continuing_subword_prefix", "model").value_or("");
  options.endOfWordSuffix =
      fields.optionalString(model, "end_of_word_suffix", "model").value_or("");
  // "dropout" is a training-time augmentation; encoding here is deterministic, as HF's is
  // when dropout is null.
  Vocabulary vocabulary = parseVocabulary(fields, model, tables);
  PairMergeTable merges = parseMerges(fields, tables, vocabulary, options.continuingSubwordPrefix);
  try {
    return std::make_unique<BpeModel>(std::move(vocabulary), std::move(merges), std::move(options));
  } catch (const std::invalid_argument& e) {
    throw fields.error("model.unk_token", e.what());
  }
}

void parseAddedTokens(const JsonFields& fields, const Json& root, AddedVocabulary& added) {
  const Json* list = fields.find(root, "added_tokens", "");
  if (list == nullptr) return;
  if (!list->is_array()) throw fields.error("added_tokens", "expected an array");
  for (size_t i = 0; i < list->size(); ++i) {
    const std::string path = JsonFields::element("added_tokens", i);
    const Json& entry = (*list)[i];
    AddedToken token;
    const int64_t id = fields.integer(entry, "id", path);
    if (id < 0 || id > INT32_MAX) throw fields.error(JsonFields::child(path, "id"), "out of range");
    token.id = static_cast<int32_t>(id);
    token.content = fields.string(entry, "content", path);
    token.special = fields.flag(entry, "special", path, false);
    token.singleWord = fields.flag(entry, "single_word", path, false);
    token.lstrip = fields.flag(entry, "lstrip", path, false);
    token.rstrip = fields.flag(entry, "rstrip", path, false);
    token.normalized = fields.flag(entry, "normalized", path, !token.special);
    if (token.content.empty())
      throw fields.error(JsonFields::child(path, "content"), "empty token");
    if (!added.add(token))
      throw fields.error(path, "token '" + token.content + "' or its id is already added");
  }
}

// The "single" template of a post_processor, as ids before and after the sequence.
void parsePostProcessor(const JsonFields& fields, const Json& value, const std::string& path,
                        BpeTokenizerParts& parts) {
  if (value.is_null()) return;
  const std::string type = fields.string(value, "type", path);
  std::vector<int32_t> prefix, suffix;
  if (type == "ByteLevel") return;  // only adjusts offsets
  if (type == "Sequence") {
    const Json& list = fields.require(value, "processors", path);
    if (!list.is_array())
      throw fields.error(JsonFields::child(path, "processors"), "expected an array");
    for (size_t i = 0; i < list.size(); ++i)
      parsePostProcessor(fields, list[i], JsonFields::element(path + ".processors", i), parts);
    return;
  }
  if (type == "TemplateProcessing") {
    const Json& single = fields.require(value, "single", path);
    const std::string singlePath = JsonFields::child(path, "single");
    if (!single.is_array()) throw fields.error(singlePath, "expected an array");
    const Json& specials = fields.require(value, "special_tokens", path);
    const std::string specialsPath = JsonFields::child(path, "special_tokens");
    bool afterSequence = false;
    for (size_t i = 0; i < single.size(); ++i) {
      const std::string itemPath = JsonFields::element(singlePath, i);
      if (fields.find(single[i], "Sequence", itemPath)) {
        afterSequence = true;
        continue;
      }
      const Json& special = fields.require(single[i], "SpecialToken", itemPath);
      const std::string name = fields.string(special, "id", itemPath + ".SpecialToken");
      const std::string entryPath = specialsPath + "." + name;
      const Json& idList =
          fields.require(fields.require(specials, name, specialsPath), "ids", entryPath);
      if (!idList.is_array()) throw fields.error(entryPath + ".ids", "expected an array");
      for (size_t k = 0; k < idList.size(); ++k)
        (afterSequence ? suffix : prefix)
            .push_back(static_cast<int32_t>(fields.integerValue(idList[k], entryPath + ".ids")));
    }
  } else if (type == "RobertaProcessing" || type == "BertProcessing") {
    // cls / sep are [token, id] pairs: single = cls A sep.
    for (const char* key : {"cls", "sep"}) {
      const Json& pair = fields.require(value, key, path);
      if (!pair.is_array() || pair.size() != 2)
        throw fields.error(JsonFields::child(path, key), "expected [token, id]");
      const auto id =
          static_cast<int32_t>(fields.integerValue(pair[1], JsonFields::child(path, key)));
      (std::string(key) == "cls" ? prefix : suffix).push_back(id);
    }
  } else {
    throw fields.error(JsonFields::child(path, "type"),
                       "unsupported post_processor type '" + type + "'");
  }
  // A later processor in a Sequence wraps what the earlier ones produced.
  parts.templatePrefix.insert(parts.templatePrefix.begin(), prefix.begin(), prefix.end());
  parts.templateSuffix.insert(parts.templateSuffix.end(), suffix.begin(), suffix.end());
}

std::string describeKind(const BpeTokenizerParts& parts, const Json& root) {
  const bool byteLevel = root.contains("decoder") && root["decoder"].is_object() &&
                         root["decoder"].value("type", "") == "ByteLevel";
  std::string kind = "tokenizer.json (BPE";
  if (byteLevel) kind += ", byte-level";
  if (parts.model->options().byteFallback) kind += ", byte fallback";
  return kind + ")";
}

}  // namespace

std::unique_ptr<Tokenizer> loadTokenizerJson(const std::filesystem::path& file) {
  const JsonFields fields(file);
  // One pass over the text: the small sections into a tree, the vocabulary and merges streamed
  // into flat lists (bpe_tables_json.h).
  TokenizerJsonText read;
  try {
    read = readTokenizerJson(readWholeFile(file));
  } catch (const Json::parse_error& e) {
    throw FormatError(file, std::string("not valid JSON: ") + e.what());
  }
  const Json& root = read.outline;
  const BpeTablesJson& tables = read.tables;
  if (!root.is_object()) throw fields.error("", "expected a JSON object");
  BpeTokenizerParts parts;
  parts.model = parseModel(fields, root, tables);
  parseAddedTokens(fields, root, parts.addedTokens);
  const auto section = [&](const char* key) -> const Json& {
    static const Json null;
    const Json* value = fields.find(root, key, "");
    return value != nullptr ? *value : null;
  };
  parts.normalizer = parseNormalizer(fields, section("normalizer"), "normalizer");
  parts.preTokenizer = parsePreTokenizer(fields, section("pre_tokenizer"), "pre_tokenizer");
  parts.decoder = parseDecoder(fields, section("decoder"), "decoder");
  parsePostProcessor(fields, section("post_processor"), "post_processor", parts);
  parts.kind = describeKind(parts, root);

  // Roles: tokenizer_config.json first; else the template's leading token is the BOS and the
  // model's unk_token the UNK.
  SpecialTokenIds fallback;
  if (!parts.templatePrefix.empty()) fallback.bos = parts.templatePrefix.front();
  fallback.unk = parts.model->unkId();
  const TokenizerConfig config = readTokenizerConfig(file.parent_path());
  parts.special = resolveSpecialTokens(
      config, [&parts](std::string_view name) { return findToken(parts, name); }, fallback);
  return std::make_unique<BpeTokenizer>(std::move(parts));
}

}  // namespace strata::tokenizer
