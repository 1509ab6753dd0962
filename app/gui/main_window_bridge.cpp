// MainWindow, bridge: DiHAL's replace step. The Bridge tab takes its model, store and l* from
// what is open (l* from the Layer Geometry tab's weights when that tab is open, else read from
// the store's /geometry as the recipe would); Train Bridge… is the ordinary training launcher
// on recipe "bridge", so the run is an ordinary run the Training tab lists too. A sweep runs
// core's runBridgeSweep (main_window_sweep.cpp); Generate… compares original and hybrid
// continuations in a job, one generation at a time.

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QTabWidget>

#include "bridgeability_view.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "generate_panel.h"
#include "gui_settings.h"
#include "layer_geometry_view.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"
#include "recipes/bridge_layer.h"
#include "recipes/hybrid_generation.h"
#include "store_summary_view.h"

namespace strata {
namespace {

const QString kBridgeTabKey = QStringLiteral("strata:bridge");
const QString kBridgeCorpusKey = QStringLiteral("bridge/corpus");

QString sweepKey(const QString& folder) { return folder + QStringLiteral("#bridgeability"); }
QString generateKey(const QString& run) { return run + QStringLiteral("#generate"); }
QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

template <class View>
View* tabWithKey(const QTabWidget* tabs, const QString& key) {
  for (int i = 0; i < tabs->count(); ++i)
    if (tabs->widget(i)->property("strataPath").toString() == key)
      return qobject_cast<View*>(tabs->widget(i));
  return nullptr;
}

}  // namespace

void MainWindow::createBridgeMenu() {
  QMenu* menu = menuBar()->addMenu(tr("&Bridge"));
  QAction* tab = menu->addAction(tr("&Bridge Tab"), this, &MainWindow::showBridgeView);
  tab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  tab->setStatusTip(tr("Choose l*, train a DiHAL bridge there and watch its evaluation"));
  QAction* sweep =
      menu->addAction(tr("Bridgeability &Sweep…"), this, &MainWindow::showBridgeSweepDialog);
  sweep->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
  sweep->setStatusTip(
      tr("Train an equal-budget bridge at every layer of a range and correlate "
         "the score with their losses"));
  menu->addAction(tr("&Open Sweep Folder…"), this, [this] {
    const QString folder =
        QFileDialog::getExistingDirectory(this, tr("Open Sweep Folder"), m_runsRoot);
    if (!folder.isEmpty()) openSweepFolder(folder);
  });
  QAction* generate = menu->addAction(tr("&Generate…"), this, [this] { showGeneratePanel(); });
  generate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  generate->setStatusTip(tr("Compare a bridge's hybrid continuations with the original model's"));

  // A store scored after the Bridge tab opened updates its l*.
  connect(this, &MainWindow::geometryShown, this, [this](const QString& store) {
    if (m_bridgeView && cleanAbsolute(m_bridgeView->store()) == store) suggestBridgeLayer();
  });
  connect(this, &MainWindow::trainingStarted, this, [this](const QString& folder) {
    if (m_bridgeView && m_trainingRecipe == QLatin1String("bridge")) m_bridgeView->showRun(folder);
  });
}

BridgeabilityView* MainWindow::bridgeabilityView(const QString& folder) const {
  return tabWithKey<BridgeabilityView>(m_tabs, sweepKey(cleanAbsolute(folder)));
}

GeneratePanel* MainWindow::generatePanel(const QString& bridgeRun) const {
  return tabWithKey<GeneratePanel>(m_tabs, generateKey(cleanAbsolute(bridgeRun)));
}

void MainWindow::showBridgeView() {
  if (m_bridgeView) {
    focusTab(kBridgeTabKey);
    return;
  }
  auto* view = new BridgeView(this);
  const QString store = currentStore();
  // The store's own model first: its statistics and l* belong to that model.
  QString model;
  if (const auto summary = m_stores.value(store); summary) {
    const QString id = toQString(summary->meta.modelId);
    if (QFileInfo(id).isDir()) model = id;
  }
  view->setModelFolder(model.isEmpty() ? currentModel() : model);
  view->setStore(store);
  if (m_options.persistSettings) {
    const QSettings settings = guiSettings();
    view->setCorpus(
        settings.value(kBridgeCorpusKey, settings.value(QStringLiteral("capture/corpus")))
            .toString());
  }
  connect(view, &BridgeView::trainRequested, this, &MainWindow::showBridgeLaunchDialog);
  connect(view, &BridgeView::sweepRequested, this, &MainWindow::showBridgeSweepDialog);
  connect(view, &BridgeView::generateRequested, this, &MainWindow::showGeneratePanel);
  connect(view, &BridgeView::storeChanged, this, &MainWindow::suggestBridgeLayer);
  connect(view, &BridgeView::showInTrainingRequested, this, &MainWindow::showRunInTrainingView);
  m_bridgeView = view;
  if (m_sweepJob)
    view->followSweep(m_sweepFolder);
  else if (m_trainingJob && m_trainingRecipe == QLatin1String("bridge"))
    view->showRun(m_trainingFolder);
  addTab(view, kBridgeTabKey, tr("Bridge"));
  suggestBridgeLayer();
}

void MainWindow::suggestBridgeLayer() {
  if (!m_bridgeView) return;
  if (m_bridgeView->store().isEmpty()) {
    m_bridgeView->setSuggestedLayer(-1, tr("No activation store: choose l* by hand, or open a "
                                           "store scored with Geometry ▸ Score Layers…."));
    emit bridgeLayerSuggested({}, -1);
    return;
  }
  const QString store = cleanAbsolute(m_bridgeView->store());
  if (LayerGeometryView* geometry = geometryView(store)) {
    // Follows the tab's weights and candidates as the user moves them.
    connect(geometry, &LayerGeometryView::scoresChanged, this, &MainWindow::suggestBridgeLayer,
            Qt::UniqueConnection);
    const qint64 layer = geometry->bestLayer();
    m_bridgeView->setSuggestedLayer(
        layer, layer >= 0
                   ? tr("%1 (with the weights of its Layer Geometry tab)").arg(fileName(store))
                   : tr("%1 has no candidate layer with a finite score: choose l* by hand.")
                         .arg(fileName(store)));
    emit bridgeLayerSuggested(store, layer);
    return;
  }
  if (m_layerJob) m_layerJob->cancel();  // an older store's answer is not wanted any more
  auto layer = std::make_shared<int64_t>(-1);
  JobWork work = [file = toFsPath(store), layer](JobContext& job) {
    job.progress(-1.0, "reading the layer scores");
    *layer = bestLayerOfStore(file);
  };
  m_layerJob = startJob(
      tr("Reading l* of %1").arg(fileName(store)), std::move(work),
      [this, store, layer](JobOutcome outcome, const QString& error) {
        if (!m_bridgeView || cleanAbsolute(m_bridgeView->store()) != store) return;
        if (outcome == JobOutcome::Cancelled) return;
        // A store without scores is a normal state here, not an error: the label says so.
        const qint64 best = outcome == JobOutcome::Succeeded ? *layer : -1;
        m_bridgeView->setSuggestedLayer(
            best, best >= 0 ? tr("%1 (its /geometry, default weights)").arg(fileName(store))
                            : tr("No l* from %1: %2").arg(fileName(store), error));
        emit bridgeLayerSuggested(store, best);
      });
}

void MainWindow::showBridgeLaunchDialog() {
  showBridgeView();
  QMap<QString, QString> values;
  if (!m_bridgeView->modelFolder().isEmpty())
    values.insert(QStringLiteral("model"), m_bridgeView->modelFolder());
  if (!m_bridgeView->corpus().isEmpty())
    values.insert(QStringLiteral("corpus"), m_bridgeView->corpus());
  // Always, even empty: a store remembered from another model would not match this one.
  values.insert(QStringLiteral("store"), m_bridgeView->store());
  values.insert(QStringLiteral("layer"), QString::number(m_bridgeView->layer()));
  if (m_options.persistSettings && !m_bridgeView->corpus().isEmpty())
    guiSettings().setValue(kBridgeCorpusKey, m_bridgeView->corpus());
  openTrainingLauncher(QStringLiteral("bridge"), values);
}

void MainWindow::showGeneratePanel(const QString& bridgeRun) {
  QString run = bridgeRun.isEmpty() && m_bridgeView ? m_bridgeView->shownRun() : bridgeRun;
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(this, tr("Choose a Bridge Run"), m_runsRoot);
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  try {
    requireRun(toFsPath(run), "bridge");
  } catch (const Error& error) {
    const QString text = QString::fromStdString(error.what());
    reportError({tr("Cannot generate with “%1”.").arg(fileName(run)), text,
                 tr("Run folder: %1\nError: %2\nStrata %3")
                     .arg(run, text, QLatin1String(build::kVersion))});
    return;
  }
  if (focusTab(generateKey(run))) return;
  auto* panel = new GeneratePanel(run, this);
  connect(panel, &GeneratePanel::generateRequested, this,
          [this, panel] { startHybridGeneration(panel); });
  connect(panel, &GeneratePanel::stopRequested, this, [this] {
    if (m_generationJob) m_generationJob->cancel();
  });
  addTab(panel, generateKey(run), tr("Generate — %1").arg(fileName(run)));
}

void MainWindow::startHybridGeneration(GeneratePanel* panel) {
  if (m_generationJob) {
    m_logDock->append(MessageLevel::Warning,
                      tr("Not generating: a generation is running; stop it first"));
    return;
  }
  HybridComparisonConfig config;
  try {
    config = panel->config();
    if (m_options.persistSettings) config.device = jobDevice();  // the Preferences' device
  } catch (const Error& error) {
    reportError({tr("Cannot generate."), QString::fromStdString(error.what()), {}});
    return;
  }
  const QString run = panel->bridgeRun();
  const QString details = tr("Bridge run: %1\nPrompts: %2\nMax new tokens: %3, temperature %4, "
                             "DDIM steps %5")
                              .arg(run)
                              .arg(config.prompts.size())
                              .arg(config.sampling.maxNewTokens)
                              .arg(config.sampling.temperature)
                              .arg(config.sampleSteps);
  std::shared_ptr<TokenStream> stream = panel->beginGeneration();
  auto result = std::make_shared<HybridComparison>();
  // The worker owns its copies and writes only *result (read after finished()) and the stream.
  JobWork work = [config, stream, result](JobContext& job) {
    yieldToTheGui();
    *result = compareHybridGeneration(
        config, job, [&stream](std::size_t prompt, GenerationSide side, const std::string& text) {
          stream->push({prompt, side, text});
        });
  };
  QPointer<GeneratePanel> guard(panel);
  JobController* job = startJob(
      tr("Generating with %1").arg(fileName(run)), std::move(work),
      [this, guard, run, result, details](JobOutcome outcome, const QString& error) {
        m_generationJob = nullptr;
        switch (outcome) {
          case JobOutcome::Succeeded:
            if (guard) guard->finishGeneration(result);
            m_logDock->append(MessageLevel::Info,
                              tr("Generated with %1: %2")
                                  .arg(fileName(run), GeneratePanel::summaryText(*result)));
            break;
          case JobOutcome::Cancelled:
            if (guard) guard->abortGeneration(tr("Stopped."));
            break;
          case JobOutcome::Failed:
            if (guard) guard->abortGeneration(tr("Failed: %1").arg(error));
            reportError({tr("Generation with “%1” failed.").arg(fileName(run)), error,
                         tr("%1\nError: %2\nStrata %3")
                             .arg(details, error, QLatin1String(build::kVersion))});
            break;
        }
        emit generationFinished(run, outcome);
      });
  m_generationJob = job;
  connect(panel, &QObject::destroyed, job, &JobController::cancel);  // the tab was closed
}

}  // namespace strata
