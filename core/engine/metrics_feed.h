#pragma once
// MetricsFeed: one run's metrics.jsonl read once for every reader that follows it. The GUI's
// tabs (Training, Bridge, Alignment, Chunk Routing) may follow the same run; each joins the
// run's feed as a reader, and one tail reads the file for all of them. The feed holds only the
// records that a reader still has not received, and never more than `maxHeld`: a reader that
// falls further behind (a tab hidden for an hour of training), or one that joins late, catches
// up by reading the file once itself, so memory stays bounded however long the run. Not
// thread-safe: one thread (the GUI's) reads a feed.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <vector>

#include "engine/metrics_log.h"

namespace strata::engine {

class MetricsFeed {
 public:
  using Reader = uint64_t;

  /** What one read returns to its reader. */
  struct Update {
    /** The records this reader had not received; all of them again when `restarted`. */
    std::vector<MetricsRecord> records;
    /** The file was cut or replaced (a resume) since this reader's last read. */
    bool restarted = false;
  };

  static constexpr std::size_t kDefaultMaxHeld = 16384;

  explicit MetricsFeed(std::filesystem::path file, std::size_t maxHeld = kDefaultMaxHeld);

  /** A new reader: its first read returns every record of the file. */
  Reader join();
  /** `reader` reads no more; what only it was owed is dropped. */
  void leave(Reader reader);

  /** Reads what the file gained since anyone's last read, then returns what `reader` has not
   *  received. Throws IoError when the file cannot be read (the reader then stands where it
   *  was), std::out_of_range for a reader that never joined. Malformed lines are skipped, as
   *  MetricsTail does. */
  Update read(Reader reader);

  /** Records held for readers that have not received them yet. */
  std::size_t heldRecords() const { return m_records.size(); }

 private:
  struct Position {
    uint64_t generation = 0;  ///< the file's generation at the reader's last read; 0: never read
    uint64_t next = 0;        ///< the index (in the file) of the first record not yet received
  };

  /** The shared tail's new records into m_records; a cut or replaced file starts a generation. */
  void poll();
  /** Drops what every reader has received, and the oldest records beyond maxHeld. */
  void trim();
  /** The records of the file from index `from` on, read by a tail of the reader's own. */
  std::vector<MetricsRecord> catchUp(uint64_t from, uint64_t& end) const;

  std::filesystem::path m_file;
  std::size_t m_maxHeld;
  MetricsTail m_tail;
  std::deque<MetricsRecord> m_records;  ///< records m_first … m_first + size − 1 of the file
  uint64_t m_first = 0;
  uint64_t m_generation = 1;  ///< bumped when the file is cut or replaced
  std::map<Reader, Position> m_readers;
  Reader m_nextReader = 1;
};

}  // namespace strata::engine
