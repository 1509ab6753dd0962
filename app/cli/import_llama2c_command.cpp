// `strata-cli import-llama2c MODEL.bin TOKENIZER.bin OUT/ [--force]`: a llama2.c checkpoint and
// its tokenizer as a Hugging Face Llama folder (see core/model/backbone/llama2c_import.h).

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/human_format.h"
#include "model/backbone/llama2c_import.h"

namespace strata::cli {

int runImportLlama2c(const Arguments& args) {
  CommandLine cli("import-llama2c",
                  "Convert a llama2.c checkpoint (legacy run.c layout, or export.py version 1\n"
                  "float32 / version 2 Q8_0, dequantised) and its tokenizer.bin into a Hugging\n"
                  "Face Llama folder: config.json, model.safetensors (wq/wk permuted to HF's\n"
                  "rotary layout), tokenizer.json, tokenizer_config.json and a copy of\n"
                  "tokenizer.bin. The folder is written atomically.");
  cli.positional("model.bin", "llama2.c checkpoint")
      .positional("tokenizer.bin",
                  "llama2.c tokenizer with as many tokens as the model's vocabulary")
      .positional("out-dir", "folder to create (must not exist or be empty, unless --force)")
      .flag("force", "replace an existing, non-empty output folder");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  model::Llama2cImportOptions options;
  options.force = cli.isSet("force");
  const model::Llama2cImportResult result = model::importLlama2c(
      cli.value("model.bin"), cli.value("tokenizer.bin"), cli.value("out-dir"), options);
  const model::Llama2cConfig& c = result.config;
  std::cout << "llama2.c "
            << (c.version == 0 ? "legacy (v0)" : "version " + std::to_string(c.version))
            << " checkpoint: dim " << c.dim << ", hidden " << c.hiddenDim << ", " << c.numLayers
            << " layers, " << c.numHeads << " heads (" << c.numKeyValueHeads
            << " key/value), vocab " << c.vocabSize << ", context " << c.seqLen
            << (c.sharedClassifier ? ", classifier shared" : ", own classifier") << "\n"
            << "wrote " << result.folder.string() << " (" << formatCount(result.parameterCount)
            << " parameters, float32)\n";
  return 0;
}

}  // namespace strata::cli
