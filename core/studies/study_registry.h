#pragma once
// The studies `strata-cli study <name>` knows. No torch here.

#include <memory>
#include <string>
#include <vector>

#include "studies/study_protocol.h"

namespace strata::studies {

std::vector<std::string> studyNames();
/** Throws ConfigError naming the known studies when there is no such study. */
std::unique_ptr<Study> makeStudy(const std::string& name);

}  // namespace strata::studies
