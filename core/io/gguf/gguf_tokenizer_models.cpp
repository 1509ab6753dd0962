// One backend per tokenizer.ggml.model, as transformers 5.25 builds it
// (integrations/gguf/gguf_tokenizer_mapping.py): byte_level_tokenizer → GPT2Tokenizer,
// sentencepiece_tokenizer → LlamaTokenizer, phi3_tokenizer, gemma_tokenizer → GemmaTokenizer,
// then set_split_regex. The JSON written here is what those classes serialize, field for field.

#include <array>
#include <string_view>

#include "common/error.h"
#include "io/gguf/gguf_tokenizer_parts.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/utf8_text.h"

namespace strata::io::gguf_tokenizer {
namespace {

const std::string kMetaspace = "\u2581";  // "▁", SentencePiece's visible space

// GGUF_PRE_TOKENIZER_SPLITS: the regex that splits text the way the vocabulary's merges were
// learned, per tokenizer.ggml.pre. Copied verbatim from transformers.
constexpr std::string_view kLlama3Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3})"
    R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kTekkenSplit =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*)"
    R"(|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kGpt4oSplit =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?)"
    R"(|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen2Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kQwen35Split =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

constexpr std::array<std::pair<std::string_view, std::string_view>, 23> kSplits{{
    {"llama3", kLlama3Split},       {"llama-v3", kLlama3Split},
    {"llama-bpe", kLlama3Split},    {"falcon3", kLlama3Split},
    {"falcon-h1", kLlama3Split},    {"pixtral", kLlama3Split},
    {"midm-2.0", kLlama3Split},     {"lfm2", kLlama3Split},
    {"jina-v5-nano", kLlama3Split}, {"dbrx", kLlama3Split},
    {"smaug-bpe", kLlama3Split},    {"tekken", kTekkenSplit},
    {"qwen2", kQwen2Split},         {"deepseek-r1-qwen", kQwen2Split},
    {"kormo", kQwen2Split},         {"f2llmv2", kQwen2Split},
    {"megrez", kQwen2Split},        {"qwen35", kQwen35Split},
    {"gpt-4o", kGpt4oSplit},        {"llama4", kGpt4oSplit},
    {"kanana2", kGpt4oSplit},       {"talkie", kGpt4oSplit},
    {"minimax-m2", kGpt4oSplit},
}};

Json byteLevelStep(bool addPrefixSpace, bool useRegex) {
  return {{"type", "ByteLevel"},
          {"add_prefix_space", addPrefixSpace},
          {"trim_offsets", true},
          {"use_regex", useRegex}};
}

Json replaceStep(const std::string& from, const std::string& to) {
  return {{"type", "Replace"}, {"pattern", {{"String", from}}}, {"content", to}};
}

Json bpeModel(bool sentencePiece, const Json& unkToken) {
  const Json affix = sentencePiece ? Json() : Json("");  // the classes differ: null vs ""
  return {{"type", "BPE"},
          {"dropout", nullptr},
          {"unk_token", unkToken},
          {"continuing_subword_prefix", affix},
          {"end_of_word_suffix", affix},
          {"fuse_unk", sentencePiece},
          {"byte_fallback", sentencePiece},
          {"ignore_merges", false}};
}

bool inByteAlphabet(std::string_view token) {
  for (size_t pos = 0; pos < token.size(); pos += tokenizer::utf8::sequenceLength(token, pos))
    if (!tokenizer::byte_level::byteOfCodepoint(tokenizer::utf8::decodeAt(token, pos)))
      return false;
  return true;
}

