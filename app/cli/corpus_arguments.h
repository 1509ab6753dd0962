#pragma once
// The corpus options every corpus-reading command takes (--corpus-format, --split,
// --jsonl-field), declared and read in one place.

#include "command_line.h"
#include "io/corpus/corpus.h"

namespace strata::cli {

/** Declares --corpus-format, --split and --jsonl-field on `cli`. */
CommandLine& addCorpusOptions(CommandLine& cli);

/** Reads them back; UsageError for a name the corpus readers do not know. */
io::CorpusOptions corpusOptionsFrom(const CommandLine& cli);

}  // namespace strata::cli
