#pragma once
// Which Python runs the Hugging Face side of `verify`, and whether it can: a Python with torch,
// transformers and safetensors (Strata's environment from scripts/setup.sh has all three).

#include <string>

#include "common/error.h"
#include "common/python_choice.h"  // choosePython

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::verify {

/** No usable Python with transformers: the CLI exits with 2, the GUI shows "not verified". */
class TransformersUnavailableError : public Error {
 public:
  TransformersUnavailableError(std::string python, const std::string& message)
      : Error(message), m_python(std::move(python)) {}
  const std::string& python() const { return m_python; }

 private:
  std::string m_python;
};

/**
 * Checks, without importing them (importlib.util.find_spec, well under a second), that `python`
 * runs and finds torch, transformers and safetensors. Returns nothing; throws
 * TransformersUnavailableError ("transformers is not installed for <python>: run
 * scripts/setup.sh or pass --python") otherwise, and CancelledError when `job` is cancelled.
 */
void requireTransformers(const std::string& python, const JobContext* job = nullptr);

}  // namespace strata::verify
