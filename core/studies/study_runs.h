#pragma once
// Start-or-resume, once for every study (studies/study_runner.h, and through it compare-dlm,
// compare-align and sweep-bridges): a run is an ordinary run folder; running the study again
// continues it — a finished run is kept, an interrupted one resumed, a missing one started.
// No torch here.

#include <filesystem>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::studies {

/** Trains `recipe` into the folder `run` with `settings` ("key=value", applied in order) when
 *  it holds no run yet, resumes the run there when it is not finished, and leaves a finished one
 *  as it is. `command` is recorded in a new run's run.json. */
void trainOrContinue(const std::string& recipe, const std::filesystem::path& run,
                     const std::vector<std::string>& settings, const std::string& command,
                     JobContext& job);

}  // namespace strata::studies
