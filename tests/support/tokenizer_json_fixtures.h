#pragma once
// Builds HF-style tokenizer.json files from the shared GPT-2 and Llama-3 files, laid out as the
// Hub's gpt2 and Meta-Llama-3 tokenizer.json are, so that the golden vectors also exercise the
// tokenizer.json path (ByteLevel pre-tokenizer; Split + ByteLevel sequence, ignore_merges,
// TemplateProcessing, 256 added tokens).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "support/tokenizer_test_support.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pre_tokenizer.h"

namespace strata::testing {

/** GPT-2's vocab.json + merges.txt as a tokenizer.json; merges as "a b" or as ["a", "b"]. */
inline nlohmann::json gpt2TokenizerJson(bool pairMerges) {
  using Json = nlohmann::json;
  Json merges = Json::array();
  std::istringstream lines(readBinary(sharedData("tokenizers/gpt2/merges.txt")));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line.starts_with("#version")) continue;
    const size_t space = line.find(' ');
    if (pairMerges)
      merges.push_back(Json::array({line.substr(0, space), line.substr(space + 1)}));
    else
      merges.push_back(line);
  }
  return {{"version", "1.0"},
          {"added_tokens",
           {{{"id", 50256},
             {"content", "<|endoftext|>"},
             {"single_word", false},
             {"lstrip", false},
             {"rstrip", false},
             {"normalized", true},
             {"special", true}}}},
          {"normalizer", nullptr},
          {"pre_tokenizer",
           {{"type", "ByteLevel"},
            {"add_prefix_space", false},
            {"trim_offsets", true},
            {"use_regex", true}}},
          {"post_processor",
           {{"type", "ByteLevel"},
            {"add_prefix_space", true},
            {"trim_offsets", false},
            {"use_regex", true}}},
          {"decoder",
           {{"type", "ByteLevel"},
            {"add_prefix_space", true},
            {"trim_offsets", true},
            {"use_regex", true}}},
          {"model",
           {{"type", "BPE"},
            {"dropout", nullptr},
            {"unk_token", nullptr},
            {"continuing_subword_prefix", ""},
            {"end_of_word_suffix", ""},
            {"fuse_unk", false},
            {"byte_fallback", false},
            {"vocab", Json::parse(readBinary(sharedData("tokenizers/gpt2/vocab.json")))},
            {"merges", std::move(merges)}}}};
}

inline std::string decodeBase64(const std::string& text) {
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;
    buffer = (buffer << 6) | static_cast<uint32_t>(alphabet.find(c));
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((buffer >> bits) & 0xFF);
    }
  }
  return out;
}

/** Meta's Llama-3 tiktoken file converted as transformers' convert_slow_tokenizer does:
 *  vocab = byte-level spellings; merges = every split of a token into two tokens, ordered by
 *  the token's rank, then by the ranks of the halves; plus the 256 specials and a BOS template.
 *  Returned as JSON text: the 128k-entry vocab and 280k merges are written directly, which is
 *  many times faster than building an nlohmann DOM. */
inline std::string llama3TokenizerJsonText() {
  using Json = nlohmann::json;
  std::vector<std::string> tokens;
  std::unordered_map<std::string, int> rank;
  std::istringstream lines(readBinary(sharedData("tokenizers/llama3/tokenizer.model")));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    tokens.push_back(decodeBase64(line.substr(0, line.find(' '))));
    rank.emplace(tokens.back(), static_cast<int>(tokens.size()) - 1);
  }
  std::vector<std::string> spelled;  // quoted JSON strings of the byte-level spellings
  spelled.reserve(tokens.size());
  for (const std::string& token : tokens)
    spelled.push_back(Json(tokenizer::byte_level::encode(token)).dump());
  std::vector<std::tuple<int, int, int>> splits;  // (merged, left, right) ranks
  for (size_t r = 0; r < tokens.size(); ++r)
    for (size_t cut = 1; cut < tokens[r].size(); ++cut) {
      const auto left = rank.find(tokens[r].substr(0, cut));
      const auto right = rank.find(tokens[r].substr(cut));
      if (left != rank.end() && right != rank.end())
        splits.emplace_back(static_cast<int>(r), left->second, right->second);
    }
  std::sort(splits.begin(), splits.end());

  std::vector<std::string> specials = {"<|begin_of_text|>",
                                       "<|end_of_text|>",
                                       "<|reserved_special_token_0|>",
                                       "<|reserved_special_token_1|>",
                                       "<|reserved_special_token_2|>",
                                       "<|reserved_special_token_3|>",
                                       "<|start_header_id|>",
                                       "<|end_header_id|>",
                                       "<|reserved_special_token_4|>",
                                       "<|eot_id|>"};
  for (int i = 5; i < 251; ++i)
    specials.push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  Json added = Json::array();
  for (size_t i = 0; i < specials.size(); ++i)
    added.push_back({{"id", 128000 + i},
                     {"content", specials[i]},
                     {"single_word", false},
                     {"lstrip", false},
                     {"rstrip", false},
                     {"normalized", false},
                     {"special", true}});
  const Json pipeline = {{"version", "1.0"},
                         {"added_tokens", std::move(added)},
                         {"normalizer", nullptr},
                         {"pre_tokenizer",
                          {{"type", "Sequence"},
                           {"pretokenizers",
                            {{{"type", "Split"},
                              {"pattern", {{"Regex", std::string(tokenizer::kLlama3Pattern)}}},
                              {"behavior", "Isolated"},
                              {"invert", false}},
                             {{"type", "ByteLevel"},
                              {"add_prefix_space", false},
                              {"trim_offsets", true},
                              {"use_regex", false}}}}}},
                         {"post_processor",
                          {{"type", "Sequence"},
                           {"processors",
                            {{{"type", "ByteLevel"},
                              {"add_prefix_space", true},
                              {"trim_offsets", false},
                              {"use_regex", true}},
                             {{"type", "TemplateProcessing"},
                              {"single",
                               {{{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}},
                                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
                              {"pair", Json::array()},
                              {"special_tokens",
                               {{"<|begin_of_text|>",
                                 {{"id", "<|begin_of_text|>"},
                                  {"ids", {128000}},
                                  {"tokens", {"<|begin_of_text|>"}}}}}}}}}}},
                         {"decoder",
                          {{"type", "ByteLevel"},
                           {"add_prefix_space", true},
                           {"trim_offsets", true},
                           {"use_regex", true}}}};
  std::string text = pipeline.dump();
  text.pop_back();  // reopen the object to append "model"
  text += R"(,"model":{"type":"BPE","dropout":null,"unk_token":null,)"
          R"("continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":false,)"
          R"("byte_fallback":false,"ignore_merges":true,"vocab":{)";
  for (size_t r = 0; r < tokens.size(); ++r)
    text += (r == 0 ? "" : ",") + spelled[r] + ":" + std::to_string(r);
  text += R"(},"merges":[)";
  for (size_t i = 0; i < splits.size(); ++i) {
    const auto& [merged, left, right] = splits[i];
    // "a b" with both halves unquoted inside one JSON string.
    const std::string& l = spelled[left];
    const std::string& rr = spelled[right];
    text += (i == 0 ? "\"" : ",\"") + l.substr(1, l.size() - 2) + " " +
            rr.substr(1, rr.size() - 2) + "\"";
  }
  text += "]}}";
  return text;
}

}  // namespace strata::testing
