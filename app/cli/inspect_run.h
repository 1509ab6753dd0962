#pragma once
// `inspect RUN`: what a training run folder that is not a model folder holds (a dcdm or bridge
// run): recipe, state, the resolved settings and the recipe's facts — for dcdm the parameter
// count and the Chunking Attention overhead K·d·h + 2d².

#include <filesystem>

namespace strata::cli {

/** Prints the run (a table, or JSON); returns the exit code. */
int inspectRun(const std::filesystem::path& folder, bool json);

}  // namespace strata::cli
