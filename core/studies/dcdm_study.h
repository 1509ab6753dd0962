#pragma once
// `strata-cli study dcdm`: does content-defined chunking (DCDM) beat fixed blocks (BD3-LM) and
// unstructured masked diffusion (MDLM)? The protocol, its budgets and decision rules are in
// docs/studies/dcdm.md; the code here is that protocol. No torch here.

#include <memory>

#include "studies/study_protocol.h"

namespace strata::studies {

std::unique_ptr<Study> makeDcdmStudy();

}  // namespace strata::studies
