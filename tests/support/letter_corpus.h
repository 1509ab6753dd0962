#pragma once
// A tokenizer and a corpus small enough for the random test backbones (vocabulary 40):
// a Metaspace BPE over "▁" and a–z (ids 3..29, <unk> 0, <s> 1, </s> 2), and lowercase text.

#include <filesystem>

namespace strata::testing {

/** Writes tokenizer.json and tokenizer_config.json into `modelFolder`. */
void writeLetterTokenizer(const std::filesystem::path& modelFolder);

/** Writes 12 paragraphs of 20 lowercase words to `file`. */
void writeLetterCorpus(const std::filesystem::path& file);

}  // namespace strata::testing
