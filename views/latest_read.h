#pragma once
// LatestRead: reads files for a view on a worker thread and hands the result back on the GUI
// thread, one read at a time. A request made while one reads waits and is read after it,
// once, with the newest arguments (a view polling a runs folder every second never queues
// reads behind a slow disk). The result reaches `done` only while the owner lives: the watcher
// is the owner's child, so a view closed mid-read drops it. GUI thread only; `read` runs on
// the global thread pool, must touch nothing but its request, and reports failures in its
// Result (an exception escaping it is caught and gives a default Result).

#include <QFutureWatcher>
#include <QObject>
#include <QPromise>
#include <QThreadPool>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace strata {

template <typename Request, typename Result>
class LatestRead {
 public:
  using Read = std::function<Result(const Request&)>;
  using Done = std::function<void(Result)>;

  /** `read` runs on a worker; `done` on `owner`'s (the GUI) thread, while `owner` lives. */
  LatestRead(QObject* owner, Read read, Done done)
      : m_owner(owner), m_read(std::move(read)), m_done(std::move(done)) {}
  LatestRead(const LatestRead&) = delete;
  LatestRead& operator=(const LatestRead&) = delete;

  /** Reads `request` now, or after the read under way (replacing any request waiting). */
  void request(Request request) {
    if (m_reading)
      m_pending = std::move(request);
    else
      start(std::move(request));
  }

  /** A read is under way (and maybe another waiting). */
  bool busy() const { return m_reading; }

 private:
  void start(Request request) {
    m_reading = true;
    // Shared with the worker, which may outlive the owner; its result then goes nowhere.
    auto promise = std::make_shared<QPromise<Result>>();
    auto* watcher = new QFutureWatcher<Result>(m_owner);
    QObject::connect(watcher, &QFutureWatcher<Result>::finished, m_owner, [this, watcher] {
      Result result = watcher->future().takeResult();
      watcher->deleteLater();
      m_reading = false;
      if (m_pending) {
        Request next = std::move(*m_pending);
        m_pending.reset();
        start(std::move(next));
      }
      m_done(std::move(result));
    });
    watcher->setFuture(promise->future());
    promise->start();
    QThreadPool::globalInstance()->start([promise, read = m_read, request = std::move(request)] {
      try {
        promise->addResult(read(request));
      } catch (...) {  // a worker must not throw: the view gets an empty result instead
        promise->addResult(Result{});
      }
      promise->finish();
    });
  }

  QObject* m_owner;
  Read m_read;
  Done m_done;
  bool m_reading = false;
  std::optional<Request> m_pending;
};

}  // namespace strata
