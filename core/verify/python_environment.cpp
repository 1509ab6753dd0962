#include "verify/python_environment.h"

#include "verify/child_process.h"

namespace strata::verify {

namespace {

// Prints the modules it cannot find, space-separated; exit status 1 when any is missing.
constexpr const char* kProbe =
    "import importlib.util as u, sys\n"
    "missing = [m for m in ('transformers', 'torch', 'safetensors') if u.find_spec(m) is None]\n"
    "print(' '.join(missing))\n"
    "sys.exit(1 if missing else 0)\n";

constexpr const char* kRemedy = ": run scripts/setup.sh or pass --python";

}  // namespace

void requireTransformers(const std::string& python, const JobContext* job) {
  std::string missing;
  ChildProcessResult result;
  try {
    result = runChildProcess({python, "-c", kProbe},
                             {.timeout = std::chrono::seconds(60),
                              .onStdoutLine = [&](const std::string& line) { missing += line; },
                              .job = job});
  } catch (const IoError& error) {
    throw TransformersUnavailableError(python, "transformers is not installed for " + python +
                                                   " (" + error.what() + ")" + kRemedy);
  }
  if (result.exitCode == 0) return;
  // A Python that fails before printing anything (or a program that is not Python at all) is
  // reported like one without transformers: either way this Python cannot verify.
  if (missing.empty() || missing.find("transformers") != std::string::npos)
    throw TransformersUnavailableError(python,
                                       "transformers is not installed for " + python + kRemedy);
  throw TransformersUnavailableError(
      python, missing + " not installed for " + python +
                  " (verify needs torch, transformers and safetensors)" + kRemedy);
}

}  // namespace strata::verify
