// The studies by name (see study_registry.h).

#include "studies/study_registry.h"

#include "common/error.h"
#include "studies/dcdm_study.h"
#include "studies/dihal_generation_study.h"
#include "studies/dihal_pretrained_study.h"
#include "studies/dihal_study.h"
#include "studies/repr_align_study.h"

namespace strata::studies {

std::vector<std::string> studyNames() {
  return {"dcdm",
          "dihal",
          "dihal-pretrained",
          "dihal-replication",
          "dihal-replication-brownian",
          "dihal-generation",
          "repr-align"};
}

std::unique_ptr<Study> makeStudy(const std::string& name) {
  if (name == "dcdm") return makeDcdmStudy();
  if (name == "dihal") return makeDihalStudy();
  if (name == "dihal-pretrained") return makeDihalPretrainedStudy();
  if (name == "dihal-generation") return makeDihalGenerationStudy();
  if (name == "dihal-generation") return makeDihalGenerationStudy();
  if (name == "dihal-replication") return makeDihalReplicationStudy(false);
  if (name == "dihal-replication-brownian") return makeDihalReplicationStudy(true);
  if (name == "repr-align") return makeReprAlignStudy();
  std::string known;
  for (const auto& n : studyNames()) known += (known.empty() ? "" : ", ") + n;
  throw ConfigError("study", name, "is not a study Strata knows (known: " + known + ")");
}

}  // namespace strata::studies
