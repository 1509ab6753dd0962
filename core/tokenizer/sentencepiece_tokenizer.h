#pragma once
// SentencePiece tokenizer.model files, read by Debian's libsentencepiece (no SentencePiece
// header here: the processor lives in the .cpp behind the Tokenizer interface).

#include <filesystem>
#include <memory>

#include "tokenizer/tokenizer.h"

namespace strata::tokenizer {

/** A SentencePiece model protobuf (Llama-2 / Mistral / Gemma tokenizer.model, BPE or unigram,
 *  with or without byte fallback), read by libsentencepiece. encode gives SentencePiece's own
 *  ids (its normaliser included, e.g. remove_extra_whitespaces), with `addSpecialTokens` after
 *  the model's BOS as HF's Llama-2 / Gemma templates do. Control pieces written in the text
 *  ("<s>") are spelled out, as SentencePiece and llama2.c's run.c do; user-defined pieces are
 *  recognised. decode drops the dummy-prefix space of the first piece as SentencePiece does;
 *  byte pieces give their raw bytes; special pieces (control, <unk>) are written by name unless
 *  skipped. Throws IoError when the file cannot be read and FormatError naming it when it is
 *  not a SentencePiece model. */
std::unique_ptr<Tokenizer> loadSentencePiece(const std::filesystem::path& file);

}  // namespace strata::tokenizer
