#include "metrics_follower.h"

#include <QTimer>
#include <exception>

#include "display_text.h"
#include "engine/run_folder.h"

namespace strata {

MetricsFollower::MetricsFollower(int intervalMs, QObject* parent)
    : QObject(parent), m_timer(new QTimer(this)) {
  m_timer->setInterval(intervalMs);
  connect(m_timer, &QTimer::timeout, this, &MetricsFollower::due);
}

MetricsFollower::~MetricsFollower() = default;

void MetricsFollower::follow(const QString& runFolder) {
  m_runFolder = runFolder;
  m_tail = runFolder.isEmpty()
               ? nullptr
               : std::make_unique<MetricsTail>(RunFolder(toFsPath(runFolder)).metricsFile());
}

MetricsUpdate MetricsFollower::read() {
  MetricsUpdate update;
  if (!m_tail) return update;
  try {
    update.records = m_tail->readNew();
    update.restarted = m_tail->restarted();
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
