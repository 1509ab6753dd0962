#pragma once
// The two large parts of a tokenizer.json, model.vocab and model.merges, read by a streaming
// (SAX) pass instead of into a JSON tree: Gemma-3's file holds 262,144 tokens and 514,906 merges,
// and building then freeing their tree took 0.8 s of its 1.1 s load. The rest of the file is
// small and is built into a tree without these two in the same pass (readTokenizerJson), or alone
// (parseTokenizerOutline). What is read here is only collected; tokenizer_json.cpp checks it and
// reports errors with the same key paths as for the tree.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tokenizer/json_fields.h"

namespace strata::tokenizer {

/** One entry of model.merges as it was written. */
struct MergeEntry {
  enum class Kind { Line, Pair, Other };  // "left right", [left, right], anything else
  Kind kind = Kind::Other;
  std::string left, right;  // Pair: the two strings; Line: the whole "left right" in `left`
  int badPart = -1;         // Pair: the first part that is not a string (0 or 1), or -1
  std::string badPartType;  // its JSON type name
};

struct BpeTablesJson {
  /** JSON type name of model.vocab ("object" when it is one); empty when there is none. */
  std::string vocabType;
  std::vector<std::pair<std::string, int64_t>> vocab;  // in file order
  /** The first vocab entry whose id is not an integer: its token and its JSON type name. */
  std::optional<std::pair<std::string, std::string>> firstBadId;
  /** JSON type name of model.merges ("array" when it is one); empty when there is none. */
  std::string mergesType;
  std::vector<MergeEntry> merges;
};

/**
 * tokenizer.json's tree without the values of the keys "vocab" and "merges" of the root's objects
 * (model.vocab and model.merges), skipped as the text is read, in time linear in its length.
 * Throws Json::parse_error.
 */
Json parseTokenizerOutline(const std::string& text);

/** A tokenizer.json read in one pass: the outline's tree and the vocabulary and merges. */
struct TokenizerJsonText {
  Json outline;  // as parseTokenizerOutline gives it
  BpeTablesJson tables;
};

/** tokenizer.json's text, read once for both parts. Throws Json::parse_error. */
TokenizerJsonText readTokenizerJson(const std::string& text);

}  // namespace strata::tokenizer
