#pragma once
// What a Hugging Face model folder holds, found without loading any weights: the config, the
// weight files (single or sharded safetensors), their tensors' dtypes and sizes, and the
// tokenizer kind. This is what `strata-cli inspect` prints and the project dock lists.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/hf_config.h"

namespace strata::io {

struct ModelSummary {
  std::filesystem::path folder;
  ModelConfig config;
  std::vector<std::filesystem::path> weightFiles;  ///< safetensors shards, in index order
  bool sharded = false;        ///< weights listed by model.safetensors.index.json
  int64_t parameterCount = 0;  ///< sum of element counts of every tensor
  int64_t weightBytes = 0;     ///< sum of tensor bytes on disk
  std::map<std::string, int64_t> parametersByDType;  ///< "BF16" -> element count
  std::string tokenizerKind;          ///< e.g. "byte-level BPE (tokenizer.json)", "none found"
  std::vector<std::string> warnings;  ///< oddities that do not stop use (e.g. unused shard file)
};

/**
 * Inspects `folder`: reads config.json, every safetensors header (no tensor data) and the
 * tokenizer files. Throws FormatError / ConfigError naming the file at fault.
 */
ModelSummary inspectModelFolder(const std::filesystem::path& folder);

/** The tokenizer kind of a folder, from tokenizer.json, vocab.json+merges.txt or *.model. */
std::string detectTokenizerKind(const std::filesystem::path& folder);

}  // namespace strata::io
