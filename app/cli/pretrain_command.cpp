// `strata-cli pretrain`: the pretrain recipe with its settings as named options — trains a small
// Llama from scratch on a local corpus and writes a Hugging Face folder (how the default
// backbone is made). Equivalent to `strata-cli train pretrain --set ...`; Ctrl-C checkpoints
// the last step; --resume continues from the newest valid checkpoint.

#include <iostream>

#include "corpus_arguments.h"
#include "engine/recipe_catalog.h"
#include "engine/run_folder.h"
#include "training_arguments.h"

namespace strata::cli {
namespace {

// Options that are recipe settings, as (option, setting key).
constexpr std::pair<const char*, const char*> kSettingOptions[] = {
    {"steps", "steps"},
    {"batch", "batch"},
    {"seq-len", "seq_len"},
    {"lr", "lr"},
    {"warmup", "warmup"},
    {"dim", "dim"},
    {"layers", "layers"},
    {"heads", "heads"},
    {"kv-heads", "kv_heads"},
    {"mlp", "mlp"},
    {"seed", "seed"},
    {"tokenizer", "tokenizer"},
    {"checkpoint-every", "checkpoint_every"},
    {"log-every", "log_every"},
    {"eval-every", "eval_every"},
    {"stop-after", "stop_after"},
    {"threads", "threads"},
    {"corpus", "corpus"},
    {"corpus-format", "corpus_format"},
    {"split", "split"},
    {"jsonl-field", "jsonl_field"}};

}  // namespace

int runPretrain(const Arguments& args) {
  CommandLine cli(
      "pretrain",
      "Train a small Llama (causal LM) from scratch on a local corpus: AdamW, linear\n"
      "warm-up then cosine decay to 10%, gradient clipping at 1.0, seeded data order.\n"
      "OUT is the run folder (run.json, metrics.jsonl, TensorBoard events, checkpoints/)\n"
      "and, at the end, a Hugging Face Llama folder. Options override --config. The\n"
      "same as `strata-cli train pretrain --run-dir OUT --set key=value ...`.");
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
  const std::filesystem::path out = cli.value("out");
  if (cli.isSet("resume") && engine::isRunFolder(out)) {
    std::vector<std::string> sets;
    for (const char* free :
         {"steps", "log-every", "eval-every", "checkpoint-every", "stop-after", "threads"})
      for (const auto& [option, key] : kSettingOptions)
        if (std::string(option) == free && cli.has(option))
          sets.push_back(std::string(key) + "=" + cli.value(option));
    return runTrainingJob(
        [&](JobContext& job) {
          return engine::resumeTraining(out, job, {}, engine::TrainingControl{}, sets);
        },
        {}, out);
  }
  const engine::ConfigSchema schema = engine::recipeSchema("pretrain");
  engine::TrainingRequest request;
  request.recipe = "pretrain";
  request.config = engine::ResolvedConfig(schema);
  request.config.set("eval_every", int64_t{0});
  if (cli.has("config")) engine::applyConfigFile(schema, cli.value("config"), request.config);
  for (const auto& [option, key] : kSettingOptions)
    if (cli.has(option))
      request.config.set(key, engine::parseSetting(*schema.find(key), cli.value(option),
                                                   "--" + std::string(option)));
  request.runFolder = out;
  request.command = commandLineText("pretrain", args);
  return runTrainingJob([&](JobContext& job) { return engine::startTraining(request, job); }, {},
                        out);
}

}  // namespace strata::cli
