#pragma once
// MetricsFeed: one run's metrics.jsonl read once for every reader that follows it. The GUI's
// tabs (Training, Bridge, Alignment, Chunk Routing) may follow the same run; each holds a
// cursor into one feed, so the file is read once however many tabs show it, and a tab that
// starts following late still receives the whole history. Not thread-safe: one thread (the
// GUI's) reads a feed.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

#include "engine/metrics_log.h"

namespace strata::engine {

class MetricsFeed {
 public:
  /** Where one reader stands in the feed; a default cursor has read nothing yet. */
  struct Cursor {
    uint64_t generation = 0;  ///< the file's generation when last read; 0: never read
    std::size_t next = 0;     ///< the first record this reader has not received
  };

  /** What one read returns to its reader. */
  struct Update {
    /** The records this reader had not received; all of them again when `restarted`. */
    std::vector<MetricsRecord> records;
    /** The file was cut or replaced (a resume) since this reader's last read. */
    bool restarted = false;
  };

  explicit MetricsFeed(std::filesystem::path file);

  /** Reads what the file gained since anyone's last read, then returns what `cursor` has not
   *  received and moves it to the end. Throws IoError when the file cannot be
   *  read; the cursor then stays where it was. Malformed lines are skipped, as MetricsTail does. */
  Update read(Cursor& cursor);

  const std::filesystem::path& file() const { return m_file; }
  /** Every record read so far, in file order. */
  const std::vector<MetricsRecord>& records() const { return m_records; }

 private:
  std::filesystem::path m_file;
  MetricsTail m_tail;
  std::vector<MetricsRecord> m_records;
  uint64_t m_generation = 1;  ///< bumped when the file is cut or replaced
};

}  // namespace strata::engine
