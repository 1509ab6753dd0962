#include "support/gguf_reference_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include "support/tokenizer_test_support.h"

namespace strata::testing {
namespace {

using nlohmann::json;

// Merges as [left, right] pairs whichever way the file wrote them ("left right" before
// tokenizers 0.20).
json mergePairs(const json& merges) {
  json pairs = json::array();
  for (const json& merge : merges) {
    if (!merge.is_string()) {
      pairs.push_back(merge);
      continue;
    }
    const std::string text = merge.get<std::string>();
    const size_t space = text.find(' ');
    pairs.push_back(
        {text.substr(0, space), space == std::string::npos ? "" : text.substr(space + 1)});
  }
  return pairs;
}

template <typename Describe>
void expectSameList(const json& ours, const json& theirs, const std::string& what,
                    Describe describe) {
  if (ours == theirs) return;
  const size_t n = std::min(ours.size(), theirs.size());
  size_t at = 0;
  while (at < n && ours[at] == theirs[at]) ++at;
  ADD_FAILURE() << what << ": Strata has " << ours.size() << ", transformers " << theirs.size()
                << "; first difference at #" << at << ": Strata "
                << (at < ours.size() ? describe(ours[at]) : "(none)") << ", transformers "
                << (at < theirs.size() ? describe(theirs[at]) : "(none)");
}

std::string idsAround(const tokenizer::Tokenizer& tokenizer, const std::vector<int32_t>& ids,
                      size_t at) {
  std::string out;
  for (size_t i = at; i < std::min(ids.size(), at + 4); ++i) {
    std::string text;
    try {
      text = quoted(tokenizer.tokenText(ids[i]));
    } catch (const std::out_of_range&) {
      text = "(no such id)";
    }
    out += std::to_string(ids[i]) + " " + text + "  ";
  }
  return out.empty() ? "(end)" : out;
}

}  // namespace

void expectSameTokenizerJson(const std::string& ours, const std::filesystem::path& theirs) {
  const json a = json::parse(ours);
  const json b = json::parse(std::ifstream(theirs));
  for (const auto& [key, value] : b.items())
    if (!a.contains(key)) ADD_FAILURE() << "Strata's tokenizer.json lacks \"" << key << "\"";
  for (const auto& [key, value] : a.items()) {
    if (!b.contains(key)) {
      ADD_FAILURE() << "Strata's tokenizer.json has \"" << key << "\", transformers' has not";
    } else if (key == "added_tokens") {
      expectSameList(value, b[key], "added_tokens", [](const json& t) { return t.dump(); });
    } else if (key != "model") {
      EXPECT_EQ(value, b[key]) << "section \"" << key << "\"";
    }
  }
  const json& ma = a.at("model");
  const json& mb = b.at("model");
  for (const auto& [key, value] : mb.items()) {
    if (!ma.contains(key)) {
      ADD_FAILURE() << "model lacks \"" << key << "\"";
    } else if (key == "merges") {
      expectSameList(mergePairs(ma[key]), mergePairs(value), "model.merges",
                     [](const json& m) { return m.dump(); });
    } else if (key == "vocab" && ma[key] != value) {
      size_t differing = 0;
      std::string first;
      for (const auto& [token, id] : value.items())
        if (!ma[key].contains(token) || ma[key][token] != id)
          if (differing++ == 0) first = quoted(token) + " → " + id.dump();
      ADD_FAILURE() << "model.vocab: Strata has " << ma[key].size() << " tokens, transformers "
                    << value.size() << "; " << differing << " of transformers' differ, first "
                    << first;
    } else if (key != "vocab") {
      EXPECT_EQ(ma[key], value) << "model." << key;
    }
  }
}

void expectSameSpecialTokens(const std::string& oursConfig, const json& reference) {
  const json config = json::parse(oursConfig);
  for (const auto& [key, value] : reference.at("special").items())
    EXPECT_EQ(config.value(key, json()), value) << "tokenizer_config.json " << key;
}

void expectSameEncodings(const tokenizer::Tokenizer& tokenizer, const json& reference,
                         const std::string& name) {
  const auto texts = reference.at("texts").get<std::vector<std::string>>();
  const auto kinds = reference.at("kinds").get<std::vector<std::string>>();
  ASSERT_EQ(kinds.size(), texts.size());
  std::map<std::string, size_t> perKind;
  size_t differing = 0;
  const auto report = [&](size_t i, const std::string& what, const std::string& detail) {
    if (++differing <= 8)
      ADD_FAILURE() << name << ": " << kinds[i] << " #" << i << " "
                    << quoted(texts[i].substr(0, 100)) << ": " << what << "\n"
                    << detail;
  };
  const auto compareIds = [&](size_t i, const std::vector<int32_t>& ours, const json& want,
                              const char* what) {
    const auto theirs = want.get<std::vector<int32_t>>();
    if (ours == theirs) return;
    const auto part = std::mismatch(ours.begin(), ours.end(), theirs.begin(), theirs.end());
    const auto at = static_cast<size_t>(part.first - ours.begin());
    report(i, std::string(what) + " differ at token " + std::to_string(at),
           "  Strata:       " + idsAround(tokenizer, ours, at) +
               "\n  transformers: " + idsAround(tokenizer, theirs, at));
  };
  for (size_t i = 0; i < texts.size(); ++i) {
    ++perKind[kinds[i]];
    compareIds(i, tokenizer.encode(texts[i], true), reference["ids"][i], "tokenizer(text) ids");
    compareIds(i, tokenizer.encode(texts[i]), reference["plain_ids"][i], "ids without specials");
    const auto ids = reference["ids"][i].get<std::vector<int32_t>>();
    for (const bool skip : {false, true}) {
      const std::string theirs =
          reference[skip ? "decoded_skipping_special" : "decoded"][i].get<std::string>();
      const std::string ours = tokenizer.decode(ids, skip);
      if (ours != theirs)
        report(i, skip ? "decode skipping special tokens differs" : "decode differs",
               "  Strata:       " + quoted(ours.substr(0, 100)) +
                   "\n  transformers: " + quoted(theirs.substr(0, 100)));
    }
  }
  EXPECT_EQ(differing, 0u) << name << ": " << differing << " differences over " << texts.size()
                           << " texts";
  std::cout << "  " << name << " (transformers " << reference.value("transformers", "?")
            << "): " << texts.size() << " texts (";
  for (const auto& [kind, count] : perKind) std::cout << count << " " << kind << "s ";
  std::cout << "), each with special tokens, without, decoded and decoded skipping special: "
            << differing << " differences\n";
}

}  // namespace strata::testing
