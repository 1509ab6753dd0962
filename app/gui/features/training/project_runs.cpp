#include "project_runs.h"

#include "project_dock.h"

namespace strata {

ProjectRuns::ProjectRuns(ProjectDock& dock, QObject* parent)
    : QObject(parent),
      m_dock(dock),
      m_reads(
          this, [](const QString& root) { return RunsTable::listFolders(root, {}); },
          [this](RunsTable::Listing listing) {
            m_dock.setEntries(ProjectCategory::Runs, listing.folders);
          }) {}

void ProjectRuns::refresh(const QString& root) { m_reads.request(root); }

}  // namespace strata
