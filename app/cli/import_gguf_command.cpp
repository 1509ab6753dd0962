// `strata-cli import-gguf MODEL.gguf OUT/ [--dtype bf16] [--force]`: a GGUF model (llama.cpp's
// format) as a complete Hugging Face folder, quantised tensors dequantised to bfloat16 by
// default, written tensor by tensor in bounded memory (see core/io/gguf/gguf_import.h).

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/error.h"
#include "common/human_format.h"
#include "io/gguf/gguf_import.h"
#include "terminal_progress.h"

namespace strata::cli {

int runImportGguf(const Arguments& args) {
  CommandLine cli("import-gguf",
                  "Convert a GGUF model file (llama.cpp's format; F32, F16, BF16, Q4_0, Q4_1,\n"
                  "Q5_0, Q5_1, Q8_0 and the K-quants) into a complete Hugging Face folder that\n"
                  "transformers and Strata's training recipes read: config.json from the\n"
                  "metadata, the weights with llama.cpp's q/k permutation and Gemma's norm offset\n"
                  "undone (quantised tensors in --dtype, F16/BF16/F32 tensors in their own type),\n"
                  "in shards of at most 5 GB with model.safetensors.index.json when larger,\n"
                  "tokenizer.json and tokenizer_config.json from tokenizer.ggml.*. Written\n"
                  "tensor by tensor (memory stays bounded) and atomically. Every other command\n"
                  "reads a .gguf in place: importing is only needed for a folder of your own.");
  cli.positional("model.gguf", "GGUF model file")
      .positional("out-dir", "folder to create (must not exist or be empty, unless --force)")
      .option("dtype", "f32|bf16|f16", "what quantised tensors are stored as", "bf16")
      .option("max-shard-size", "BYTES",
              "shard the weights above this many bytes, as Hugging Face does", "5000000000")
      .flag("force", "replace an existing, non-empty output folder");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  io::GgufImportOptions options;
  options.force = cli.isSet("force");
  const int64_t shard = cli.integer("max-shard-size");
  if (shard < 1) throw UsageError("--max-shard-size must be a positive number of bytes");
  options.maxShardBytes = static_cast<uint64_t>(shard);
  const std::string dtype = cli.value("dtype");
  if (dtype == "f32")
    options.dtype = io::DType::F32;
  else if (dtype == "bf16")
    options.dtype = io::DType::BF16;
  else if (dtype == "f16")
    options.dtype = io::DType::F16;
  else
    throw UsageError("--dtype must be f32, bf16 or f16, got '" + dtype + "'");
  io::GgufImportResult result;
  const JobOutcome outcome = runWithTerminalProgress([&](JobContext& job) {
    result = io::importGguf(cli.value("model.gguf"), cli.value("out-dir"), options, &job);
  });
  if (outcome == JobOutcome::Cancelled) throw CancelledError();
  for (const std::string& warning : result.warnings) std::cerr << "warning: " << warning << "\n";
  std::string types;
  for (const auto& [type, count] : result.tensorTypes)
    types.append(types.empty() ? "" : ", ").append(type + " ×" + std::to_string(count));
  std::string stored;
  for (const auto& [type, count] : result.storedTypes)
    stored.append(stored.empty() ? "" : ", ").append(type + " ×" + std::to_string(count));
  std::cout << "GGUF " << result.architecture << " model, tensors " << types << "\n"
            << "wrote " << result.folder.string() << " (" << formatCount(result.parameterCount)
            << " parameters as " << stored << ", " << result.weightFiles.size()
            << " weight file(s))\n";
  return 0;
}

}  // namespace strata::cli
