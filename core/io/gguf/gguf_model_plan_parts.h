#pragma once
// What every architecture's GGUF plan shares (gguf_model_plan.cpp), for the architecture
// descriptors (io/arch/<family>.cpp) that write their own config.json and name their tensors.
// Only io's own files include this (it brings nlohmann/json).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_model_plan.h"

namespace strata::io {

using GgufJson = nlohmann::ordered_json;

/** The hyper-parameters every supported architecture has, read from `<arch>.*` keys with the
 *  names transformers' GGUF_CONFIG_MAPPING gives them. */
struct GgufHyper {
  std::string arch;
  int64_t layers = 0, width = 0, ffn = 0, heads = 0, kvHeads = 0, headDim = 0, context = 0;
  int64_t vocab = 0;
  double eps = 0, ropeTheta = 10000.0;
  bool tied = true;
};

/** Tensor names of one llama.cpp block and their Hugging Face names (the gguf-py name map). */
struct GgufBlockName {
  const char* gguf;
  const char* hf;
  bool required;
};

/** What llama.cpp's conversion did to an architecture's tensors, undone (GgufTensorFix). */
struct GgufFixes {
  bool unpermuteQk = false;   ///< attn_q / attn_k rows permuted (llama)
  bool normsPlusOne = false;  ///< every *norm.weight stored as 1 + w (Gemma)
};

/** `key` as a positive count; FormatError naming the key otherwise. */
int64_t ggufPositive(const GgufFile& gguf, const std::string& key);
/** `arch`'s hyper-parameters, headDim left 0 (the architecture decides it). */
GgufHyper readGgufHyper(const GgufFile& gguf, const std::string& arch);
/** bos/eos/pad token ids into `config`. */
void putGgufTokenIds(const GgufFile& gguf, GgufJson& config);
/** The config.json fields every architecture writes from `h`. */
GgufJson ggufCommonConfig(const GgufFile& gguf, const GgufHyper& h, const std::string& className,
                          const std::string& modelType);

/** How the head width is found (ggufHeadDim). */
struct GgufHeadDimRules {
  bool fromRotaryCount = false;  ///< `rope.dimension_count` stands in for key_length (llama)
  bool checkRotaryCount = true;  ///< `rope.dimension_count`, when present, must equal it
};
/** The head width as llama.cpp reads it: `attention.key_length`, else (rules) the rotary
 *  count, else width / heads; value_length (and the rotary count) must match it. */
int64_t ggufHeadDim(const GgufFile& gguf, const GgufHyper& h, const GgufHeadDimRules& rules);

/** RoPE scaling as llama.cpp applies it, as a Hugging Face rope_scaling object (empty for
 *  none); `ropeFreqs`: the architecture reads rope_freqs.weight (llama), and `ropeFreqsUsed`
 *  says whether it went into the result. */
GgufJson ggufRopeScaling(const GgufFile& gguf, const GgufHyper& h, bool ropeFreqs,
                         bool& ropeFreqsUsed);

/** Plans every tensor of the model; `used` starts with the tensors already read into the config
 *  (rope_freqs.weight), and whatever else the file holds gets a warning line. */
void addGgufTensors(const GgufFile& gguf, const GgufHyper& h,
                    const std::vector<GgufBlockName>& blockNames, const GgufFixes& fixes,
                    std::set<std::string> used, GgufModelPlan& plan);

}  // namespace strata::io
