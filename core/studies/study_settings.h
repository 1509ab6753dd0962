#pragma once
// Small helpers the study protocols share: reading a "key=value" list and the corpus every
// built-in study trains on (a --set corpus=PATH, else a corpus of the shared data, e.g.
// corpora/tinyshakespeare.txt). No torch here.

#include <string>
#include <vector>

#include "studies/study_protocol.h"

namespace strata::studies {

/** The value of the last "key=..." in `assignments`; empty when there is none. */
std::string settingIn(const std::vector<std::string>& assignments, const std::string& key);

/** The corpus of a study as an absolute path: --set corpus=PATH, else `defaultName` in the
 *  shared data's corpora/; ConfigError naming `corpus` when it is not a file. */
std::string studyCorpus(const StudyOptions& options,
                        const std::string& defaultName = "tinyshakespeare.txt");

/** ConfigError unless the budget is full or smoke and there is at least one seed. */
void checkStudyOptions(const StudyOptions& options);

}  // namespace strata::studies
