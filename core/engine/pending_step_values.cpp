// Per-step values read in one transfer (see pending_step_values.h).

#include "engine/pending_step_values.h"

#include <cmath>

#include "common/error.h"

namespace strata::engine {

void PendingStepValues::add(int64_t step, torch::Tensor loss,
                            std::map<std::string, torch::Tensor> metrics) {
  m_steps.push_back({step, std::move(loss), std::move(metrics)});
}

void PendingStepValues::flushInto(LoopCounters& counters) {
  if (m_steps.empty()) return;
  // Every value as float64 on the first loss's device, stacked: one copy to the host. The
  // conversions are exact, so the host sums below equal those of values read step by step.
  const torch::Device device = m_steps.front().loss.device();
  std::vector<torch::Tensor> values;
  for (const Step& s : m_steps) {
    values.push_back(s.loss.reshape({}).to(device, torch::kDouble));
    for (const auto& [name, value] : s.metrics)
      values.push_back(value.reshape({}).to(device, torch::kDouble));
  }
  const torch::Tensor host = torch::stack(values).to(torch::kCPU).contiguous();
  const double* read = host.data_ptr<double>();
  std::vector<Step> steps = std::move(m_steps);
  m_steps.clear();
  for (const Step& s : steps) {
    const double loss = *read++;
    if (!std::isfinite(loss))
      throw Error("training: the loss became " + std::to_string(loss) + " at step " +
                  std::to_string(s.step) + " (try a lower lr or a larger warmup)");
    counters.intervalLoss += loss;
    ++counters.intervalSteps;
    for (const auto& entry : s.metrics) counters.intervalMetrics[entry.first] += *read++;
  }
}

}  // namespace strata::engine
