#include "io/hf/hf_config.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "io/arch/architecture_spec.h"
#include "io/hf/config_fields.h"

namespace strata::io {

namespace {

using nlohmann::json;

Architecture architectureOf(const ConfigFields& fields, std::string& className) {
  const json& list = fields.required("architectures");
  if (!list.is_array() || list.empty() || !list[0].is_string())
    throw ConfigError(fields.file(), "architectures", "must be a non-empty list of class names");
  className = list[0].get<std::string>();
  if (const auto architecture = architectureOfClassName(className)) return *architecture;
  throw ConfigError(
      fields.file(), "architectures",
      "unsupported architecture '" + className + "'; Strata supports: " + supportedArchitectures());
}

void checkShapes(const std::filesystem::path& file, ModelConfig& c) {
  if (c.headDim == 0) {
    if (c.hiddenSize % c.numHeads != 0)
      throw ConfigError(file, "num_attention_heads",
                        "hidden size " + std::to_string(c.hiddenSize) + " is not divisible by " +
                            std::to_string(c.numHeads) + " heads (and no head_dim is given)");
    c.headDim = c.hiddenSize / c.numHeads;
  }
  if (c.headDim <= 0) throw ConfigError(file, "head_dim", "must be positive");
  if (c.numKeyValueHeads <= 0 || c.numHeads % c.numKeyValueHeads != 0)
    throw ConfigError(file, "num_key_value_heads",
                      std::to_string(c.numKeyValueHeads) + " does not divide the " +
                          std::to_string(c.numHeads) + " attention heads");
  if (c.headDim % 2 != 0) throw ConfigError(file, "head_dim", "must be even for rotary embeddings");
}

}  // namespace

ModelConfig parseModelConfig(const std::string& text, const std::filesystem::path& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& error) {
    throw FormatError(file, std::string("not valid JSON: ") + error.what());
  }
  if (!root.is_object()) throw FormatError(file, "must hold a JSON object");

  ConfigFields fields(root, file);
  ModelConfig config;
  config.architecture = architectureOf(fields, config.architectureName);
  config.modelType = fields.stringOr("model_type", "");
  config.torchDtype = fields.stringOr("torch_dtype", fields.stringOr("dtype", ""));
  config.bosTokenIds = fields.idList("bos_token_id");
  config.eosTokenIds = fields.idList("eos_token_id");

  architectureSpec(config.architecture).readConfig(fields, config);
  checkShapes(file, config);
  return config;
}

ModelConfig readModelConfig(const std::filesystem::path& file) {
  return parseModelConfig(readWholeFile(file), file);
}

}  // namespace strata::io
