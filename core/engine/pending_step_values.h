#pragma once
// The training loop's per-step values — each step's loss and the recipe's metrics — kept as the
// scalars they were computed as, on their device, until the loop needs them on the host: at a
// logging step, before a checkpoint, at the end. Read one by one every step, each value would
// make the host wait for the GPU (the GPU then idles while the host prepares the next step);
// read here they cost one transfer per flush. Internal to the training loop.

#include <torch/torch.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/training_checkpoint.h"

namespace strata::engine {

class PendingStepValues {
 public:
  /** Step `step`'s mean loss and metrics (scalars of any device and floating dtype). */
  void add(int64_t step, torch::Tensor loss, std::map<std::string, torch::Tensor> metrics);
  bool empty() const { return m_steps.empty(); }

  /** Adds every pending step, in order, to the interval of `counters` (the same sums as reading
   *  each value at its step) and forgets them. Throws Error naming the first step whose loss is
   *  not finite; the steps before it are added. */
  void flushInto(LoopCounters& counters);

 private:
  struct Step {
    int64_t step;
    torch::Tensor loss;
    std::map<std::string, torch::Tensor> metrics;
  };
  std::vector<Step> m_steps;
};

}  // namespace strata::engine
