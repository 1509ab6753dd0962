#include "corpus_arguments.h"

#include <string>

namespace strata::cli {

CommandLine& addCorpusOptions(CommandLine& cli) {
  return cli.option("corpus-format", "FORMAT", "auto, text, folder or jsonl", "auto")
      .option("split", "RULE", "documents of a text file: auto, paragraphs, lines, file, wikitext",
              "auto")
      .option("jsonl-field", "NAME", "the JSONL field holding the text", "text");
}

io::CorpusOptions corpusOptionsFrom(const CommandLine& cli) {
  io::CorpusOptions options;
  const auto format = io::parseCorpusFormat(cli.value("corpus-format"));
  if (!format) throw UsageError("--corpus-format must be auto, text, folder or jsonl");
  options.format = *format;
  const auto split = io::parseDocumentSplit(cli.value("split"));
  if (!split) throw UsageError("--split must be auto, paragraphs, lines, file or wikitext");
  options.split = *split;
  options.jsonlField = cli.value("jsonl-field");
  return options;
}

void checkSamplingOptions(const io::TokenSamplerConfig& sampling) {
  if (sampling.tokenBudget < 1)
    throw UsageError("--tokens must be at least 1 (got " + std::to_string(sampling.tokenBudget) +
                     ")");
  if (sampling.skipFirstPositions < 0)
    throw UsageError("--skip-first must not be negative (got " +
                     std::to_string(sampling.skipFirstPositions) + ")");
  // One stored position after the skipped ones (the sampler adds the BOS's, where there is one).
  if (sampling.sequenceLength < sampling.skipFirstPositions + 1)
    throw UsageError("--seq-len must be at least " +
                     std::to_string(sampling.skipFirstPositions + 1) + " (got " +
                     std::to_string(sampling.sequenceLength) + "): one stored position after the " +
                     std::to_string(sampling.skipFirstPositions) + " skipped");
  if (sampling.maxDocuments < 0)
    throw UsageError("--max-documents must not be negative (0 reads them all)");
}

}  // namespace strata::cli
