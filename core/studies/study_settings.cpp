// Helpers shared by the study protocols (see study_settings.h).

#include "studies/study_settings.h"

#include <filesystem>

#include "common/error.h"
#include "common/install_paths.h"

namespace strata::studies {

namespace fs = std::filesystem;

std::string settingIn(const std::vector<std::string>& assignments, const std::string& key) {
  std::string value;
  for (const auto& a : assignments)
    if (a.rfind(key + "=", 0) == 0) value = a.substr(key.size() + 1);
  return value;
}

std::string studyCorpus(const StudyOptions& options, const std::string& defaultName) {
  std::string corpus = settingIn(options.overrides, "corpus");
  if (corpus.empty()) {
    // The default is found from the installation or source tree (common/install_paths.h), not
    // from the working directory, so a study runs the same from any folder.
    const fs::path shared = sharedDataFolder();
    corpus = shared.empty() ? "../shared/data/corpora/" + defaultName
                            : (shared / "corpora" / defaultName).string();
  }
  if (!fs::is_regular_file(corpus))
    throw ConfigError("corpus", corpus,
                      "is not a file (pass --set corpus=PATH, or point STRATA_SHARED_DATA_DIR at "
                      "the folder holding corpora/" +
                          defaultName + ")");
  return fs::absolute(corpus).lexically_normal().string();
}

void checkStudyOptions(const StudyOptions& options) {
  if (options.budget != "full" && options.budget != "smoke")
    throw ConfigError("--budget", options.budget, "must be full or smoke");
  if (options.seeds < 1)
    throw ConfigError("--seeds", std::to_string(options.seeds), "must be at least 1");
}

}  // namespace strata::studies
