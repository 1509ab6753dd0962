#include "metrics_follower.h"

#include <QTimer>
#include <exception>

#include "metrics_feeds.h"

namespace strata {

MetricsFollower::MetricsFollower(int intervalMs, MetricsFeeds* feeds, QObject* parent)
    : QObject(parent), m_feeds(feeds), m_timer(new QTimer(this)) {
  m_timer->setInterval(intervalMs);
  connect(m_timer, &QTimer::timeout, this, &MetricsFollower::due);
}

MetricsFollower::~MetricsFollower() {
  if (m_feed) m_feed->leave(m_reader);
}

void MetricsFollower::follow(const QString& runFolder) {
  if (m_feed) m_feed->leave(m_reader);
  m_runFolder = runFolder;
  if (runFolder.isEmpty())
    m_feed = nullptr;
  else
    m_feed = m_feeds ? m_feeds->feed(runFolder) : MetricsFeeds::feedOfItsOwn(runFolder);
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
