#pragma once
// Whether a model's sequences start with BOS, by the model's own convention — so that capture
// feeds a model the kind of sequence it was trained on. The rule, in order:
//   1. tokenizer_config.json "add_bos_token" (true / false) when the folder has it: Hugging
//      Face's switch (Llama-2, llama2.c imports: true; Strata's pretrain output: false);
//   2. otherwise the tokenizer's own template: BOS when encode(text, addSpecialTokens = true)
//      starts with the BOS id (Llama-3's <|begin_of_text|>, llama2.c's BOS; GPT-2: none).

#include <filesystem>
#include <string>

namespace strata::tokenizer {

class Tokenizer;

struct BosConvention {
  bool prepend = false;
  std::string rule;  ///< which rule decided, in words (recorded in the activation store)
};

/** Whether `tokenizer`'s template puts its BOS id first (false when it has no BOS). */
bool templateStartsWithBos(const Tokenizer& tokenizer);

/** The convention of the model in `modelFolder` (see the top of this file). ConfigError naming
 *  tokenizer_config.json when it asks for a BOS the tokenizer does not have; FormatError for a
 *  malformed file. */
BosConvention bosConvention(const std::filesystem::path& modelFolder, const Tokenizer& tokenizer);

}  // namespace strata::tokenizer
