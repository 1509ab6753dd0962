#pragma once
// Finds the Python that tests which run a reference script (tests/reference/) need.

#include <string>
#include <vector>

namespace strata::testing {

/**
 * A Python 3 that imports every module of `modules`: $STRATA_PYTHON, else /usr/bin/python3
 * (Debian's, where python3-torch, -h5py, -scipy live), else `python3` on PATH (often a pyenv or
 * venv interpreter without them). Empty when there is none; `why` then says what each candidate
 * lacks, followed by `installHint`.
 */
std::string findPython(const std::vector<std::string>& modules, const std::string& installHint,
                       std::string& why);

}  // namespace strata::testing
