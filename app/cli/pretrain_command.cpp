// `strata-cli pretrain`: trains a small Llama from scratch on a local corpus and writes a
// Hugging Face folder (how the default backbone is made). Ctrl-C checkpoints the last step;
// --resume continues from the newest checkpoint.

#include <iostream>

#include "command_line.h"
#include "corpus_arguments.h"
#include "commands.h"
#include "recipes/pretrain.h"
#include "terminal_progress.h"

namespace strata::cli {
namespace {

std::string quoted(const std::string& arg) {
  if (!arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                            "0123456789-_./=:,+@") == std::string::npos)
    return arg;
  std::string out = "'";
  for (const char c : arg) {
    if (c == '\'') out.append("'\\''");  // close, escaped quote, reopen
    else out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

PretrainConfig pretrainConfigFrom(const CommandLine& cli, const Arguments& args) {
  PretrainConfig config;
  if (cli.has("config")) applyPretrainConfigFile(cli.value("config"), config);
  config.corpus = cli.value("corpus");
  config.output = cli.value("out");
  const auto integer = [&](const char* name, int64_t& field) {
    if (cli.has(name)) field = cli.integer(name);
  };
  integer("steps", config.steps);
  integer("batch", config.batch);
  integer("seq-len", config.seqLen);
  integer("warmup", config.warmup);
  integer("dim", config.dim);
  integer("layers", config.layers);
  integer("heads", config.heads);
  integer("kv-heads", config.kvHeads);
  integer("mlp", config.mlp);
  integer("checkpoint-every", config.checkpointEvery);
  integer("log-every", config.logEvery);
  integer("eval-every", config.evalEvery);
  integer("stop-after", config.stopAfter);
  if (cli.has("lr")) config.lr = cli.number("lr");
  if (cli.has("seed")) config.seed = static_cast<uint64_t>(cli.integer("seed"));
  if (cli.has("threads")) config.threads = static_cast<int>(cli.integer("threads"));
  if (cli.has("tokenizer")) config.tokenizer = cli.value("tokenizer");
  config.corpusOptions = corpusOptionsFrom(cli);
  config.resume = cli.isSet("resume");
  config.command = "strata-cli pretrain";
  for (const std::string& arg : args) config.command.append(" ").append(quoted(arg));
  config.onLog = [](const std::string& line) { std::cout << line << std::endl; };
  return config;
}

}  // namespace

int runPretrain(const Arguments& args) {
  CommandLine cli("pretrain",
                  "Train a small Llama (causal LM) from scratch on a local corpus: AdamW, linear\n"
                  "warm-up then cosine decay to 10%, gradient clipping at 1.0, seeded data order.\n"
                  "Logs to stdout and OUT/metrics.jsonl, checkpoints to OUT/checkpoints/step-<n>/,\n"
                  "and writes OUT/ as a Hugging Face Llama folder at the end. Options given on\n"
                  "the command line override those of --config.");
  cli.option("corpus", "PATH", "a text file, a folder of .txt files, or a .jsonl file")
      .option("out", "DIR", "the run and model folder to write")
      .option("config", "FILE", "JSON run configuration (keys as the options, with _ for -)")
      .option("steps", "N", "optimizer steps (default 1000)")
      .option("batch", "B", "windows per step (default 16)")
      .option("seq-len", "T", "tokens per window (default 128)")
      .option("lr", "LR", "peak learning rate (default 1e-3)")
      .option("warmup", "W", "linear warm-up steps (default 100)")
      .option("dim", "D", "hidden size (default 128)")
      .option("layers", "L", "decoder blocks (default 4)")
      .option("heads", "H", "attention heads (default 4)")
      .option("kv-heads", "K", "key/value heads (default: as many as heads)")
      .option("mlp", "M", "SwiGLU intermediate size (default 352)")
      .option("seed", "S", "seed of the weights and the data order (default 0)")
      .option("tokenizer", "byte|PATH", "byte-level tokenizer, or a tokenizer folder/file to copy")
      .option("checkpoint-every", "N", "steps between checkpoints (default: only at the end)")
      .option("log-every", "N", "steps between log lines (default 10)")
      .option("eval-every", "N", "steps between validation losses (default: at checkpoints)")
      .option("stop-after", "N", "stop after step N with a checkpoint (continue with --resume)")
      .option("threads", "N", "LibTorch threads (default: LibTorch's choice)")
      .flag("resume", "continue from the newest valid checkpoint in --out");
  addCorpusOptions(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const PretrainConfig config = pretrainConfigFrom(cli, args);

  PretrainSummary summary;
  const JobOutcome outcome =
      runWithTerminalProgress([&](JobContext& job) { summary = strata::runPretrain(config, job); });
  if (outcome == JobOutcome::Cancelled) {
    std::cerr << "pretrain cancelled: the last step is checkpointed in "
              << (config.output / "checkpoints").string() << "; continue with --resume\n";
    return 130;
  }
  if (!summary.finished) {
    std::cout << "Stopped after step " << summary.steps << " (checkpointed); continue with --resume\n";
    return 0;
  }
  std::cout << "Wrote " << config.output.string() << ": " << summary.parameters
            << " parameters, " << summary.steps << " steps, final train loss "
            << summary.finalTrainLoss << ", validation loss " << summary.finalValLoss << "\n";
  return 0;
}

}  // namespace strata::cli
