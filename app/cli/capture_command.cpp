// `strata-cli capture`: hidden states of every layer over a sampled corpus, into an HDF5
// activation store. Ctrl-C stops after the current batch; every finished layer stays valid
// and `--resume` completes the store later.

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/human_format.h"
#include "corpus_arguments.h"
#include "device_arguments.h"
#include "engine/capture.h"
#include "terminal_progress.h"

namespace strata::cli {
namespace {

engine::CaptureConfig captureConfigFrom(const CommandLine& cli) {
  engine::CaptureConfig config;
  config.modelFolder = cli.value("model");
  config.corpus = cli.value("corpus");
  config.output = cli.value("out");
  config.sampling.tokenBudget = cli.integer("tokens");
  config.sampling.sequenceLength = cli.integer("seq-len");
  config.sampling.skipFirstPositions = cli.integer("skip-first");
  config.sampling.seed = static_cast<uint64_t>(cli.integer("seed"));
  config.sampling.maxDocuments = cli.integer("max-documents");
  config.sampling.distinctPrefixes = !cli.isSet("keep-duplicate-prefixes");
  checkSamplingOptions(config.sampling);
  config.batchSequences = cli.integer("batch");
  if (config.batchSequences < 1)
    throw UsageError("--batch must be at least 1 (got " + std::to_string(config.batchSequences) +
                     ")");
  config.streamLayers = cli.isSet("stream-layers");
  config.overwrite = cli.isSet("overwrite");
  config.resume = cli.isSet("resume");
  if (config.overwrite && config.resume)
    throw UsageError("--overwrite and --resume exclude each other");

  const std::string dtype = cli.value("dtype");
  if (dtype != "float16" && dtype != "float32")
    throw UsageError("--dtype must be float16 or float32, got '" + dtype + "'");
  config.dtype = dtype == "float16" ? io::StoreDType::Float16 : io::StoreDType::Float32;

  config.computeDType = computeDTypeFrom(cli);

  config.write.threads = static_cast<int>(cli.integer("write-threads"));
  config.write.deflateLevel = static_cast<int>(cli.integer("deflate-level"));
  if (config.write.threads < 0) throw UsageError("--write-threads must be 0 or more");
  if (config.write.deflateLevel < 1 || config.write.deflateLevel > 9)
    throw UsageError("--deflate-level must be between 1 and 9");

  config.corpusOptions = corpusOptionsFrom(cli);
  config.device = deviceFrom(cli);
  return config;
}

}  // namespace

int runCapture(const Arguments& args) {
  CommandLine cli("capture",
                  "Run a model over a sampled corpus and write the hidden state of every layer\n"
                  "(h_0 = embedding output … h_L = last block, before the final norm) into an\n"
                  "HDF5 activation store, layer by layer. Interrupted captures resume with\n"
                  "--resume; Ctrl-C stops cleanly, keeping every finished layer.");
  cli.option("model", "DIR", "Hugging Face model folder or .gguf file")
      .option("corpus", "PATH", "a text file, a folder of .txt files, or a .jsonl file")
      .option("out", "FILE", "the activation store to write (.h5)")
      .option("tokens", "N", "number of token positions to store", "8192")
      .option("seq-len", "T",
              "tokens per sequence, a BOS included where the model's convention has one", "128")
      .option("skip-first", "K",
              "positions skipped at the start of each sequence (attention sinks)", "1")
      .option("seed", "S", "seed of the token sampling", "0")
      .option("max-documents", "N", "read only the first N documents (0 = all)", "0")
      .flag("keep-duplicate-prefixes",
            "also store positions whose causal prefix an earlier position had (identical hidden "
            "states; dropped by default)")
      .option("dtype", "TYPE", "float16 or float32 storage", "float16")
      .option("batch", "B", "sequences per forward pass", "16")
      .option("write-threads", "N",
              "threads compressing the store's chunks (0 = as many as compute threads)", "0")
      .option("deflate-level", "L",
              "zlib level of a new store, 1 (fastest) to 9; readers need no change", "1")
      .flag("stream-layers", "keep only one block's weights in memory (for models larger than RAM)")
      .flag("resume", "finish an interrupted store at --out (same corpus and sampling options)")
      .flag("overwrite", "replace an existing store at --out");
  addCorpusOptions(cli);
  addDeviceOption(cli);
  addComputeDTypeOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const engine::CaptureConfig config = captureConfigFrom(cli);

  engine::CaptureSummary summary;
  const JobOutcome outcome = runWithTerminalProgress(
      [&](JobContext& job) { summary = strata::engine::runCapture(config, job); });
  if (outcome == JobOutcome::Cancelled) {
    std::cerr << "capture cancelled: finished layers are kept in " << config.output.string()
              << "; run again with --resume to complete it\n";
    return 130;
  }

  std::cout << "Wrote " << config.output.string() << ": " << formatWithSeparators(summary.tokens)
            << " tokens from " << summary.sequences << " sequences, " << summary.layersWritten
            << " layers on " << (config.device == "cuda" ? "CUDA" : "the CPU");
  if (summary.layersKept > 0) std::cout << " (" << summary.layersKept << " already complete)";
  if (summary.seconds > 0)
    std::cout << " in " << static_cast<int64_t>(summary.seconds * 100) / 100.0 << " s ("
              << formatCount(static_cast<int64_t>(summary.tokensPerSecond)) << " token-layers/s)";
  std::cout << "\n";
  return 0;
}

}  // namespace strata::cli
