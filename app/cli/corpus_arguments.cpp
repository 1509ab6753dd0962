#include "corpus_arguments.h"

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

}  // namespace strata::cli
