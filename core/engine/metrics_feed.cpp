#include "engine/metrics_feed.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <utility>

namespace strata::engine {

MetricsFeed::MetricsFeed(std::filesystem::path file, std::size_t maxHeld)
    : m_file(file), m_maxHeld(maxHeld), m_tail(std::move(file)) {}

MetricsFeed::Reader MetricsFeed::join() {
  const Reader reader = m_nextReader++;
  m_readers.emplace(reader, Position{});
  return reader;
}

void MetricsFeed::leave(Reader reader) {
  m_readers.erase(reader);
  trim();
}

void MetricsFeed::poll() {
  std::vector<MetricsRecord> fresh = m_tail.readNew();
  if (m_tail.restarted()) {  // the tail read the new file from its start
    m_records.clear();
    m_first = 0;
    ++m_generation;
  }
  m_records.insert(m_records.end(), std::make_move_iterator(fresh.begin()),
                   std::make_move_iterator(fresh.end()));
}

std::vector<MetricsRecord> MetricsFeed::catchUp(uint64_t from, uint64_t& end) const {
  // A tail of its own numbers the file's records as the shared one does (both skip the same
  // malformed lines and hold back the same cut last line), so indices agree within a file.
  MetricsTail own(m_file);
  std::vector<MetricsRecord> all = own.readNew();
  end = all.size();
  if (from >= all.size()) return {};
  return {std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(from)),
          std::make_move_iterator(all.end())};
}

MetricsFeed::Update MetricsFeed::read(Reader reader) {
  Position& position = m_readers.at(reader);
  poll();

  Update update;
  uint64_t need = position.next;
  if (position.generation != m_generation) {
    // A reader that has read before lost what it had; a new one simply starts at the top.
    update.restarted = position.generation != 0;
    need = 0;
  }
  const uint64_t held = m_first + m_records.size();
  uint64_t next = std::max(held, need);  // past held: it caught up beyond the shared tail once
  if (need >= m_first) {
    const auto from =
        m_records.begin() + static_cast<std::ptrdiff_t>(std::min(need, held) - m_first);
    update.records.assign(from, m_records.end());
  } else {
    // Its records were dropped (it joined late or fell behind): read the file itself, once.
    uint64_t end = 0;
    update.records = catchUp(need, end);
    // The file may have grown past what the shared tail read; those records are delivered now,
    // and the shared ones with the same indices are skipped later.
    next = std::max(end, need);
  }
  position = {m_generation, next};
  trim();
  return update;
}

void MetricsFeed::trim() {
  // A reader that never read, or read an older file, is owed this file from its start.
  uint64_t keepFrom = std::numeric_limits<uint64_t>::max();
  for (const auto& [reader, position] : m_readers)
    keepFrom = std::min(keepFrom, position.generation == m_generation ? position.next : 0);
  const uint64_t held = m_first + m_records.size();
  keepFrom = std::min(keepFrom, held);
  if (held - keepFrom > m_maxHeld) keepFrom = held - m_maxHeld;
  while (m_first < keepFrom) {
    m_records.pop_front();
    ++m_first;
  }
}

}  // namespace strata::engine
