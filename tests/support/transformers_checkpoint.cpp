#include "support/transformers_checkpoint.h"

#include <cstdlib>

#include "support/python_finder.h"

namespace strata::testing {

std::string transformersPython(std::string& why) {
  return findPython({"torch", "transformers", "safetensors"},
                    "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
}

std::string saveRandomCheckpoint(const std::string& python, const std::filesystem::path& folder,
                                 const std::string& arch) {
  const std::string tokenizer = arch == "gpt2"
                                    ? std::string(STRATA_SHARED_DATA_DIR "/tokenizers/gpt2")
                                    : std::string(STRATA_SOURCE_DIR "/resources/models/default");
  if (!std::filesystem::exists(tokenizer)) return "missing tokenizer folder " + tokenizer;
  const std::string command = python +
                              " '" STRATA_SOURCE_DIR "/tests/python/save_random_checkpoint.py' '" +
                              folder.string() + "' " + arch + " '" + tokenizer + "'";
  if (std::system(command.c_str()) != 0) return command + " failed";
  return {};
}

}  // namespace strata::testing
