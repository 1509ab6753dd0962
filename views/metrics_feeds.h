#pragma once
// MetricsFeeds: the owner of the metrics feeds that a window's tabs share — one core
// MetricsFeed per run folder, made when the first MetricsFollower of that folder asks for it and
// dropped when the last one leaves, so a run's metrics.jsonl is read once however many tabs
// (Training, Bridge, Alignment, Chunk Routing) follow it. The window owns one
// (Workbench::metricsFeeds()) and the features hand it to the views they make; a follower given
// none reads its run on its own, as does every follower of two different owners. A follower
// keeps its feed alive while it reads it, but asks the owner only in follow(): once the owner
// is gone, nothing more is shared. GUI thread only.

#include <QObject>
#include <QString>
#include <map>
#include <memory>

#include "engine/metrics_feed.h"

namespace strata {

// A QObject (no signals) so that the window can own it as a child and followers can tell,
// through a QPointer, that it is gone.
class MetricsFeeds final : public QObject {
 public:
  using QObject::QObject;

  /** The feed of `runFolder` (any spelling of it), shared with every other follower of it that
   *  asked this owner while any of them still holds it. */
  std::shared_ptr<engine::MetricsFeed> feed(const QString& runFolder);
  /** A feed of `runFolder` that no one else shares (a follower with no owner). */
  static std::shared_ptr<engine::MetricsFeed> feedOfItsOwn(const QString& runFolder);
  /** The run folders with a feed in use. */
  std::size_t size() const;

 private:
  std::map<QString, std::weak_ptr<engine::MetricsFeed>> m_feeds;  ///< by clean absolute folder
};

}  // namespace strata
