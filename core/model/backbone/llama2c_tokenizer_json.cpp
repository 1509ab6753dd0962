#include "model/backbone/llama2c_tokenizer_json.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "common/error.h"

namespace strata::model {

namespace {

using Json = nlohmann::ordered_json;

// Fixed by llama2.c (run.c, tokenizer.py): <unk> = 0, <s> = 1, </s> = 2.
constexpr size_t kUnk = 0, kBos = 1, kEos = 2;
const char* const kSpecialNames[] = {"<unk>", "<s>", "</s>"};
constexpr std::string_view kSpace = "\xE2\x96\x81";  // "▁" U+2581, SentencePiece's space

std::string replaceAll(std::string text, std::string_view from, std::string_view to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// Strict UTF-8: shortest forms, no surrogates, at most U+10FFFF (what JSON strings can hold).
bool validUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    uint32_t cp = 0;
    if (b < 0x80) {
      ++i;
      continue;
    } else if ((b & 0xE0) == 0xC0) {
      length = 2, cp = b & 0x1F;
    } else if ((b & 0xF0) == 0xE0) {
      length = 3, cp = b & 0x0F;
    } else if ((b & 0xF8) == 0xF0) {
      length = 4, cp = b & 0x07;
    } else {
      return false;
    }
    if (text.size() - i < length) return false;
    for (size_t k = 1; k < length; ++k) {
      const auto c = static_cast<unsigned char>(text[i + k]);
      if ((c & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (c & 0x3F);
    }
    const uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < minimum[length] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
    i += length;
  }
  return true;
}

// Code point boundaries of a valid UTF-8 string (Python's string indices), ends excluded.
std::vector<size_t> innerBoundaries(std::string_view text) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) cuts.push_back(i);
  return cuts;
}

size_t codePoints(std::string_view text) {
  return innerBoundaries(text).size() + (text.empty() ? 0 : 1);
}

}  // namespace

std::string sentencePiece(const Llama2cVocabulary& vocabulary, size_t id) {
  // tokenizer.py wrote "\n<s>\n" and "\n</s>\n" for BOS/EOS and "▁" as " " everywhere.
  if (id <= kEos) return kSpecialNames[id];
  return replaceAll(vocabulary.pieces.at(id), " ", kSpace);
}

std::vector<std::pair<std::string, std::string>> sentencePieceMerges(
    const Llama2cVocabulary& vocabulary) {
  std::unordered_map<std::string, size_t> ids;
  std::vector<std::string> pieces;
  for (size_t id = 0; id < vocabulary.pieces.size(); ++id) {
    pieces.push_back(sentencePiece(vocabulary, id));
    ids[pieces.back()] = id;  // as Python's dict: the last id of a duplicated piece wins
  }
  struct Merge {
    size_t left, right;
    float score;
  };
  std::vector<Merge> merges;
  for (size_t id = 0; id < pieces.size(); ++id) {
    // LlamaConverter.vocab gives <unk>, <s>, </s> the score 0; the others keep theirs.
    const float score = id <= kEos ? 0.0f : vocabulary.scores[id];
    std::vector<Merge> local;
    for (const size_t cut : innerBoundaries(pieces[id])) {
      const auto left = ids.find(pieces[id].substr(0, cut));
      const auto right = ids.find(pieces[id].substr(cut));
      if (left != ids.end() && right != ids.end())
        local.push_back({left->second, right->second, score});
    }
    std::sort(local.begin(), local.end(), [](const Merge& a, const Merge& b) {
      return std::pair(a.left, a.right) < std::pair(b.left, b.right);
    });
    merges.insert(merges.end(), local.begin(), local.end());
  }
  // transformers' generate_merges: sorted(key=(score, len(left), len(right)), reverse=True),
  // which is stable — equal keys keep the order above. (Older releases sorted by the score
  // alone; the extra keys only order different splits of one piece, which never compete.)
  std::vector<size_t> lengths(pieces.size());
  for (size_t id = 0; id < pieces.size(); ++id) lengths[id] = codePoints(pieces[id]);
  std::stable_sort(merges.begin(), merges.end(), [&](const Merge& a, const Merge& b) {
    if (a.score != b.score) return a.score > b.score;
    if (lengths[a.left] != lengths[b.left]) return lengths[a.left] > lengths[b.left];
    return lengths[a.right] > lengths[b.right];
  });
  std::vector<std::pair<std::string, std::string>> result;
  result.reserve(merges.size());
  for (const Merge& m : merges) result.emplace_back(pieces[m.left], pieces[m.right]);
  return result;
}

