// Whether a model's sequences start with BOS (see bos_convention.h).

#include "tokenizer/bos_convention.h"

#include "common/error.h"
#include "tokenizer/special_tokens_config.h"
#include "tokenizer/tokenizer.h"

namespace strata::tokenizer {

bool templateStartsWithBos(const Tokenizer& tokenizer) {
  const auto bos = tokenizer.bosId();
  if (!bos) return false;
  const std::vector<int32_t> ids = tokenizer.encode("a", /*addSpecialTokens=*/true);
  return !ids.empty() && ids.front() == *bos;
}

BosConvention bosConvention(const std::filesystem::path& modelFolder, const Tokenizer& tokenizer) {
  const std::filesystem::path folder =
      std::filesystem::is_directory(modelFolder) ? modelFolder : modelFolder.parent_path();
  if (const std::optional<bool> declared = readTokenizerConfig(folder).addBosToken) {
    if (*declared && !tokenizer.bosId())
      throw ConfigError(folder / "tokenizer_config.json", "add_bos_token",
                        "is true but the tokenizer has no BOS token");
    return {*declared, "tokenizer_config.json add_bos_token"};
  }
  return {templateStartsWithBos(tokenizer), "tokenizer template (encode with special tokens)"};
}

}  // namespace strata::tokenizer
