#pragma once
// llama2.c's tokenizer.bin rewritten as the Hugging Face files a Llama-2 (SentencePiece BPE)
// model folder carries: tokenizer.json and tokenizer_config.json. No LibTorch here.
//
// tokenizer.bin (export.py / tokenizer.py) stores, per SentencePiece id, the piece with "▁"
// written as " ", BOS as "\n<s>\n", EOS as "\n</s>\n", and the piece's score. The conversion
// undoes that and builds what transformers' LlamaConverter builds from the .model file: a BPE
// model with byte_fallback whose merges are derived from the vocabulary and the scores the way
// SentencePieceExtractor.extract(vocab_scores) does, the legacy Llama-2 normalizer
// (Prepend "▁", Replace " " → "▁"), the <s> template, and the Replace / ByteFallback / Fuse /
// Strip decoder.
//
// Encoding with the result gives the ids of llama2.c's run.c encode for ordinary text (checked
// on Shakespeare in tests/core/model/backbone/llama2c_import_test.cpp). Known differences, both in
// inputs that do not occur in plain text:
//  * "<unk>", "<s>" and "</s>" written in the text are special tokens in Hugging Face and
//    plain characters in run.c;
//  * bytes that are not valid UTF-8: run.c groups up to 4 bytes as one "code point", HF's Rust
//    strings are valid UTF-8 to begin with.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "tokenizer/llama2c_vocabulary.h"

namespace strata::model {

using tokenizer::Llama2cVocabulary;  // read by tokenizer::readLlama2cVocabulary

/** The SentencePiece spelling of piece `id` ("▁the", "<s>"). */
std::string sentencePiece(const Llama2cVocabulary& vocabulary, size_t id);

/**
 * Merge rules as transformers' SentencePieceExtractor.extract(vocab_scores) derives them: for
 * each piece (in id order), every split into two pieces that are both in the vocabulary, the
 * splits of one piece ordered by (left id, right id); then all of them stably sorted by the
 * piece's score, best first. Splits are at code point boundaries (Python string indices).
 */
std::vector<std::pair<std::string, std::string>> sentencePieceMerges(
    const Llama2cVocabulary& vocabulary);

/** tokenizer.json text. `file` names the source in errors: a piece that is not valid UTF-8 or
 *  two ids with the same piece are a FormatError (JSON and a token → id map cannot hold them). */
std::string llama2cTokenizerJson(const Llama2cVocabulary& vocabulary,
                                 const std::filesystem::path& file);

/** tokenizer_config.json text: LlamaTokenizerFast, <s>/</s>/<unk>, add_bos_token true,
 *  add_eos_token false, model_max_length `contextLength`. */
std::string llama2cTokenizerConfigJson(int64_t contextLength);

}  // namespace strata::model
