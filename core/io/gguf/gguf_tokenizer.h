#pragma once
// The tokenizer of a GGUF file (llama.cpp's model format) as the Hugging Face files a model
// folder carries, so that Strata's tokenizer.json loader (core/tokenizer) reads it like any
// other. A GGUF stores no tokenizer.json, only llama.cpp's metadata: tokenizer.ggml.model,
// .pre, .tokens, .token_type, .scores, .merges, the special token ids, add_bos_token /
// add_eos_token and tokenizer.chat_template. The files written here are the ones transformers
// builds from that metadata (AutoTokenizer.from_pretrained(folder, gguf_file=name), transformers
// 5.25, integrations/gguf/gguf_tokenizer_mapping.py) — which is not always what the model's
// own Hub tokenizer.json says (SmolLM2's conversion has no Digits splitter, Qwen2's no NFC):
// the reference is the conversion, so that Strata and transformers agree on every id.
//
// Supported tokenizer.ggml.model values, as transformers builds them:
//  * "gpt2": byte-level BPE (GPT2Tokenizer); tokens outside the byte alphabet respelled in it;
//    tokenizer.ggml.pre picks a Split regex (Llama-3, Qwen2, Qwen3.5, GPT-4o, Tekken families)
//    before a regex-free ByteLevel step, else GPT-2's own ByteLevel regex.
//  * "llama": SentencePiece BPE with byte fallback (LlamaTokenizer: Metaspace "first", no
//    normalizer); architecture "phi3" prepends and replaces "▁" in a normalizer instead;
//    "gemma", "gemma2", "gemma3" build GemmaTokenizer (spaces → "▁" normalizer, no prefix)
//    with whitespace-only tokens respelled as "▁" runs and merges ordered by token id.
//  * "gemma4": GemmaTokenizer on the file's vocabulary as it is; never adds BOS.
// Merges come from tokenizer.ggml.merges, or are derived from the vocabulary as transformers'
// generate_merges does (gguf_tokenizer_merges.cpp). Tokens typed CONTROL (3) become special
// added tokens and USER_DEFINED (4) plain added ones, all matched in the raw text.
// "t5" (Unigram) is not supported: Strata's tokenizer pipeline has no Unigram model.

#include <string>

namespace strata::io {

class GgufFile;

/** The text of the files; write each under its name into the model folder. */
struct GgufTokenizerFiles {
  std::string tokenizerJson;        ///< tokenizer.json
  std::string tokenizerConfigJson;  ///< tokenizer_config.json (special token names,
                                    ///< add_bos_token / add_eos_token, chat_template)
};

/**
 * tokenizer.json and tokenizer_config.json equivalent to what transformers builds from the same
 * GGUF (see the top of this file). Throws FormatError naming the file and the key for missing
 * or inconsistent metadata (no tokens, a token_type or scores count that is not the token
 * count, a special token id out of range, a merge that is not two vocabulary tokens, a token
 * that is not UTF-8) and for an unsupported tokenizer model, which it names.
 */
GgufTokenizerFiles ggufTokenizerFiles(const GgufFile& gguf);

}  // namespace strata::io
