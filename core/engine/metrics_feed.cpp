#include "engine/metrics_feed.h"

#include <iterator>
#include <utility>

namespace strata::engine {

MetricsFeed::MetricsFeed(std::filesystem::path file) : m_file(file), m_tail(std::move(file)) {}

MetricsFeed::Update MetricsFeed::read(Cursor& cursor) {
  std::vector<MetricsRecord> fresh = m_tail.readNew();
  if (m_tail.restarted()) {  // the tail read the new file from its start
    m_records = std::move(fresh);
    ++m_generation;
  } else {
    m_records.insert(m_records.end(), std::make_move_iterator(fresh.begin()),
                     std::make_move_iterator(fresh.end()));
  }

  Update update;
  std::size_t from = cursor.next;
  if (cursor.generation != m_generation) {
    // A reader that has read before lost what it had; a new one simply starts at the top.
    update.restarted = cursor.generation != 0;
    from = 0;
  }
  update.records.assign(m_records.begin() + static_cast<std::ptrdiff_t>(from), m_records.end());
  cursor = {m_generation, m_records.size()};
  return update;
}

}  // namespace strata::engine
