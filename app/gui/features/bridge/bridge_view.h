#pragma once
// BridgeView: the Bridge tab — DiHAL's "replace" step. Above: the source model folder, the
// corpus, the activation store (scores and normalisation statistics) and l*, pre-filled from
// the store's score with a line saying where it came from; "Train Bridge…" (the Training
// launcher on recipe "bridge", filled from this form), "Sweep…" (the bridgeability study) and
// "Generate…" (original vs hybrid continuations of the run shown). Below: the bridge run it
// follows — its state and the evaluations that matter for a bridge (BridgeMetricsPlot: cosine,
// top-1 agreement, CE gap), tailed from metrics.jsonl while the tab is visible. Its loss curves
// are the Training tab's ("Show in Training Tab").
//
// The view holds no training code: its buttons emit signals and the main window runs the jobs,
// suggests l* (setSuggestedLayer) and says which run to follow (showRun, followSweep).
// GUI thread only; the file reading here is small (status.json, new metrics lines).

#include <QString>
#include <QWidget>
#include <memory>

#include "engine/metrics_log.h"

class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QToolButton;

namespace strata {

class BridgeMetricsPlot;
class MetricsFeeds;
class MetricsFollower;

class BridgeView final : public QWidget {
  Q_OBJECT

 public:
  /** `feeds`: the window's shared metrics feeds (Workbench::metricsFeeds()); none: the view
   *  reads its runs' metrics on its own. */
  explicit BridgeView(MetricsFeeds* feeds = nullptr, QWidget* parent = nullptr);
  ~BridgeView() override;

  QString modelFolder() const;
  void setModelFolder(const QString& folder);
  QString corpus() const;
  void setCorpus(const QString& corpus);
  /** The activation store whose score suggests l* (may be empty). */
  QString store() const;
  void setStore(const QString& store);
  /** The layer the bridge replaces (the spin box). */
  qint64 layer() const;

  /**
   * The score's l* and where it came from ("the Layer Geometry tab of acts.h5"). The spin box
   * takes it unless the user chose a layer by hand since the last suggestion; -1 says there is
   * none (`source` then says why).
   */
  void setSuggestedLayer(qint64 layer, const QString& source);
  qint64 suggestedLayer() const { return m_suggested; }

  /** Follows `run` (a bridge run folder; it may not exist yet): replays its evaluations and
   *  tails them. Stops following a sweep. */
  void showRun(const QString& run);
  /** While a sweep trains in `folder`, follows whichever of its layer runs is running. */
  void followSweep(const QString& folder);
  void stopFollowingSweep() { m_sweep.clear(); }
  QString shownRun() const { return m_run; }
  /** How often the followed run is read while the tab is visible (default 500 ms). */
  void setRefreshInterval(int ms);

  QSpinBox* layerBox() const { return m_layer; }
  QLabel* layerSourceLabel() const { return m_layerSource; }
  QLineEdit* modelEdit() const { return m_model; }
  QLineEdit* corpusEdit() const { return m_corpus; }
  QLineEdit* storeEdit() const { return m_store; }
  QPushButton* trainButton() const { return m_train; }
  QPushButton* sweepButton() const { return m_sweepButton; }
  QPushButton* generateButton() const { return m_generate; }
  QLabel* runLabel() const { return m_runLabel; }
  BridgeMetricsPlot* metricsPlot() const { return m_plot; }

 public slots:
  /** Reads what was appended to the followed run's metrics.jsonl, and its status. */
  void pollRun();

 signals:
  void trainRequested();
  void sweepRequested();
  void generateRequested(const QString& run);
  /** The user picked another store: the main window suggests its l*. */
  void storeChanged(const QString& store);
  void showInTrainingRequested(const QString& run);

 protected:
  void showEvent(QShowEvent* event) override;
  void hideEvent(QHideEvent* event) override;

 private:
  void updateLayerSource();
  void updateButtons();
  void openRun();

  QLineEdit* m_model;
  QLineEdit* m_corpus;
  QLineEdit* m_store;
  QSpinBox* m_layer;
  QToolButton* m_useSuggested;
  QLabel* m_layerSource;
  QPushButton* m_train;
  QPushButton* m_sweepButton;
  QPushButton* m_generate;
  QPushButton* m_showInTraining;
  QLabel* m_runLabel;
  BridgeMetricsPlot* m_plot;
  MetricsFollower* m_metrics;  ///< the shown run's metrics.jsonl; its timer also follows a sweep

  qint64 m_suggested = -1;
  QString m_suggestionSource;
  bool m_layerByHand = false;
  bool m_settingLayer = false;  ///< the spin box moves because of a suggestion, not the user
  QString m_run;
  QString m_sweep;
};

}  // namespace strata
