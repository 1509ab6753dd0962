#pragma once
// A GGUF model file in the two forms the rest of Strata reads:
//
// * A model folder that reads its weights IN PLACE (ggufModelFolder, resolveModelFolder): the
//   config, generation config and tokenizer that the GGUF's metadata describe, and
//   strata_gguf_source.json naming the file — no weights. Loaders read the tensors from the
//   mapped .gguf one at a time (gguf_weights.h). Made once per file, in Strata's data folder,
//   in well under a second; this is what every command that takes a model does with a .gguf.
// * A complete Hugging Face folder (importGguf, `strata-cli import-gguf`), for transformers and
//   for training recipes that want a folder of their own:
//
//   config.json             from the GGUF metadata (gguf_model_plan.h)
//   generation_config.json  BOS / EOS / PAD ids
//   model.safetensors       every tensor under its Hugging Face name, with llama.cpp's
//     (or model-0000i-of-0000N.safetensors + model.safetensors.index.json above the shard
//     size) conversion undone: quantised tensors dequantised (gguf_dequantize.h) and stored
//                           as bfloat16 by default, F16/BF16/F32 tensors in their own type
//   tokenizer.json          from tokenizer.ggml.* (gguf_tokenizer.h)
//   tokenizer_config.json
//   strata_gguf_source.json the file it came from (path, size, modification time, type counts)
//
//   The import holds one tensor's rows at a time: memory stays bounded whatever the model size.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/job.h"
#include "io/dtype.h"

namespace strata::io {

struct GgufImportOptions {
  /** Replace an existing non-empty output folder (otherwise that is an error). */
  bool force = false;
  /** Threads for dequantisation; 0: OpenMP's current maximum. */
  int threads = 0;
  /** What quantised tensors are stored as: F32, BF16 or F16 (F16/BF16/F32 tensors keep
   *  their own type). */
  DType dtype = DType::BF16;
  /** Shard above this many bytes of tensor data (Hugging Face's default "5GB"): the weights go
   *  into model-0000i-of-0000N.safetensors files of at most this size (a larger tensor gets a
   *  shard of its own) and model.safetensors.index.json; one model.safetensors otherwise. */
  uint64_t maxShardBytes = 5'000'000'000;
};

struct GgufImportResult {
  std::filesystem::path folder;
  std::string architecture;                        ///< general.architecture
  int64_t parameterCount = 0;                      ///< elements of every tensor written
  std::map<std::string, int64_t> tensorTypes;      ///< "Q4_1" -> tensors of that type in the file
  std::map<std::string, int64_t> storedTypes;      ///< "BF16" -> tensors written in that type
  std::vector<std::filesystem::path> weightFiles;  ///< the safetensors written, in order
  std::vector<std::string> warnings;               ///< unused tensors, one line each
};

/**
 * Reads `ggufFile` and writes the complete folder described above to `outFolder`, atomically (a
 * staging folder renamed into place; see folder_install.h): on any failure, cancellation included,
 * `outFolder` is as it was. Reports progress per tensor to `job` and checks it for
 * cancellation. Throws FormatError / ConfigError naming the file and the key or tensor at
 * fault, IoError, or strata::Error for an existing non-empty folder without `force`.
 */
GgufImportResult importGguf(const std::filesystem::path& ggufFile,
                            const std::filesystem::path& outFolder,
                            const GgufImportOptions& options = {}, JobContext* job = nullptr);

/**
 * Where the model folder of `ggufFile` lives: <userDataFolder>/gguf/<stem>-<key>, the key a
 * hash of the file's canonical path, size and modification time (a changed file gets a fresh
 * folder). Throws IoError when the file cannot be stat'ed.
 */
std::filesystem::path ggufModelFolder(const std::filesystem::path& ggufFile);

/**
 * Writes to `folder` (atomically, replacing what is there) the model folder that reads its
 * weights from `ggufFile` in place: config, tokenizer and the source record, no weights. The
 * file is planned first, so an unsupported architecture or a truncated file is refused before
 * anything is written. Returns the plan's warnings (unused tensors).
 */
std::vector<std::string> writeGgufModelFolder(const std::filesystem::path& ggufFile,
                                              const std::filesystem::path& folder);

/** True for a regular file that starts with the GGUF magic. */
bool isGgufModelFile(const std::filesystem::path& path);

/**
 * The model folder `path` stands for: `path` itself unless it is a GGUF file; for a GGUF file,
 * its in-place model folder (ggufModelFolder), made first when it does not exist yet. Safe
 * against another process making the same folder at the same time.
 */
std::filesystem::path resolveModelFolder(const std::filesystem::path& path,
                                         JobContext* job = nullptr);

/** L, the transformer blocks of the model `path` stands for (hidden states 0..L), from its
 *  config.json alone: what a command checks layer arguments against before loading anything. */
int64_t modelLayerCount(const std::filesystem::path& path, JobContext* job = nullptr);

}  // namespace strata::io
