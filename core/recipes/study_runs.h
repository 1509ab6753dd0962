#pragma once
// The runs of a study (studies/study_runner.h, which compare-dlm and compare-align use too) and
// of a bridge sweep: one ordinary run folder per variant inside the study folder, trained in
// sequence with the same budget. Running again continues: a finished run is kept, an
// interrupted one resumed. No torch here.

#include <filesystem>
#include <string>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::recipes {

struct StudyVariant {
  std::string name;                   ///< the run folder's name inside the study folder
  std::vector<std::string> settings;  ///< "key=value" on top of the shared settings
};

/** Trains (or resumes, or keeps) `variant` of `recipe` in studyFolder/<name>, with `shared`
 *  settings then the variant's; returns the run folder. `command` is recorded in run.json. */
std::filesystem::path trainStudyRun(const std::string& recipe,
                                    const std::filesystem::path& studyFolder,
                                    const std::vector<std::string>& shared,
                                    const StudyVariant& variant, const std::string& command,
                                    JobContext& job);

}  // namespace strata::recipes
