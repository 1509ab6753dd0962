#include "support/letter_corpus.h"

#include <fstream>
#include <string>

namespace strata::testing {

void writeLetterTokenizer(const std::filesystem::path& folder) {
  std::string vocab = R"("<unk>": 0, "<s>": 1, "</s>": 2, "▁": 3)";
  for (char c = 'a'; c <= 'z'; ++c)
    vocab += ", \"" + std::string(1, c) + "\": " + std::to_string(4 + c - 'a');
  std::ofstream(folder / "tokenizer.json")
      << R"({"added_tokens": [{"id": 0, "content": "<unk>", "special": true},
             {"id": 1, "content": "<s>", "special": true},
             {"id": 2, "content": "</s>", "special": true}],
           "normalizer": null,
           "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
           "decoder": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"},
           "model": {"type": "BPE", "unk_token": "<unk>", "vocab": {)"
      << vocab << R"(}, "merges": []}})";
  std::ofstream(folder / "tokenizer_config.json")
      << R"({"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})";
}

void writeLetterCorpus(const std::filesystem::path& file) {
  std::ofstream out(file);
  const char* words[] = {"the", "layer", "geometry", "of",     "hidden", "states",  "is", "curved",
                         "and", "flat",  "in",       "places", "we",     "measure", "it"};
  for (int paragraph = 0; paragraph < 12; ++paragraph) {
    for (int w = 0; w < 20; ++w) out << words[(paragraph * 7 + w * 3) % 15] << ' ';
    out << "\n\n";
  }
}

}  // namespace strata::testing
