#pragma once
// `strata-cli study repr-align`: does aligning the diffusion student's hidden states to its
// autoregressive teacher (λ = 10) speed up AR → diffusion adaptation? The protocol, its budgets
// and decision rules are in docs/studies/repr-align.md; the code here is that protocol.
// No torch here.

#include <memory>

#include "studies/study_protocol.h"

namespace strata::studies {

std::unique_ptr<Study> makeReprAlignStudy();

}  // namespace strata::studies
