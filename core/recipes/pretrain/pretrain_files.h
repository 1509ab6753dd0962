#pragma once
// The files of a pretrain run that need no LibTorch: the byte-level tokenizer, the Hugging
// Face config.json, and atomic text files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::recipes {

/** A byte-level BPE tokenizer.json: the 256 GPT-2 byte-level symbols as the vocabulary (id =
 *  byte value), no merges, and the specials <|bos|> = 256, <|eos|> = 257. Every byte string
 *  encodes to one id per byte, so any UTF-8 text round-trips. */
std::string byteTokenizerJson();
/** tokenizer_config.json naming <|bos|> / <|eos|> for the tokenizer above. */
std::string byteTokenizerConfigJson();

/** Writes the run's tokenizer into `folder`: the byte-level one for "byte", else copies the
 *  tokenizer files of the folder (or the single file) `source` names. */
void writeTokenizerFiles(const std::string& source, const std::filesystem::path& folder);

/** A Hugging Face LlamaForCausalLM config.json (tied embeddings, rope_theta 10000,
 *  rms_norm_eps 1e-5, float32). */
struct LlamaFolderConfig {
  int64_t vocabSize = 0, dim = 0, layers = 0, heads = 0, kvHeads = 0, mlp = 0;
  int64_t maxPositions = 0;
  std::optional<int32_t> bos, eos;
};
std::string llamaConfigJson(const LlamaFolderConfig& config);

}  // namespace strata::recipes
