#pragma once
// `inspect RUN`: what a training run folder holds: recipe, state, the resolved settings and the
// recipe's facts — for dcdm the parameter count and the Chunking Attention overhead
// K·d·h + 2d². A run that is a model folder too (pretrain) is shown as both.

#include <filesystem>
#include <nlohmann/json.hpp>

namespace strata::cli {

/** Prints the run (a table, or JSON); returns the exit code. */
int inspectRun(const std::filesystem::path& folder, bool json);

/** The run as `inspect --json` prints it. */
nlohmann::ordered_json runJson(const std::filesystem::path& folder);

}  // namespace strata::cli
