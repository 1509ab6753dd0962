#pragma once
// ProjectRuns: the project dock's "Runs", the run folders directly inside the runs root. They
// are listed on a worker (RunsTable::listFolders) when the workbench starts, when the runs root
// changes and when asked (a run started or ended), and replace the dock's list without moving
// its selection. GUI thread only; owned by the training feature.

#include <QObject>
#include <QString>

#include "latest_read.h"
#include "runs_table.h"

namespace strata {

class ProjectDock;

class ProjectRuns final : public QObject {
  Q_OBJECT

 public:
  /** Lists into `dock`, which must outlive this object. */
  explicit ProjectRuns(ProjectDock& dock, QObject* parent = nullptr);

  /** Lists `root`'s runs again (coalesced: one read at a time, the newest root next). */
  void refresh(const QString& root);
  /** A read is under way or waiting. */
  bool listing() const { return m_reads.busy(); }

 private:
  ProjectDock& m_dock;
  LatestRead<QString, RunsTable::Listing> m_reads;
};

}  // namespace strata
