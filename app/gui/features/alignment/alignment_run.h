#pragma once
// A repr_align run as the Alignment view follows it: which run it is (folder, name, λ), and its
// metrics.jsonl gathered into an AlignmentTable — replayed whole on the first read, then only
// the lines appended since; a file a resume truncated or replaced is read again from the top.
// The view reads each run with a MetricsFollower (views/metrics_follower.h) on the GUI thread,
// a poll at a time, as the Training and Chunk Routing tabs do (the new lines of a second are
// small; only the first replay reads the whole file).

#include <QList>
#include <QString>
#include <limits>

#include "alignment_table.h"
#include "metrics_follower.h"

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
   * Adds what a read of the run's metrics.jsonl found (an update without error): the records
   * appended since the last read, or, when the file shrank or was replaced, the whole new file
   * (the table is rebuilt). Returns true when the table changed.
   */
  bool absorb(const MetricsUpdate& update);

 private:
  AlignmentRunInfo m_info;
  AlignmentTable m_table;
};

}  // namespace strata
