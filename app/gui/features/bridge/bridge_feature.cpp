#include "bridge_feature.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>

#include "bridgeability_view.h"
#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_manifest.h"
#include "generate_panel.h"
#include "gui_settings.h"
#include "layer_geometry_view.h"
#include "log_dock.h"
#include "preferences.h"
#include "recipes/bridge/bridge_layer.h"
#include "recipes/bridge/hybrid_generation.h"
#include "services.h"
#include "store_summary_view.h"
#include "tab_keys.h"
#include "workbench.h"
#include "yield_to_gui.h"

namespace strata {
namespace {

const FeatureRegistration<BridgeFeature> registration("bridge", 100);
/** The Bridge menu, by id. */
const QString kBridgeMenu = QStringLiteral("bridge");

const QString kBridgeCorpusKey = QStringLiteral("bridge/corpus");

QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

}  // namespace

void BridgeFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  auto* tab = new QAction(tr("&Bridge Tab"), this);
  tab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
  tab->setStatusTip(tr("Choose l*, train a DiHAL bridge there and watch its evaluation"));
  connect(tab, &QAction::triggered, this, &BridgeFeature::showBridgeView);
  workbench.declareMenu(kBridgeMenu, tr("&Bridge"));
  workbench.addMenuAction(kBridgeMenu, tab);
  auto* sweep = new QAction(tr("Bridgeability &Sweep…"), this);
  sweep->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
  sweep->setStatusTip(
      tr("Train an equal-budget bridge at every layer of a range and correlate "
         "the score with their losses"));
  connect(sweep, &QAction::triggered, this, &BridgeFeature::showBridgeSweepDialog);
  workbench.addMenuAction(kBridgeMenu, sweep);
  auto* openSweep = new QAction(tr("&Open Sweep Folder…"), this);
  connect(openSweep, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(
        m_workbench->dialogParent(), tr("Open Sweep Folder"), m_workbench->runsRoot());
    if (!folder.isEmpty()) openSweepFolder(folder);
  });
  workbench.addMenuAction(kBridgeMenu, openSweep);
  auto* generate = new QAction(tr("&Generate…"), this);
  generate->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_G));
  generate->setStatusTip(tr("Compare a bridge's hybrid continuations with the original model's"));
  connect(generate, &QAction::triggered, this, [this] { showGeneratePanel(); });
  workbench.addMenuAction(kBridgeMenu, generate);

  // A store scored after the Bridge tab opened updates its l*.
  connect(&workbench.events(), &WorkbenchEvents::geometryShown, this, [this](const QString& store) {
    if (m_bridgeView && cleanAbsolute(m_bridgeView->store()) == store) suggestBridgeLayer();
  });
  connect(&workbench.events(), &WorkbenchEvents::trainingStarted, this,
          [this](const QString& folder) {
            if (m_bridgeView && m_workbench->trainingSlot().recipe == QLatin1String("bridge"))
              m_bridgeView->showRun(folder);
          });
}

BridgeabilityView* BridgeFeature::bridgeabilityView(const QString& folder) const {
  return m_workbench->tabAs<BridgeabilityView>(tabkey::sweep(cleanAbsolute(folder)));
}

GeneratePanel* BridgeFeature::generatePanel(const QString& bridgeRun) const {
  return m_workbench->tabAs<GeneratePanel>(tabkey::generate(cleanAbsolute(bridgeRun)));
}

void BridgeFeature::showBridgeView() {
  if (m_bridgeView) {
    m_workbench->focusTab(tabkey::kBridge);
    return;
  }
  auto* view = new BridgeView(&m_workbench->metricsFeeds(), m_workbench->dialogParent());
  const QString store = m_workbench->currentStore();
  // The store's own model first: its statistics and l* belong to that model.
  QString model;
  if (const auto summary = m_workbench->store(store); summary) {
    const QString id = toQString(summary->meta.modelId);
    if (QFileInfo(id).isDir()) model = id;
  }
  view->setModelFolder(model.isEmpty() ? m_workbench->currentModel() : model);
  view->setStore(store);
  if (m_workbench->persistSettings()) {
    const QSettings settings = guiSettings();
    view->setCorpus(
        settings.value(kBridgeCorpusKey, settings.value(QStringLiteral("capture/corpus")))
            .toString());
  }
  connect(view, &BridgeView::trainRequested, this, &BridgeFeature::showBridgeLaunchDialog);
  connect(view, &BridgeView::sweepRequested, this, &BridgeFeature::showBridgeSweepDialog);
  connect(view, &BridgeView::generateRequested, this, &BridgeFeature::showGeneratePanel);
  connect(view, &BridgeView::storeChanged, this, &BridgeFeature::suggestBridgeLayer);
  connect(view, &BridgeView::showInTrainingRequested, this,
          [this](const QString& run) { m_workbench->service<TrainingService>().showRun(run); });
  m_bridgeView = view;
  const TrainingSlot& slot = m_workbench->trainingSlot();
  if (slot.holder == kSweepHolder)
    view->followSweep(slot.folder);
  else if (slot.holder == kRunHolder && slot.recipe == QLatin1String("bridge"))
    view->showRun(slot.folder);
  m_workbench->addTab(view, tabkey::kBridge, tr("Bridge"));
  suggestBridgeLayer();
}