// get_merges: the file's "left right" strings (tuple(merge.split(" "))), or, when it has none,
// merges derived from the vocabulary ranked by `scored` (the token scores by default).
std::vector<Merge> merges(const Metadata& m, const std::vector<std::string>& tokens,
                          const std::vector<std::pair<std::string, double>>* scored = nullptr) {
  std::vector<Merge> result;
  if (m.merges) {
    result.reserve(m.merges->size());
    for (size_t i = 0; i < m.merges->size(); ++i) {
      const std::string& merge = (*m.merges)[i];
      const size_t space = merge.find(' ');
      if (space == std::string::npos || merge.find(' ', space + 1) != std::string::npos)
        throw FormatError(m.file,
                          "merge #" + std::to_string(i) + " \"" + merge +
                              "\" is not two tokens separated by one space",
                          "tokenizer.ggml.merges", "key");
      result.emplace_back(merge.substr(0, space), merge.substr(space + 1));
    }
    return result;
  }
  if (scored != nullptr) return mergesFromScores(indexTokens(tokens), *scored);
  if (m.scores.empty())
    throw FormatError(m.file,
                      "is missing, and so is tokenizer.ggml.scores to derive the merges from",
                      "tokenizer.ggml.merges", "key");
  return mergesFromScores(indexTokens(tokens), pythonDict(tokens, m.scores));
}

// byte_level_tokenizer: GPT2Tokenizer(vocab, merges). A token outside the byte alphabet (llama.cpp
// writes some special tokens as plain UTF-8) is respelled byte by byte.
Backend byteLevelBackend(const Metadata& m) {
  std::vector<std::string> spelled;
  spelled.reserve(m.tokens.size());
  for (const std::string& token : m.tokens)
    spelled.push_back(inByteAlphabet(token) ? token : tokenizer::byte_level::encode(token));
  Backend b;
  b.vocab = indexTokens(spelled);
  b.merges = merges(m, m.tokens);  // derived ones (rare) come from the file's own spelling
  b.model = bpeModel(false, nullptr);
  b.preTokenizer = byteLevelStep(false, true);
  b.decoder = byteLevelStep(true, true);
  b.classSpecialTokens = {"<|endoftext|>"};
  b.byteLevel = true;
  return b;
}

enum class SentencePieceClass { Llama, Phi3, Gemma, Gemma4 };

