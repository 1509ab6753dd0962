#include "metrics_feeds.h"

#include <algorithm>

#include "clean_path.h"
#include "display_text.h"
#include "engine/run_folder.h"

namespace strata {

std::shared_ptr<engine::MetricsFeed> MetricsFeeds::feed(const QString& runFolder) {
  std::erase_if(m_feeds, [](const auto& entry) { return entry.second.expired(); });
  std::weak_ptr<engine::MetricsFeed>& slot = m_feeds[cleanAbsolute(runFolder)];
  std::shared_ptr<engine::MetricsFeed> shared = slot.lock();
  if (!shared) {
    shared = feedOfItsOwn(runFolder);
    slot = shared;
  }
  return shared;
}

std::shared_ptr<engine::MetricsFeed> MetricsFeeds::feedOfItsOwn(const QString& runFolder) {
  return std::make_shared<engine::MetricsFeed>(
      engine::RunFolder(toFsPath(runFolder)).metricsFile());
}

std::size_t MetricsFeeds::size() const {
  return static_cast<std::size_t>(std::count_if(
      m_feeds.begin(), m_feeds.end(), [](const auto& entry) { return !entry.second.expired(); }));
}

}  // namespace strata