void BridgeFeature::suggestBridgeLayer() {
  if (!m_bridgeView) return;
  if (m_bridgeView->store().isEmpty()) {
    m_bridgeView->setSuggestedLayer(-1, tr("No activation store: choose l* by hand, or open a "
                                           "store scored with Geometry ▸ Score Layers…."));
    emit bridgeLayerSuggested({}, -1);
    return;
  }
  const QString store = cleanAbsolute(m_bridgeView->store());
  if (auto* geometry = m_workbench->tabAs<LayerGeometryView>(tabkey::geometry(store))) {
    // Follows the tab's weights and candidates as the user moves them.
    connect(geometry, &LayerGeometryView::scoresChanged, this, &BridgeFeature::suggestBridgeLayer,
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
    *layer = recipes::bestLayerOfStore(file);
  };
  m_layerJob = m_workbench->startJob(
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

void BridgeFeature::showBridgeLaunchDialog() {
  showBridgeView();
  QMap<QString, QString> values;
  if (!m_bridgeView->modelFolder().isEmpty())
    values.insert(QStringLiteral("model"), m_bridgeView->modelFolder());
  if (!m_bridgeView->corpus().isEmpty())
    values.insert(QStringLiteral("corpus"), m_bridgeView->corpus());
  // Always, even empty: a store remembered from another model would not match this one.
  values.insert(QStringLiteral("store"), m_bridgeView->store());
  values.insert(QStringLiteral("layer"), QString::number(m_bridgeView->layer()));
  if (m_workbench->persistSettings() && !m_bridgeView->corpus().isEmpty())
    guiSettings().setValue(kBridgeCorpusKey, m_bridgeView->corpus());
  m_workbench->service<TrainingService>().openTrainingLauncher(QStringLiteral("bridge"), values);
}

void BridgeFeature::showGeneratePanel(const QString& bridgeRun) {
  QString run = bridgeRun.isEmpty() && m_bridgeView ? m_bridgeView->shownRun() : bridgeRun;
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(m_workbench->dialogParent(), tr("Choose a Bridge Run"),
                                            m_workbench->runsRoot());
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  try {
    engine::requireRun(toFsPath(run), "bridge");
  } catch (const Error& error) {
    m_workbench->reportFailure(tr("Cannot generate with “%1”.").arg(fileName(run)),
                               QString::fromStdString(error.what()), tr("Run folder: %1").arg(run));
    return;
  }
  m_workbench->showTab(tabkey::generate(run), tr("Generate — %1").arg(fileName(run)), [this, run] {
    auto* panel = new GeneratePanel(run);
    connect(panel, &GeneratePanel::generateRequested, this,
            [this, panel] { startHybridGeneration(panel); });
    connect(panel, &GeneratePanel::stopRequested, this, [this] {
      if (m_generationJob) m_generationJob->cancel();
    });
    return panel;
  });
}

void BridgeFeature::startHybridGeneration(GeneratePanel* panel) {
  if (m_generationJob) {
    m_workbench->log().append(MessageLevel::Warning,
                              tr("Not generating: a generation is running; stop it first"));
    return;
  }
  recipes::HybridComparisonConfig config;
  try {
    config = panel->config();
    if (m_workbench->persistSettings()) config.device = jobDevice();  // the Preferences' device
  } catch (const Error& error) {
    m_workbench->reportFailure(tr("Cannot generate."), QString::fromStdString(error.what()));
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
  auto result = std::make_shared<recipes::HybridComparison>();
  // The worker owns its copies and writes only *result (read after finished()) and the stream.
  JobWork work = [config, stream, result](JobContext& job) {
    yieldToTheGui();
    *result = recipes::compareHybridGeneration(
        config, job,
        [&stream](std::size_t prompt, recipes::GenerationSide side, const std::string& text) {
          stream->push({prompt, side, text});
        });
  };
  QPointer<GeneratePanel> guard(panel);
  JobController* job = m_workbench->startJob(
      tr("Generating with %1").arg(fileName(run)), std::move(work),
      [this, guard, run, result, details](JobOutcome outcome, const QString& error) {
        m_generationJob = nullptr;
        switch (outcome) {
          case JobOutcome::Succeeded:
            if (guard) guard->finishGeneration(result);
            m_workbench->log().append(MessageLevel::Info,
                                      tr("Generated with %1: %2")
                                          .arg(fileName(run), GeneratePanel::summaryText(*result)));
            break;
          case JobOutcome::Cancelled:
            if (guard) guard->abortGeneration(tr("Stopped."));
            break;
          case JobOutcome::Failed:
            if (guard) guard->abortGeneration(tr("Failed: %1").arg(error));
            m_workbench->reportFailure(tr("Generation with “%1” failed.").arg(fileName(run)), error,
                                       details);
            break;
        }
        emit generationFinished(run, outcome);
      });
  m_generationJob = job;
  connect(panel, &QObject::destroyed, job, &JobController::cancel);  // the tab was closed
}

}  // namespace strata
