#pragma once
// `strata-cli study dihal-generation`: DiHAL's generation claim on a real model — at equal
// budget, does hidden-state recovery (a bridge at l*, feeding the frozen upper stack) write text
// that a judge of another family finds likelier, and more diverse, than embedding diffusion?
// SmolLM2-135M over WikiText-2, judged by Gemma-3-270M (--judge). The protocol, its claims and
// decision rule are in docs/studies/dihal-generation.md; the code here is that protocol. No
// torch here.

#include <memory>

#include "studies/study_protocol.h"

namespace strata::studies {

std::unique_ptr<Study> makeDihalGenerationStudy();

}  // namespace strata::studies
