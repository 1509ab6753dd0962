#pragma once
// Tiny random checkpoints written by transformers' save_pretrained
// (tests/python/save_random_checkpoint.py), for verify's tests.

#include <filesystem>
#include <string>

namespace strata::testing {

/** A Python with torch, transformers and safetensors; empty with `why` filled when none. */
std::string transformersPython(std::string& why);

/**
 * Writes a random `arch` ("llama": byte-level BPE tokenizer of the default model; "gpt2": GPT-2's
 * vocab.json + merges.txt from ../shared/data) into `folder` with `python`. Returns an empty
 * string on success, else what failed.
 */
std::string saveRandomCheckpoint(const std::string& python, const std::filesystem::path& folder,
                                 const std::string& arch);

}  // namespace strata::testing
