#pragma once
// AlignmentView: the Alignment tab of a repr_align run — how closely each layer of the
// bidirectional student follows the causal teacher over training. Three plots of the run's
// metrics.jsonl: the mean cosine(student, teacher) of every hidden state over the steps (one
// curve per layer, coloured shallow → deep), the same cosines as a layer × step heatmap, and the
// validation loss and masked accuracy. A selector switches between the training records'
// cosines and the evaluations'; when a shown run logged no training cosines (λ = 0 runs no
// teacher in training) the view shows the evaluations' and says so.
//
// A second run can be compared (λ = 0 against λ = 10, say): its curves are drawn dashed in the
// same layer colours and its losses beside the first run's. The other repr_align runs of the
// same runs folder are offered, and the first of them (one with another λ, preferably) is
// compared automatically until the user chooses.
//
// Both runs are polled every second while the tab is visible (a MetricsFollower each, as the
// Training tab), so a run still training grows live; a log a resume truncated is read again.
// Exports: each plot as PNG / PDF, the step × layer table as CSV. Errors (an unreadable log, a
// compared folder that is not a repr_align run) are shown in the error dialog. GUI thread only.

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <memory>

#include "alignment_run.h"
#include "latest_read.h"

class QCPColorMap;
class QCPGraph;
class QComboBox;
class QCustomPlot;
class QLabel;
class QToolButton;

namespace strata {

class MetricsFeeds;

class AlignmentView final : public QWidget {
  Q_OBJECT

 public:
  /** Shows `run` (readAlignmentRun checked it) and reads its metrics at once, through
   *  `feeds` (the window's shared metrics feeds, Workbench::metricsFeeds(); none: its own). */
  explicit AlignmentView(AlignmentRunInfo run, MetricsFeeds* feeds = nullptr,
                         QWidget* parent = nullptr);
  ~AlignmentView() override;

  QString runFolder() const { return m_run->info().folder; }
  const AlignmentRun& run() const { return *m_run; }
  /** The compared run, or nullptr. */
  const AlignmentRun* comparison() const { return m_comparison.get(); }

  /** The cosines the user asked for (the selector). */
  CosineSource requestedSource() const;
  void setRequestedSource(CosineSource source);
  /** The cosines shown: the requested ones, or the evaluations' when a shown run has no
   *  training cosines. */
  CosineSource shownSource() const { return m_shown; }

  /**
   * Compares with the repr_align run in `folder` (any folder, not only the runs folder's).
   * A folder that is not one is reported in the error dialog; returns false then.
   */
  bool setComparisonRun(const QString& folder);
  void clearComparison();

  /** The per-layer cosines shown as CSV (AlignmentTable::csv of the first run). */
  QString csvText() const;
  /** Writes csvText() to `file`. Throws strata::IoError. */
  void saveCsv(const QString& file) const;

  QCustomPlot* curvesPlot() const { return m_curvesPlot; }
  QCustomPlot* heatmapPlot() const { return m_heatmapPlot; }
  QCPColorMap* cosineMap() const { return m_cosineMap; }
  QCustomPlot* lossPlot() const { return m_lossPlot; }
  /** The curve of hidden state `layer` of the first run / of the compared run, or nullptr. */
  QCPGraph* curve(int layer) const;
  QCPGraph* comparisonCurve(int layer) const;
  QComboBox* sourceBox() const { return m_sourceBox; }
  QComboBox* comparisonBox() const { return m_comparisonBox; }
  /** A poll's listing of the runs to compare with is under way. */
  bool listingCandidates() const { return m_candidateReads.busy(); }
  /** Why the shown cosines are not the requested ones; hidden when they are. */
  QLabel* sourceNote() const { return m_note; }
  /** Polling period while visible (default 1000 ms). */
  void setPollInterval(int ms);

 public slots:
  /** Reads what both runs appended to their logs and redraws when anything changed; also
   *  refreshes the runs offered for comparison. */
  void poll();

 signals:
  /** The plots were redrawn (new records, another source, another comparison). */
  void refreshed();

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  QWidget* buildPlots();
  void buildExportMenu(QToolButton* button);
  /** Reads one run's new lines with its follower; an error is reported once until the run
   *  reads again. Returns true when the run's table changed. */
  bool pollRun(AlignmentRun& run, MetricsFollower& metrics);
  /** Compares with `run` (nullptr: none), read at once. */
  void setComparison(std::unique_ptr<AlignmentRun> run);
  /** The repr_align runs beside the shown one (any thread; a folder gone away offers none). */
  static QList<AlignmentRunInfo> listCandidates(const QString& runsRoot);
  /** Offers `runs` (listCandidates) for comparison; picks one while the user has not chosen.
   *  Returns true when it picked one. */
  bool showCandidates(QList<AlignmentRunInfo> runs);
  /** The folder holding the shown run, whose other repr_align runs are offered. */
  QString runsRoot() const;
  void comparisonActivated(int index);
  void chooseComparisonFolder();
  void selectComparisonItem();
  void refresh();
  void reportError(const QString& summary, const QString& error, const QString& folder);

  std::unique_ptr<AlignmentRun> m_run;
  std::unique_ptr<AlignmentRun> m_comparison;
  bool m_comparisonChosen = false;  ///< the user (or a caller) chose; no more automatic picks
  CosineSource m_shown = CosineSource::Training;
  QHash<QString, QString> m_errors;  ///< folder → its last read error, reported once
  QStringList m_candidates;          ///< what the comparison box lists, to rebuild on change

  QLabel* m_title;
  QComboBox* m_sourceBox;
  QComboBox* m_comparisonBox;
  QLabel* m_note;
  QCustomPlot* m_curvesPlot;
  QCustomPlot* m_heatmapPlot;
  QCPColorMap* m_cosineMap;
  QCustomPlot* m_lossPlot;
  QList<QList<QCPGraph*>> m_curves;      ///< [run][layer], as last drawn
  MetricsFollower* m_metrics;            ///< the run's; its timer polls both runs while shown
  MetricsFollower* m_comparisonMetrics;  ///< the comparison run's (no timer of its own)
  /** Each poll's listing of the candidates, on a worker: a runs folder of hundreds of runs is
   *  read off the GUI thread. Opening the tab and choosing a folder list at once. */
  LatestRead<QString, QList<AlignmentRunInfo>> m_candidateReads;
};

}  // namespace strata
