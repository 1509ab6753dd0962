// The studies by name (see study_registry.h).

#include "studies/study_registry.h"

#include "common/error.h"
#include "studies/dcdm_study.h"

namespace strata {

std::vector<std::string> studyNames() { return {"dcdm"}; }

std::unique_ptr<Study> makeStudy(const std::string& name) {
  if (name == "dcdm") return makeDcdmStudy();
  std::string known;
  for (const auto& n : studyNames()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("study", name, "is not a study Strata knows (known: " + known + ")");
}

}  // namespace strata
