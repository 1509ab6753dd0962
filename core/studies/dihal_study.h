#pragma once
// `strata-cli study dihal`: does DiHAL's geometry score predict bridgeability beyond depth? The
// protocol, its budgets and decision rules are in docs/studies/dihal.md; the code here is that
// protocol. No torch here.

#include <memory>

#include "studies/study_protocol.h"

namespace strata::studies {

std::unique_ptr<Study> makeDihalStudy();

}  // namespace strata::studies
