#include "common/job.h"

#include <exception>

#include "common/error.h"

namespace strata {

void CancellationToken::throwIfCancelled() const {
  if (cancelled()) throw CancelledError();
}

JobResult runJob(const JobWork& work, ProgressSink& sink, const CancellationToken& token) {
  JobContext context(sink, token);
  try {
    work(context);
    return {JobOutcome::Succeeded, {}};
  } catch (const CancelledError&) {
    return {JobOutcome::Cancelled, {}};
  } catch (const std::exception& error) {
    return {JobOutcome::Failed, error.what()};
  } catch (...) {
    return {JobOutcome::Failed, "unknown error (non-standard exception)"};
  }
}

BackgroundJob::BackgroundJob(std::string name, JobWork work, ProgressSink& sink,
                             std::function<void(const JobResult&)> onFinished)
    : m_name(std::move(name)),
      m_work(std::move(work)),
      m_sink(sink),
      m_onFinished(std::move(onFinished)) {}

BackgroundJob::~BackgroundJob() {
  cancel();
  wait();
}

void BackgroundJob::start() {
  if (m_thread.joinable()) throw Error("job '" + m_name + "' was already started");
  m_running = true;
  m_thread = std::thread([this] {
    const JobResult result = runJob(m_work, m_sink, m_token);
    m_running = false;
    if (m_onFinished) m_onFinished(result);
  });
}

void BackgroundJob::wait() {
  if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id()) m_thread.join();
}

}  // namespace strata
