// libFuzzer target: encode and decode of arbitrary bytes. The first input byte picks the
// tokenizer, the second the options; the rest is the text. Tokenizers: GPT-2 (vocab.json +
// merges.txt) and Llama-3 (tiktoken) from ../shared/data/tokenizers when present, and a small
// Llama-2 style tokenizer.json (Metaspace normaliser, byte fallback) written at start-up.
//
// Checked beyond "no crash": every id is inside the vocabulary, and byte-level tokenizers
// give the text back exactly (decode(encode(s)) == s, as tokenizer.h promises even for
// invalid UTF-8).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_input_file.h"
#include "tokenizer/tokenizer.h"

namespace {

struct Loaded {
  std::unique_ptr<strata::tokenizer::Tokenizer> tokenizer;
  bool roundTrips = false;
};

// Llama-2 style (as tests/core/tokenizer/tokenizer_json_test.cpp builds it): <unk> <s> </s>, the
// 256 byte tokens, a few "▁" pieces and their merges.
std::string llama2StyleJson() {
  std::string vocab = R"("<unk>":0,"<s>":1,"</s>":2)";
  for (int b = 0; b < 256; ++b) {
    char name[16];
    std::snprintf(name, sizeof name, ",\"<0x%02X>\":%d", b, 3 + b);
    vocab += name;
  }
  int id = 259;
  for (const char* piece :
       {"\u2581", "h", "e", "l", "o", "w", "r", "d", "\u2581h", "\u2581he", "ll", "\u2581hell",
        "\u2581hello", "\u2581w", "or", "\u2581wor", "\u2581worl", "\u2581world"})
    vocab += ",\"" + std::string(piece) + "\":" + std::to_string(id++);
  return R"({"added_tokens":[{"id":0,"content":"<unk>","special":true,"normalized":false},
{"id":1,"content":"<s>","special":true,"normalized":false},
{"id":2,"content":"</s>","special":true,"normalized":false}],
"normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"\u2581"},
{"type":"Replace","pattern":{"String":" "},"content":"\u2581"}]},
"pre_tokenizer":null,
"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},
{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},
"decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"\u2581"},"content":" "},
{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]},
"model":{"type":"BPE","unk_token":"<unk>","byte_fallback":true,"fuse_unk":false,"vocab":{)" +
         vocab +
         R"(},"merges":["\u2581 h","\u2581h e","l l","\u2581he ll","\u2581hell o","\u2581 w","o r",
"\u2581w or","\u2581wor l","\u2581worl d"]}})";
}

std::vector<Loaded> loadAll() {
  std::vector<Loaded> all;
  const std::string json = llama2StyleJson();
  const auto file = strata::fuzz::writeInput(
      "tokenizer.json", reinterpret_cast<const uint8_t*>(json.data()), json.size());
  all.push_back({strata::tokenizer::loadTokenizerJson(file), false});
  const std::filesystem::path shared = STRATA_SHARED_DATA_DIR "/tokenizers";
  if (std::filesystem::exists(shared / "gpt2/vocab.json"))
    all.push_back({strata::tokenizer::loadVocabAndMerges(shared / "gpt2/vocab.json",
                                                         shared / "gpt2/merges.txt"),
                   true});
  else
    std::fprintf(stderr, "fuzz_tokenizer_encode: %s missing, GPT-2 not fuzzed\n",
                 (shared / "gpt2").c_str());
  if (std::filesystem::exists(shared / "llama3/tokenizer.model"))
    all.push_back({strata::tokenizer::loadTiktoken(shared / "llama3/tokenizer.model"), true});
  else
    std::fprintf(stderr, "fuzz_tokenizer_encode: %s missing, Llama-3 not fuzzed\n",
                 (shared / "llama3").c_str());
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<Loaded> tokenizers = loadAll();
  if (size < 2) return 0;
  const Loaded& chosen = tokenizers[data[0] % tokenizers.size()];
  const bool addSpecial = (data[1] & 1) != 0;
  const bool skipSpecial = (data[1] & 2) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  const strata::tokenizer::Tokenizer& tokenizer = *chosen.tokenizer;

  const std::vector<int32_t> ids = tokenizer.encode(text, addSpecial);
  for (const int32_t id : ids)
    if (id < 0 || id >= tokenizer.vocabSize()) {
      std::fprintf(stderr, "id %d outside the vocabulary (%lld)\n", id,
                   static_cast<long long>(tokenizer.vocabSize()));
      std::abort();
    }
  const std::string back = tokenizer.decode(ids, skipSpecial);
  if (chosen.roundTrips && !addSpecial && !skipSpecial && back != text) {
    std::fprintf(stderr, "%s: decode(encode(text)) differs from the text\n",
                 tokenizer.kind().c_str());
    std::abort();
  }
  return 0;
}