// sentencepiece_tokenizer / phi3_tokenizer / gemma_tokenizer.
Backend sentencePieceBackend(const Metadata& m, SentencePieceClass kind) {
  Backend b;
  const bool gemma = kind == SentencePieceClass::Gemma || kind == SentencePieceClass::Gemma4;
  if (kind == SentencePieceClass::Gemma) {
    // Gemma's files store whitespace-only tokens with real spaces; GemmaTokenizer looks them up
    // as "▁" runs. Its merges follow token order, not its scores.
    std::vector<std::string> respelled = m.tokens;
    for (std::string& token : respelled) {
      bool allSpace = !token.empty();
      for (size_t pos = 0; allSpace && pos < token.size();
           pos += tokenizer::utf8::sequenceLength(token, pos))
        allSpace = isPythonSpace(tokenizer::utf8::decodeAt(token, pos));
      if (allSpace && token.find(' ') != std::string::npos) {
        const size_t length = codePointCount(token);
        token.clear();
        for (size_t i = 0; i < length; ++i) token += kMetaspace;
      }
    }
    std::vector<double> positions(respelled.size());
    for (size_t i = 0; i < positions.size(); ++i) positions[i] = -static_cast<double>(i);
    const auto scored = pythonDict(respelled, positions);
    b.vocab = indexTokens(respelled);
    b.merges = merges(m, respelled, &scored);
  } else {
    b.vocab = indexTokens(m.tokens);
    b.merges = merges(m, m.tokens);
  }
  if (gemma) {
    // GemmaTokenizer names "<unk>" as the model's unknown token; Strata's loader (unlike
    // tokenizers, which fails only when it needs it) requires it in the vocabulary.
    b.model = bpeModel(true, b.vocab.contains("<unk>") ? Json("<unk>") : Json());
    b.normalizer = replaceStep(" ", kMetaspace);
    b.preTokenizer = {{"type", "Split"},
                      {"pattern", {{"String", " "}}},
                      {"behavior", "MergedWithPrevious"},
                      {"invert", false}};
    b.decoder = {{"type", "Sequence"},
                 {"decoders",
                  {replaceStep(kMetaspace, " "), {{"type", "ByteFallback"}}, {{"type", "Fuse"}}}}};
    b.classSpecialTokens = {"<bos>", "<eos>", "<unk>", "<pad>", "<mask>"};
    return b;
  }
  b.model = bpeModel(true, nullptr);
  b.preTokenizer = {{"type", "Metaspace"},
                    {"replacement", kMetaspace},
                    {"prepend_scheme", "first"},
                    {"split", false}};
  b.decoder = {{"type", "Sequence"},
               {"decoders",
                {replaceStep(kMetaspace, " "),
                 {{"type", "ByteFallback"}},
                 {{"type", "Fuse"}},
                 {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}};
  if (kind == SentencePieceClass::Phi3) {
    // Phi-3 puts the prefix "▁" in a normalizer, so "  hi" keeps exactly its own spaces.
    b.normalizer = {
        {"type", "Sequence"},
        {"normalizers",
         {{{"type", "Prepend"}, {"prepend", kMetaspace}}, replaceStep(" ", kMetaspace)}}};
    b.preTokenizer = nullptr;
  }
  b.classSpecialTokens = {"<s>", "</s>", "<unk>"};
  return b;
}

// Every merge must join two vocabulary tokens into a third, as tokenizers' BPE builder demands.
void checkMerges(const Metadata& m, const Backend& b) {
  for (size_t i = 0; i < b.merges.size(); ++i) {
    const auto& [left, right] = b.merges[i];
    for (const std::string& part : {left, right, left + right})
      if (!b.vocab.contains(part))
        throw FormatError(m.file,
                          "merge #" + std::to_string(i) + " \"" + left + " " + right +
                              "\" needs \"" + part + "\", which is not in tokenizer.ggml.tokens",
                          "tokenizer.ggml.merges", "key");
  }
}

}  // namespace

Backend buildBackend(const Metadata& m) {
  Backend b;
  const std::string& arch = m.architecture;
  if (m.model == "gpt2") {
    b = byteLevelBackend(m);
  } else if (m.model == "llama") {
    // GGUF_SENTENCEPIECE_BUILDERS picks by architecture; any other gets LlamaTokenizer.
    const bool gemma = arch == "gemma" || arch == "gemma2" || arch == "gemma3";
    b = sentencePieceBackend(m, gemma            ? SentencePieceClass::Gemma
                                : arch == "phi3" ? SentencePieceClass::Phi3
                                                 : SentencePieceClass::Llama);
  } else if (m.model == "gemma4") {
    b = sentencePieceBackend(m, SentencePieceClass::Gemma4);
  } else if (m.model == "t5") {
    throw FormatError(m.file,
                      "tokenizer model 't5' (Unigram) is not supported: Strata's tokenizers have "
                      "no Unigram model",
                      "tokenizer.ggml.model", "key");
  } else {
    throw FormatError(
        m.file,
        "tokenizer model '" + m.model + "' is not supported (supported: gpt2, llama, gemma4)",
        "tokenizer.ggml.model", "key");
  }
  checkMerges(m, b);
  for (const auto& [pre, regex] : kSplits)
    if (pre == m.pre)
      b.preTokenizer = {{"type", "Sequence"},
                        {"pretokenizers",
                         {{{"type", "Split"},
                           {"pattern", {{"Regex", std::string(regex)}}},
                           {"behavior", "Isolated"},
                           {"invert", false}},
                          byteLevelStep(false, false)}}};
  // The model's own tokenizer class (the one transformers loads the whole file as) names a mask
  // token only for Gemma 1-3 (GemmaTokenizer); it adds it if the vocabulary lacks it.
  if (arch == "gemma" || arch == "gemma2" || arch == "gemma3" || arch == "gemma3n")
    b.maskToken = "<mask>";
  return b;
}

}  // namespace strata::io::gguf_tokenizer
