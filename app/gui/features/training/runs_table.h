#pragma once
// RunsTable: the Training tab's list of runs, one row per run folder (name, recipe, state, step
// of total, last update). refresh() reads the folders themselves (run_folder.h), so a run that
// another process (strata-cli) writes appears and changes state like one trained here. Rows are
// updated in place, so a refresh keeps the selection and scroll position. GUI thread only.

#include <QString>
#include <QStringList>
#include <QTableWidget>
#include <vector>

#include "engine/run_folder.h"

namespace strata {

class RunsTable final : public QTableWidget {
  Q_OBJECT

 public:
  enum Column { RunColumn, RecipeColumn, StateColumn, StepColumn, UpdatedColumn, ColumnCount };

  explicit RunsTable(QWidget* parent = nullptr);

  /** Lists the runs directly inside `root` (newest first), then those of `extraRuns` (clean
   *  absolute folders) that are not among them. */
  void refresh(const QString& root, const QStringList& extraRuns);
  /** The newest info read for `folder` (clean absolute), or nullptr when it is not listed. */
  const RunInfo* info(const QString& folder) const;
  /** The row of `folder`, or -1. */
  int rowOf(const QString& folder) const;
  /** Selects `folder`'s row, if listed, without emitting runSelected. */
  void selectRun(const QString& folder);

 signals:
  /** The user selected the row of `folder`. */
  void runSelected(const QString& folder);

 private:
  void fillRow(int row, const RunInfo& info);

  std::vector<RunInfo> m_runs;  ///< in row order
  QStringList m_folders;        ///< clean absolute, in row order
};

}  // namespace strata
