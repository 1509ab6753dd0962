#pragma once
// What a Hugging Face model folder holds, found without loading any weights: the config, the
// weight files (single or sharded safetensors), their tensors' dtypes and sizes, and the
// tokenizer kind. This is what `strata-cli inspect` prints and the project dock lists.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/hf/hf_config.h"

namespace strata::io {

struct ModelSummary {
  std::filesystem::path folder;  ///< the model folder, or the GGUF file inspectGgufFile read
  ModelConfig config;
  /** safetensors shards in index order, or the GGUF file a folder reads its weights from */
  std::vector<std::filesystem::path> weightFiles;
  bool sharded = false;        ///< weights listed by model.safetensors.index.json
  int64_t parameterCount = 0;  ///< sum of element counts of every tensor
  int64_t weightBytes = 0;     ///< sum of tensor bytes on disk (quantised, for a GGUF)
  std::map<std::string, int64_t> parametersByDType;  ///< "BF16" (or "Q4_0") -> element count
  std::string tokenizerKind;          ///< e.g. "byte-level BPE (tokenizer.json)", "none found"
  std::vector<std::string> warnings;  ///< oddities that do not stop use (e.g. unused shard file)
};

/**
 * Inspects `folder`: reads config.json, every safetensors header (no tensor data) and the
 * tokenizer files. Throws FormatError / ConfigError naming the file at fault.
 */
ModelSummary inspectModelFolder(const std::filesystem::path& folder);

/**
 * inspectModelFolder without the tokenizer (tokenizerKind stays empty): for planning memory and
 * fingerprinting weights, which a capture does before it loads the tokenizer anyway.
 */
ModelSummary inspectModelWeights(const std::filesystem::path& folder);

/**
 * Inspects a GGUF model file from its metadata and tensor infos alone: nothing is written and
 * no tensor data is read (well under a second for an 8B model). Throws like GgufFile and
 * planGgufModel.
 */
ModelSummary inspectGgufFile(const std::filesystem::path& file);

/** The tokenizer kind of a folder, from tokenizer.json, vocab.json+merges.txt or *.model. */
std::string detectTokenizerKind(const std::filesystem::path& folder);

}  // namespace strata::io
