#pragma once
// A variant of a comparison (compare-dlm, compare-align): the name of its run and its settings.
// The studies (studies/comparison_studies.h) train each as an arm. No torch here.

#include <string>
#include <vector>

namespace strata::recipes {

struct StudyVariant {
  std::string name;                   ///< the arm's name: its runs are DIR/runs/<name>-s<seed>
  std::vector<std::string> settings;  ///< "key=value" on top of the shared settings
};

}  // namespace strata::recipes
