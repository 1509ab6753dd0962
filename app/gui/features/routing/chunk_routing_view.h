#pragma once
// ChunkRoutingView: how a masked diffusion LM run (recipe dcdm) routes a text. A sequence the
// user types (or picks from the run's training corpus) is routed by core's routeText in a
// background job — only the newest request runs next, so typing never queues work — and shown
// four ways: the token strip (each token on its chunk's colour, affinities on hover), a K×T
// assignment heatmap (the token under the pointer as its tooltip), the 2T×2T attention mask
// training uses for the text (noisy and clean streams), and each chunk's share of the load over
// the training steps (val_chunk_share_<k> from metrics.jsonl, tailed while the run trains, its
// legend beside the axes). Before a text is routed the view says what to do instead of showing
// empty plots. A text longer than the run's seq_len is cut to its first seq_len tokens (the
// windows the run trained on; later positions were never trained) and a note says so. A slider
// over the run's checkpoints re-routes the text with older weights. While a routing runs, a busy
// bar with Cancel sits beside the status line (cancelling discards its result). Exports: every
// plot as PNG / PDF, the assignments as CSV. GUI thread only. A routing is a JobController of the
// view's own, or, with setJobStarter, one the window starts (so the window's busy() and status
// bar see it too).

#include <QPointer>
#include <QWidget>
#include <functional>
#include <memory>

#include "common/job.h"
#include "recipes/dcdm/chunk_routing.h"

class QCPColorMap;
class QCustomPlot;
class QLabel;
class QPlainTextEdit;
class QSlider;
class QTimer;

namespace strata {

class JobController;
class JobProgressWidget;
class MetricsFeeds;
class MetricsFollower;
class TokenStrip;

class ChunkRoutingView final : public QWidget {
  Q_OBJECT

 public:
  /** Starts `work` as a job named `name` and returns its (running) controller, which the
   *  starter owns and deletes after finished(). */
  using JobStarter = std::function<JobController*(const QString& name, JobWork work)>;

  /** `feeds`: the window's shared metrics feeds (Workbench::metricsFeeds()); none: the view
   *  reads its runs' metrics on its own. */
  explicit ChunkRoutingView(QString runFolder, MetricsFeeds* feeds = nullptr,
                            QWidget* parent = nullptr);
  /** Cancels a routing still running. */
  ~ChunkRoutingView() override;

  /** Routings start through `starter` from now on (default: the view's own controllers). */
  void setJobStarter(JobStarter starter) { m_startJob = std::move(starter); }

  QString runFolder() const { return m_run; }
  /** Replaces the text and routes it at once (no typing delay). */
  void setText(const QString& text);
  QString text() const;
  /** The report shown, or nullptr before the first routing finished. */
  std::shared_ptr<const recipes::ChunkRoutingReport> report() const { return m_report; }
  /** The checkpoint step the slider selects, or -1 while the run has none. */
  int64_t selectedStep() const;

  TokenStrip* tokenStrip() const { return m_strip; }
  QCPColorMap* assignmentMap() const { return m_assignmentMap; }
  QCPColorMap* maskMap() const { return m_maskMap; }
  QCustomPlot* loadPlot() const { return m_loadPlot; }
  QCustomPlot* assignmentPlot() const { return m_assignmentPlot; }
  QCustomPlot* maskPlot() const { return m_maskPlot; }
  QSlider* checkpointSlider() const { return m_slider; }
  /** What to do, shown in place of the plots until a text is routed. */
  QLabel* emptyState() const { return m_emptyState; }
  /** "The text has N tokens; …": shown while the routed text was cut to the run's seq_len. */
  QLabel* lengthNote() const { return m_lengthNote; }
  /** The routing's busy bar and Cancel; visible only while a routing runs. */
  JobProgressWidget* routingProgress() const { return m_progress; }

  /** The shown report as CSV (writeChunkRoutingCsv). Throws strata::Error on failure. */
  void saveCsv(const QString& file) const;
  /** Reads new metrics records and checkpoints (the view's timer calls it every second). */
  void poll();
  /** The run's training corpus (run.json's corpus setting), or empty when it records none. */
  QString runCorpus() const;
  /** Opens the file dialog (window-modal, not blocking) that picks a paragraph of a text file;
   *  it starts at the run's corpus: the file selected, or inside the folder. */
  void pickFromCorpus();
  /** The tooltip of the assignment heatmap at `point` (the plot's coordinates): the token,
   *  its position and chunk, or empty off the cells. */
  QString assignmentToolTipAt(const QPoint& point) const;
  /** The first paragraph of at least a few words of `corpusText`, at most ~1000 characters. */
  static QString pickParagraph(const QString& corpusText, int seed);

 signals:
  /** A routing finished and is shown. */
  void routed();
  /** A routing failed; `error` is also shown in the view. */
  void routingFailed(const QString& error);
  /** A routing was cancelled (Cancel); nothing new is shown. */
  void routingCancelled();

 private:
  void requestRouting();
  void startRouting();
  void showReport(std::shared_ptr<const recipes::ChunkRoutingReport> report);
  void refreshCheckpoints();
  void readParagraphOf(const QString& file);
  /** Shows the plots when there is a report, else the empty state; the load plot once it has
   *  curves. */
  void updateEmptyState();
  bool eventFilter(QObject* watched, QEvent* event) override;
  QWidget* buildPlots();

  QString m_run;
  QPlainTextEdit* m_textEdit;
  QLabel* m_status;
  QLabel* m_lengthNote;
  QLabel* m_emptyState;
  JobProgressWidget* m_progress;
  QSlider* m_slider;
  QLabel* m_stepLabel;
  TokenStrip* m_strip;
  QCustomPlot* m_assignmentPlot;
  QCPColorMap* m_assignmentMap;
  QCustomPlot* m_maskPlot;
  QCPColorMap* m_maskMap;
  QCustomPlot* m_loadPlot;
  QWidget* m_plotRow;  ///< the mask and the load plot side by side
  QTimer* m_typingDelay;
  MetricsFollower* m_metrics;  ///< the run's metrics.jsonl (the load plot); polled even hidden
  int64_t m_seqLen = 0;        ///< the run's seq_len (run.json), 0 when unknown
  std::vector<int64_t> m_steps;
  JobStarter m_startJob;
  QPointer<JobController> m_job;
  bool m_pending = false;  ///< a request arrived while a routing ran
  std::shared_ptr<const recipes::ChunkRoutingReport> m_report;
};

}  // namespace strata
