#pragma once
// The corpus options every corpus-reading command takes (--corpus-format, --split,
// --jsonl-field), declared and read in one place.

#include "command_line.h"
#include "io/corpus/corpus.h"
#include "io/corpus/token_sampler.h"

namespace strata::cli {

/** Declares --corpus-format, --split and --jsonl-field on `cli`. */
CommandLine& addCorpusOptions(CommandLine& cli);

/** Reads them back; UsageError for a name the corpus readers do not know. */
io::CorpusOptions corpusOptionsFrom(const CommandLine& cli);

/** The bounds of the sampling options that do not depend on the model, as usage errors naming
 *  them (--tokens, --seq-len, --skip-first, --max-documents) before anything is read: the
 *  sampler's own check comes after the model and the tokenizer, in its field names. */
void checkSamplingOptions(const io::TokenSamplerConfig& sampling);

}  // namespace strata::cli
