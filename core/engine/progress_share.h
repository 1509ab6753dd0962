#pragma once
// One step of a longer job: forwards the step's progress as its share of the whole (the step
// reports 0..1, the job's bar moves from `start` to `start + share`) and passes messages on.

#include <string>

#include "common/job.h"

namespace strata::engine {

class ProgressShareSink final : public ProgressSink {
 public:
  /** `stage` replaces the step's own stage text when not empty. */
  ProgressShareSink(JobContext& outer, double start, double share, std::string stage = {})
      : m_outer(outer), m_start(start), m_share(share), m_stage(std::move(stage)) {}

  void progress(double fraction, const std::string& stage) override;
  void message(MessageLevel level, const std::string& text) override;
  /** A context for the step: this sink, the outer job's cancellation. */
  JobContext context() { return JobContext(*this, m_outer.token()); }

 private:
  JobContext& m_outer;
  double m_start, m_share;
  std::string m_stage;
};

}  // namespace strata::engine
