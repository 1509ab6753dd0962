#pragma once
// `strata-cli study dihal-pretrained`: DiHAL's question on a real pretrained model (by default
// Strata's default model, SmolLM2-135M-Instruct; --set model=PATH for another) over a real
// corpus (WikiText-2): does the geometry score S predict how well an equal-budget bridge rebuilds
// h_l, beyond depth, for Gaussian and Brownian bridges? The protocol, its budget and decision
// rules are in docs/studies/dihal.md ("On a real pretrained model"); the code here is that
// protocol. No torch here.

#include <memory>

#include "studies/study_protocol.h"

namespace strata::studies {

std::unique_ptr<Study> makeDihalPretrainedStudy();

/** The pre-registered replication of the SmolLM2 study's one positive reading on a second model
 *  (docs/studies/dihal-replication.md): every layer bridged, `--set model=` required; the
 *  Gaussian process ("dihal-replication", primary) or the Brownian one
 *  ("dihal-replication-brownian", secondary). */
std::unique_ptr<Study> makeDihalReplicationStudy(bool brownian);

}  // namespace strata::studies