std::string llama2cTokenizerJson(const Llama2cVocabulary& vocabulary,
                                 const std::filesystem::path& file) {
  // Built through the underlying vector: ordered_json's own insert searches linearly, which
  // is quadratic in a 32,000-piece vocabulary. Duplicates are found with a hash map instead.
  Json vocab = Json::object();
  auto& entries = static_cast<std::vector<std::pair<const std::string, Json>>&>(
      vocab.get_ref<Json::object_t&>());
  std::unordered_map<std::string, size_t> seen;
  for (size_t id = 0; id < vocabulary.pieces.size(); ++id) {
    std::string piece = sentencePiece(vocabulary, id);
    if (!validUtf8(piece))
      throw FormatError(file, "piece is not valid UTF-8", std::to_string(id), "token");
    if (const auto [it, added] = seen.emplace(piece, id); !added)
      throw FormatError(file, "piece '" + piece + "' is also token " + std::to_string(it->second),
                        std::to_string(id), "token");
    entries.emplace_back(std::move(piece), Json(id));
  }
  Json merges = Json::array();
  // "left right" strings (read by every tokenizers release); SentencePiece pieces hold no
  // spaces once "▁" is restored.
  for (const auto& [left, right] : sentencePieceMerges(vocabulary))
    merges.push_back(left + " " + right);

  Json root;
  root["version"] = "1.0";
  root["truncation"] = nullptr;
  root["padding"] = nullptr;
  root["added_tokens"] = Json::array();
  for (size_t id = 0; id <= kEos; ++id)
    root["added_tokens"].push_back({{"id", id},
                                    {"content", kSpecialNames[id]},
                                    {"single_word", false},
                                    {"lstrip", false},
                                    {"rstrip", false},
                                    {"normalized", false},
                                    {"special", true}});
  // LlamaConverter (legacy): prefix a "▁", then spell every space as "▁"; no pre-tokenizer,
  // so the whole text is one BPE word, as in SentencePiece and run.c.
  root["normalizer"] = {
      {"type", "Sequence"},
      {"normalizers",
       Json::array({{{"type", "Prepend"}, {"prepend", kSpace}},
                    {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", kSpace}}})}};
  root["pre_tokenizer"] = nullptr;
  const auto special = [](const char* name, int typeId) {
    return Json{{"SpecialToken", {{"id", name}, {"type_id", typeId}}}};
  };
  const auto sequence = [](const char* name, int typeId) {
    return Json{{"Sequence", {{"id", name}, {"type_id", typeId}}}};
  };
  root["post_processor"] = {
      {"type", "TemplateProcessing"},
      {"single", Json::array({special("<s>", 0), sequence("A", 0)})},
      {"pair",
       Json::array({special("<s>", 0), sequence("A", 0), special("<s>", 1), sequence("B", 1)})},
      {"special_tokens", {{"<s>", {{"id", "<s>"}, {"ids", {kBos}}, {"tokens", {"<s>"}}}}}}};
  root["decoder"] = {
      {"type", "Sequence"},
      {"decoders",
       Json::array({{{"type", "Replace"}, {"pattern", {{"String", kSpace}}}, {"content", " "}},
                    {{"type", "ByteFallback"}},
                    {{"type", "Fuse"}},
                    {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}})}};
  root["model"] = {{"type", "BPE"},
                   {"dropout", nullptr},
                   {"unk_token", kSpecialNames[kUnk]},
                   {"continuing_subword_prefix", nullptr},
                   {"end_of_word_suffix", nullptr},
                   {"fuse_unk", true},
                   {"byte_fallback", true},
                   {"ignore_merges", false},
                   {"vocab", std::move(vocab)},
                   {"merges", std::move(merges)}};
  return root.dump(2) + "\n";
}

std::string llama2cTokenizerConfigJson(int64_t contextLength) {
  Json config;
  config["tokenizer_class"] = "LlamaTokenizerFast";
  config["add_bos_token"] = true;
  config["add_eos_token"] = false;
  config["bos_token"] = kSpecialNames[kBos];
  config["eos_token"] = kSpecialNames[kEos];
  config["unk_token"] = kSpecialNames[kUnk];
  config["pad_token"] = nullptr;
  config["legacy"] = true;
  config["clean_up_tokenization_spaces"] = false;
  config["model_max_length"] = contextLength;
  return config.dump(2) + "\n";
}

}  // namespace strata::model
