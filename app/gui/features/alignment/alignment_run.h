#pragma once
// A repr_align run as the Alignment view follows it: which run it is (folder, name, λ), and its
// metrics.jsonl tailed into an AlignmentTable — replayed whole on the first poll, then only the
// lines appended since; a file a resume truncated or replaced is read again from the top.
// Reading happens on the GUI thread, a poll at a time, as in the Training and Chunk Routing
// tabs (the new lines of a second are small; only the first replay reads the whole file).

#include <QList>
#include <QString>
#include <limits>

#include "alignment_table.h"
#include "engine/metrics_log.h"

namespace strata {

struct AlignmentRunInfo {
  QString folder;  ///< absolute and clean
  QString name;    ///< the folder's name
  /** run.json's config "lambda"; NaN when it has none. */
  double lambda = std::numeric_limits<double>::quiet_NaN();
  /** "<name> (λ = <lambda>)", or the name alone when the run has no λ. */
  QString label() const;
};

/**
 * Reads `folder`/run.json (core's readRunInfo) and checks that it is a repr_align run. Throws
 * IoError when the folder has no run.json, FormatError when run.json is unreadable or names
 * another recipe.
 */
AlignmentRunInfo readAlignmentRun(const QString& folder);

/** The repr_align runs directly inside `root` (core's listRuns), newest first. */
QList<AlignmentRunInfo> alignmentRunsIn(const QString& root);

class AlignmentRun {
 public:
  explicit AlignmentRun(AlignmentRunInfo info);

  const AlignmentRunInfo& info() const { return m_info; }
  const AlignmentTable& table() const { return m_table; }

  /**
   * Adds what was appended to metrics.jsonl since the last poll (everything, the first time).
   * When the file shrank or was replaced the table is rebuilt from the new file. Returns true
   * when the table changed. Throws IoError when metrics.jsonl exists but cannot be read.
   */
  bool poll();

 private:
  AlignmentRunInfo m_info;
  MetricsTail m_tail;
  AlignmentTable m_table;
};

}  // namespace strata
