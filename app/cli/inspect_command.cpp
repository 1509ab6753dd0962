// `strata-cli inspect <model-dir> [--json]`: what a model folder holds, without loading weights.

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "common/human_format.h"
#include "engine/run_folder.h"
#include "inspect_run.h"
#include "inspect_store.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/model_folder.h"
#include "model_argument.h"

namespace strata::cli {
namespace {

nlohmann::ordered_json toJson(const io::ModelSummary& summary) {
  const io::ModelConfig& c = summary.config;
  nlohmann::ordered_json out;
  out["folder"] = summary.folder.string();
  out["architecture"] = c.architectureName;
  out["model_type"] = c.modelType;
  out["num_layers"] = c.numLayers;
  out["hidden_size"] = c.hiddenSize;
  out["num_attention_heads"] = c.numHeads;
  out["num_key_value_heads"] = c.numKeyValueHeads;
  out["head_dim"] = c.headDim;
  out["intermediate_size"] = c.intermediateSize;
  out["vocab_size"] = c.vocabSize;
  out["max_position_embeddings"] = c.maxPositions;
  out["tie_word_embeddings"] = c.tieWordEmbeddings;
  out["parameters"] = summary.parameterCount;
  out["weight_bytes"] = summary.weightBytes;
  out["dtypes"] = summary.parametersByDType;
  out["weight_files"] = nlohmann::json::array();
  for (const auto& file : summary.weightFiles)
    out["weight_files"].push_back(file.filename().string());
  out["sharded"] = summary.sharded;
  out["tokenizer"] = summary.tokenizerKind;
  out["warnings"] = summary.warnings;
  return out;
}

void printText(const io::ModelSummary& summary) {
  const io::ModelConfig& c = summary.config;
  auto row = [](const char* label, const std::string& value) {
    std::cout << label << std::string(14 - std::string(label).size(), ' ') << value << "\n";
  };
  row("Model", summary.folder.string());
  row("Architecture", c.architectureName + (c.modelType.empty() ? "" : " (" + c.modelType + ")"));
  row("Layers", std::to_string(c.numLayers));
  row("Hidden size", std::to_string(c.hiddenSize));
  row("Heads", std::to_string(c.numHeads) + " (key/value heads " +
                   std::to_string(c.numKeyValueHeads) + ", head dim " + std::to_string(c.headDim) +
                   ")");
  row("MLP size", std::to_string(c.intermediateSize));
  row("Vocabulary", std::to_string(c.vocabSize));
  row("Context", std::to_string(c.maxPositions));
  row("Parameters", formatCount(summary.parameterCount) + " (" +
                        formatWithSeparators(summary.parameterCount) + ")" +
                        (c.tieWordEmbeddings ? ", LM head tied to the embedding" : ""));
  std::string dtypes;
  for (const auto& [dtype, count] : summary.parametersByDType)
    dtypes += (dtypes.empty() ? "" : ", ") + dtype + " " + formatCount(count);
  row("Dtypes", dtypes.empty() ? "none" : dtypes);
  row("Weights", std::to_string(summary.weightFiles.size()) + " file(s), " +
                     formatBytes(summary.weightBytes) + (summary.sharded ? ", sharded" : ""));
  row("Tokenizer", summary.tokenizerKind);
  for (const auto& warning : summary.warnings) row("Warning", warning);
}

/** An HDF5 file (its signature at the start, where capture writes it) or one named .h5/.hdf5:
 *  read as an activation store, whose reader says what is wrong with a damaged one. */
bool looksLikeStore(const std::filesystem::path& file) {
  const std::string extension = file.extension().string();
  if (extension == ".h5" || extension == ".hdf5") return true;
  char signature[8] = {};
  std::ifstream(file, std::ios::binary).read(signature, sizeof signature);
  return std::string(signature, sizeof signature) == std::string("\x89HDF\r\n\x1a\n", 8);
}

}  // namespace

int runInspect(const Arguments& args) {
  CommandLine cli(
      "inspect",
      "Print what a Hugging Face model folder or a GGUF file holds: architecture, layer\n"
      "count, hidden size, heads, parameter count, dtypes and tokenizer. Reads config.json\n"
      "and the safetensors headers, or the GGUF metadata, only, so it is fast even for\n"
      "large models. An activation store (.h5) shows its model, shape, finished layers,\n"
      "sampling and stored l*; a training run folder its recipe, state and settings (a\n"
      "pretrain run, a model folder too, after its model).");
  cli.positional("model-dir",
                 "folder with config.json and model.safetensors (or a sharded "
                 "index), a .gguf model file, an activation store (.h5), or a training run "
                 "folder")
      .flag("json", "print one JSON object instead of the table");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  const std::filesystem::path given = cli.value("model-dir");
  if (!std::filesystem::exists(given / "config.json") && engine::isRunFolder(given))
    return inspectRun(given, cli.isSet("json"));  // a dcdm or bridge run, not a model folder
  const bool gguf = io::isGgufModelFile(given);
  if (!gguf && std::filesystem::is_regular_file(given)) {
    if (looksLikeStore(given)) return inspectStore(given, cli.isSet("json"));
    throw IoError(given,
                  "is neither a model folder, a .gguf model, an activation store (.h5) nor a "
                  "training run folder");
  }
  // A .gguf is read from its metadata and tensor infos alone: nothing is imported or written.
  const io::ModelSummary summary =
      gguf ? io::inspectGgufFile(given) : io::inspectModelFolder(modelFolderArgument(given));
  // A pretrain run is a model folder too: its run is shown after the model.
  const bool run = !gguf && engine::isRunFolder(given);
  if (cli.isSet("json")) {
    nlohmann::ordered_json out = toJson(summary);
    if (gguf) out["gguf_file"] = given.string();
    if (run) out["training_run"] = runJson(given);
    std::cout << out.dump(2) << "\n";
  } else {
    printText(summary);
    if (run) {
      std::cout << "\n";
      inspectRun(given, false);
    }
  }
  return 0;
}

}  // namespace strata::cli
