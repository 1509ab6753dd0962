#pragma once
// MetricsFollower: a run's metrics.jsonl followed for a tab — a reader of core's MetricsFeed
// behind a timer the tab starts while it is shown (a tab in the background reads no files). On
// each `due` the tab polls: read() returns the records appended since the last read (all of them
// again when a resume cut or replaced the file), or the error that stopped the read, and the tab
// refreshes whatever else it follows (status, checkpoints). The Training, Bridge, Alignment and
// Chunk Routing tabs follow their runs with one each; followers of the same run folder given
// the same owner (MetricsFeeds, the window's) join one feed, so the file is read once however
// many tabs show the run (and the feed holds only what a follower has not read yet). GUI thread
// only.

#include <QObject>
#include <QPointer>
#include <QString>
#include <memory>
#include <vector>

#include "engine/metrics_feed.h"
#include "engine/metrics_log.h"

class QTimer;

namespace strata {

class MetricsFeeds;

/** What one read of a followed metrics.jsonl found. */
struct MetricsUpdate {
  /** The records appended since the last read; all of the file when `restarted`. */
  std::vector<engine::MetricsRecord> records;
  /** The file shrank or was replaced (a resume truncated it): what the tab had is gone. */
  bool restarted = false;
  /** Why the file could not be read (nothing else is set then); empty when it was read. */
  QString error;
};

class MetricsFollower final : public QObject {
  Q_OBJECT

 public:
  /** Follows no run until follow(); once started, `due` fires every `intervalMs`. Its feeds
   *  come from `feeds` (shared with the owner's other followers); with none, or once the owner
   *  is gone, each run followed gets a feed of this follower's own. */
  MetricsFollower(int intervalMs, MetricsFeeds* feeds, QObject* parent);
  ~MetricsFollower() override;

  /** Follows `runFolder`/metrics.jsonl from its first line; empty: no run. */
  void follow(const QString& runFolder);
  /** The run followed; empty when none. */
  const QString& runFolder() const { return m_runFolder; }
  /** Reads what the run appended since the last read; an empty update while following none. */
  MetricsUpdate read();

  /** The feed this follower reads; followers of the same run folder and owner share it
   *  (nullptr: none). */
  const engine::MetricsFeed* feed() const { return m_feed.get(); }

  void setInterval(int ms);
  /** `due` every interval from now on: for a tab being shown. */
  void start();
  /** No more `due`: for a tab being hidden. */
  void stop();

 signals:
  /** Time for the tab to poll (and read()). */
  void due();

 private:
  QPointer<MetricsFeeds> m_feeds;  ///< the owner of shared feeds; null: none
  QString m_runFolder;
  std::shared_ptr<engine::MetricsFeed> m_feed;
  engine::MetricsFeed::Reader m_reader = 0;  ///< this follower, joined to m_feed
  QTimer* m_timer;
};

}  // namespace strata
