// `strata-cli import-gguf MODEL.gguf OUT/ [--force]`: a GGUF model (llama.cpp's format) as a
// Hugging Face folder, every tensor dequantised to float32 (see core/io/gguf_import.h).

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/error.h"
#include "common/human_format.h"
#include "io/gguf_import.h"
#include "terminal_progress.h"

namespace strata::cli {

int runImportGguf(const Arguments& args) {
  CommandLine cli("import-gguf",
                  "Convert a GGUF model file (llama.cpp's format; architectures llama, qwen2 and\n"
                  "gemma3; F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and the K-quants) into a\n"
                  "Hugging Face folder that Strata and transformers read: config.json from the\n"
                  "metadata, model.safetensors dequantised to float32 with llama.cpp's q/k\n"
                  "permutation and Gemma's norm offset undone, tokenizer.json and\n"
                  "tokenizer_config.json from tokenizer.ggml.*. Written atomically. (Any command\n"
                  "that takes a model also takes the .gguf itself: it is imported once into\n"
                  "Strata's data folder.)");
  cli.positional("model.gguf", "GGUF model file")
      .positional("out-dir", "folder to create (must not exist or be empty, unless --force)")
      .flag("force", "replace an existing, non-empty output folder");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  io::GgufImportOptions options;
  options.force = cli.isSet("force");
  io::GgufImportResult result;
  const JobOutcome outcome = runWithTerminalProgress([&](JobContext& job) {
    result = io::importGguf(cli.value("model.gguf"), cli.value("out-dir"), options, &job);
  });
  if (outcome == JobOutcome::Cancelled) throw CancelledError();
  for (const std::string& warning : result.warnings) std::cerr << "warning: " << warning << "\n";
  std::string types;
  for (const auto& [type, count] : result.tensorTypes)
    types.append(types.empty() ? "" : ", ").append(type + " ×" + std::to_string(count));
  std::cout << "GGUF " << result.architecture << " model, tensors " << types << "\n"
            << "wrote " << result.folder.string() << " (" << formatCount(result.parameterCount)
            << " parameters, float32)\n";
  return 0;
}

}  // namespace strata::cli
