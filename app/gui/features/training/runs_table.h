#pragma once
// RunsTable: the Training tab's list of runs, one row per run folder (name, recipe, state, step
// of total, last update). refresh() reads the folders themselves (run_folder.h), so a run that
// another process (strata-cli) writes appears and changes state like one trained here. The
// folders are read on a worker thread (a runs folder of hundreds of runs, or one on a slow
// network disk, never stalls the window); the rows change when the read is done (`refreshed`).
// Rows are updated in place, so a refresh keeps the selection and scroll position. GUI thread
// only.

#include <QDateTime>
#include <QString>
#include <QStringList>
#include <QTableWidget>
#include <vector>

#include "engine/run_folder.h"
#include "latest_read.h"

namespace strata {

class RunsTable final : public QTableWidget {
  Q_OBJECT

 public:
  enum Column { RunColumn, RecipeColumn, StateColumn, StepColumn, UpdatedColumn, ColumnCount };

  explicit RunsTable(QWidget* parent = nullptr);

  /** What one read of the folders found: the runs in row order and their clean folders. */
  struct Listing {
    std::vector<engine::RunInfo> runs;
    QStringList folders;
  };

  /** Reads the runs directly inside `root` (newest first), then those of `extraRuns` (clean
   *  absolute folders) that are not among them; what cannot be read is left out. Any thread. */
  static Listing listFolders(const QString& root, const QStringList& extraRuns);

  /** Starts listing `root` and `extraRuns` (listFolders) on a worker thread; the rows follow
   *  when it is done. Asked while a read is under way, it reads again after it, once, with the
   *  newest arguments. */
  void refresh(const QString& root, const QStringList& extraRuns);
  /** A read is under way or waiting. */
  bool refreshing() const { return m_reads.busy(); }
  /** The newest info read for `folder` (clean absolute), or nullptr when it is not listed. */
  const engine::RunInfo* info(const QString& folder) const;
  /** The row of `folder`, or -1. */
  int rowOf(const QString& folder) const;
  /** Selects `folder`'s row, if listed, without emitting runSelected. */
  void selectRun(const QString& folder);
  /** Wide enough for a run's name, its recipe, State, Step and Updated whole. */
  QSize sizeHint() const override;
  /** Wide enough for State, Step and Updated whole beside a little of the name. */
  QSize minimumSizeHint() const override;
  /** The Updated column's text for status.json's `updated` (seconds since the epoch): the time
   *  for today, else the date (the whole time is in the tooltip); empty when never updated. */
  static QString updatedText(double seconds);

 signals:
  /** The user selected the row of `folder`. */
  void runSelected(const QString& folder);
  /** A read finished and the rows show it. */
  void refreshed();

 private:
  struct Request {
    QString root;
    QStringList extraRuns;
  };
  static constexpr int kCellPadding = 8;  // room beside a cell's text, on each side
  static QDateTime updatedTime(double seconds);
  /** The list's width for the least of a name and `samples`, one a column. */
  int widthFor(const QStringList& samples) const;
  void resizeEvent(QResizeEvent* event) override;
  void showListing(Listing listing);
  void fillRow(int row, const engine::RunInfo& info);

  std::vector<engine::RunInfo> m_runs;   ///< in row order
  QStringList m_folders;                 ///< clean absolute, in row order
  LatestRead<Request, Listing> m_reads;  ///< the folders, listed on a worker
};

}  // namespace strata
