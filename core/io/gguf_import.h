#pragma once
// Turns a GGUF model file into a normal Hugging Face folder that every part of Strata (and
// transformers) reads:
//
//   config.json             from the GGUF metadata (gguf_model_plan.h), float32
//   generation_config.json  BOS / EOS / PAD ids
//   model.safetensors       every tensor dequantised to float32 (gguf_dequantize.h), under its
//                           Hugging Face name, with llama.cpp's conversion undone
//   tokenizer.json          from tokenizer.ggml.* (gguf_tokenizer.h)
//   tokenizer_config.json
//   strata_gguf_source.json the file it came from (path, size, modification time, type counts)
//
// A .gguf given where a model folder is expected is imported once into Strata's data folder
// (ggufImportFolder) and the folder is used from then on.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "common/job.h"

namespace strata::io {

struct GgufImportOptions {
  /** Replace an existing non-empty output folder (otherwise that is an error). */
  bool force = false;
  /** Threads for dequantisation; 0: OpenMP's current maximum. */
  int threads = 0;
};

struct GgufImportResult {
  std::filesystem::path folder;
  std::string architecture;                    ///< general.architecture
  int64_t parameterCount = 0;                  ///< elements of every tensor written
  std::map<std::string, int64_t> tensorTypes;  ///< "Q4_1" -> tensors of that type in the file
  std::vector<std::string> warnings;           ///< unused tensors, one line each
};

/**
 * Reads `ggufFile` and writes the folder described above to `outFolder`, atomically (a staging
 * folder renamed into place; see folder_install.h): on any failure, cancellation included,
 * `outFolder` is as it was. Reports progress per tensor to `job` and checks it for
 * cancellation. Throws FormatError / ConfigError naming the file and the key or tensor at
 * fault, IoError, or strata::Error for an existing non-empty folder without `force`.
 */
GgufImportResult importGguf(const std::filesystem::path& ggufFile,
                            const std::filesystem::path& outFolder,
                            const GgufImportOptions& options = {}, JobContext* job = nullptr);

/**
 * Where `ggufFile` is imported for use as a model: <userDataFolder>/gguf/<stem>-<key>, the key
 * a hash of the file's canonical path, size and modification time (a changed file gets a fresh
 * import). Throws IoError when the file cannot be stat'ed.
 */
std::filesystem::path ggufImportFolder(const std::filesystem::path& ggufFile);

/** True for a regular file that starts with the GGUF magic. */
bool isGgufModelFile(const std::filesystem::path& path);

/**
 * The model folder `path` stands for: `path` itself unless it is a GGUF file; a GGUF file's
 * import folder, importing it first when that folder does not exist yet (the import reports
 * through `job`). Safe against another process importing the same file at the same time.
 */
std::filesystem::path resolveModelFolder(const std::filesystem::path& path,
                                         JobContext* job = nullptr);

}  // namespace strata::io
