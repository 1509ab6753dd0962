#include "metrics_follower.h"

#include <QTimer>
#include <exception>
#include <map>

#include "clean_path.h"
#include "display_text.h"
#include "engine/run_folder.h"

namespace strata {

namespace {

/** The feed of `runFolder`, shared by every follower of it while any is alive. */
std::shared_ptr<engine::MetricsFeed> sharedFeed(const QString& runFolder) {
  static std::map<QString, std::weak_ptr<engine::MetricsFeed>> feeds;  // GUI thread only
  for (auto it = feeds.begin(); it != feeds.end();)
    it = it->second.expired() ? feeds.erase(it) : ++it;
  std::weak_ptr<engine::MetricsFeed>& slot = feeds[cleanAbsolute(runFolder)];
  std::shared_ptr<engine::MetricsFeed> feed = slot.lock();
  if (!feed) {
    feed =
        std::make_shared<engine::MetricsFeed>(engine::RunFolder(toFsPath(runFolder)).metricsFile());
    slot = feed;
  }
  return feed;
}

}  // namespace

MetricsFollower::MetricsFollower(int intervalMs, QObject* parent)
    : QObject(parent), m_timer(new QTimer(this)) {
  m_timer->setInterval(intervalMs);
  connect(m_timer, &QTimer::timeout, this, &MetricsFollower::due);
}

MetricsFollower::~MetricsFollower() {
  if (m_feed) m_feed->leave(m_reader);
}

void MetricsFollower::follow(const QString& runFolder) {
  if (m_feed) m_feed->leave(m_reader);
  m_runFolder = runFolder;
  m_feed = runFolder.isEmpty() ? nullptr : sharedFeed(runFolder);
  if (m_feed) m_reader = m_feed->join();
}

MetricsUpdate MetricsFollower::read() {
  MetricsUpdate update;
  if (!m_feed) return update;
  try {
    engine::MetricsFeed::Update read = m_feed->read(m_reader);
    update.records = std::move(read.records);
    update.restarted = read.restarted;
  } catch (const std::exception& error) {
    update = {};
    update.error = QString::fromUtf8(error.what());
  }
  return update;
}

void MetricsFollower::setInterval(int ms) { m_timer->setInterval(ms); }

void MetricsFollower::start() { m_timer->start(); }

void MetricsFollower::stop() { m_timer->stop(); }

}  // namespace strata
