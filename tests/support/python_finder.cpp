#include "support/python_finder.h"

#include <cstdlib>

namespace strata::testing {

std::string findPython(const std::vector<std::string>& modules, const std::string& installHint,
                       std::string& why) {
  std::vector<std::string> candidates;
  if (const char* chosen = std::getenv("STRATA_PYTHON")) candidates.emplace_back(chosen);
#ifdef STRATA_REFERENCE_PYTHON
  // Strata's own environment (scripts/setup.sh): the torch wheel, transformers, numpy, scipy, h5py.
  candidates.emplace_back(STRATA_REFERENCE_PYTHON);
#endif
  candidates.insert(candidates.end(), {"/usr/bin/python3", "python3"});
  for (const std::string& python : candidates) {
    const auto runs = [&](const std::string& code) {
      return std::system((python + " -c '" + code + "' >/dev/null 2>&1").c_str()) == 0;
    };
    std::string lacking;
    if (!runs("pass")) {
      lacking = "does not run";
    } else {
      for (const std::string& module : modules)
        if (lacking.empty() && !runs("import " + module)) lacking = "has no " + module;
    }
    if (lacking.empty()) return python;
    why += "'" + python + "' " + lacking + "; ";
  }
  why += installHint;
  return {};
}

}  // namespace strata::testing
