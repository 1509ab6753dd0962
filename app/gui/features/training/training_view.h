#pragma once
// TrainingView: the Training tab. Left, the runs under the runs folder (and any opened with
// Open Run Folder…), refreshed every second from the run folders themselves — so runs started
// by strata-cli in another process appear and change state too. Right, the selected run: its
// progress (status.json's step of total, the step rate over the training time metrics.jsonl
// logs — pauses and stops left out — and an ETA), the plots of its metrics.jsonl (replayed
// when shown, then tailed every few hundred ms, so a run still being written grows live), and
// the log of the training this window runs. Files are read only while the view is visible.
//
// The view holds no training code: Start…/Pause/Resume/Stop emit signals, and the main window
// tells the view which run it trains (setActiveRun) and forwards the job's log and progress.
// GUI thread only; all file reading here is small (status files, new metrics lines).

#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "engine/step_rate.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace strata {

class MetricsFeeds;
class MetricsFollower;
class RunsTable;
class TrainingPlots;

class TrainingView final : public QWidget {
  Q_OBJECT

 public:
  /** What this window is doing with its own training job. */
  enum class ActiveState { None, Training, Paused };

  /** `feeds`: the window's shared metrics feeds (Workbench::metricsFeeds()); none: the view
   *  reads its runs' metrics on its own. */
  explicit TrainingView(const QString& runsRoot, MetricsFeeds* feeds = nullptr,
                        QWidget* parent = nullptr);
  ~TrainingView() override;

  QString runsRoot() const { return m_runsRoot; }
  /** Lists the runs of `root` from now on. */
  void setRunsRoot(const QString& root);
  /** Lists `folder` (a run outside the runs folder) as well. */
  void addRunFolder(const QString& folder);
  /** Replays `folder`'s metrics.jsonl and follows it; selects it in the list when listed. */
  void showRun(const QString& folder);
  /** The run shown (absolute, clean), or empty. */
  QString shownRun() const { return m_shown; }
  /** The run this window trains and whether it is paused; enables the buttons to match. */
  void setActiveRun(const QString& folder, ActiveState state);
  ActiveState activeState() const { return m_activeState; }
  /** Runs list refresh and metrics tail periods (defaults 1000 ms and 300 ms); both run only
   *  while the view is visible. */
  void setRefreshIntervals(int listMs, int tailMs);

  /** "12 s", "4 min 05 s", "2 h 03 min". */
  static QString durationText(double seconds);

  RunsTable* runsTable() const { return m_runs; }
  TrainingPlots* plots() const { return m_plots; }
  QProgressBar* progressBar() const { return m_progress; }
  QLabel* etaLabel() const { return m_eta; }
  QLabel* headerLabel() const { return m_header; }
  QPlainTextEdit* logView() const { return m_log; }
  QPushButton* startButton() const { return m_start; }
  QPushButton* pauseButton() const { return m_pause; }
  QPushButton* resumeButton() const { return m_resume; }
  QPushButton* stopButton() const { return m_stop; }

 public slots:
  /** Re-reads the runs folder and the status of every listed run (on a worker thread: the list
   *  changes when runsTable()'s `refreshed` fires). */
  void refreshRuns();
  /** Reads what was appended to the shown run's metrics.jsonl, and its status. */
  void pollShownRun();
  /** A line of the training log; `level` is a strata::MessageLevel cast to int. Lines reach
   *  the pane in batches, within 150 ms. */
  void appendLog(int level, const QString& text);
  /** Shows the batched log lines now. */
  void flushLog();
  /** The running job's own progress (shown in the log header while no metrics arrived). */
  void showJobProgress(double fraction, const QString& stage);

 signals:
  void startRequested();
  void pauseRequested();
  /** Continue `folder`: unpause the active run, or resume a stopped run from its checkpoint. */
  void resumeRequested(const QString& folder);
  void stopRequested();
  /** The user chose another runs folder. */
  void runsRootChanged(const QString& root);
  void runShown(const QString& folder);
  /** New metrics records of the shown run were plotted. */
  void recordsArrived(int count);

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  /** The runs list was read again: the shown run's checkpoint and row, the buttons. */
  void runsListed();
  void openRunFolder();
  void chooseRunsRoot();
  void updateProgress();
  void updateButtons();

  QString m_runsRoot;
  QStringList m_extraRuns;  ///< opened with Open Run Folder…
  QString m_shown;
  engine::StepRate m_rate;  // of the shown run, over its training time: for the ETA
  engine::RunStatus m_shownStatus;
  int64_t m_shownCheckpoint = -1;
  QString m_activeFolder;
  ActiveState m_activeState = ActiveState::None;
  QString m_tailError;  ///< the last error reading the shown run (reported once)

  QLabel* m_rootLabel;
  RunsTable* m_runs;
  QLabel* m_header;
  QProgressBar* m_progress;
  QLabel* m_eta;
  QPushButton* m_start;
  QPushButton* m_pause;
  QPushButton* m_resume;
  QPushButton* m_stop;
  TrainingPlots* m_plots;
  QPlainTextEdit* m_log;
  QTimer* m_listTimer;
  MetricsFollower* m_metrics;  ///< the shown run's metrics.jsonl
  QTimer* m_logFlush;
  QStringList m_pendingLog;
};

}  // namespace strata
