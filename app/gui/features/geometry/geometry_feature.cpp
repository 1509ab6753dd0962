#include "geometry_feature.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <algorithm>

#include "clean_path.h"
#include "display_text.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "geometry/store_scoring.h"
#include "gui_settings.h"
#include "io/store/activation_store.h"
#include "layer_detail_view.h"
#include "layer_geometry_view.h"
#include "log_dock.h"
#include "model_summary_view.h"
#include "plugin/metric_options_text.h"
#include "plugin/plugin_metric.h"
#include "plugin_loading.h"
#include "project_dock.h"
#include "services.h"
#include "store_names.h"
#include "store_summary_view.h"
#include "tab_keys.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<GeometryFeature> registration("geometry", 50);
/** The Geometry menu, by id. */
const QString kGeometryMenu = QStringLiteral("geometry");

QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

const char* deviceName(geometry::DeviceChoice device) {
  switch (device) {
    case geometry::DeviceChoice::Cpu:
      return "cpu";
    case geometry::DeviceChoice::Cuda:
      return "cuda";
    default:
      return "auto";
  }
}

QString scanDetails(const QString& storeFile, const GeometryScanSettings& settings) {
  const geometry::ProxyOptions& o = settings.options;
  QString details = GeometryFeature::tr(
                        "Store: %1\nDevice: %2\nNormalisation: %7\nBootstrap resamples %3, "
                        "M = %4, k = %5, seed %6")
                        .arg(storeFile, QLatin1String(deviceName(settings.device)))
                        .arg(o.bootstrapResamples)
                        .arg(o.anchors)
                        .arg(o.neighbours)
                        .arg(static_cast<qulonglong>(o.seed))
                        .arg(QLatin1String(geometry::normalisationName(o.normalisation)));
  if (!settings.pluginOptions.empty())
    details += GeometryFeature::tr("\nPlugin metric options: %1")
                   .arg(QString::fromStdString(settings.pluginOptions));
  return details;
}

/** "trace normalisation, 20 bootstrap resamples, M = 1024, k = 32" */
QString optionsText(const GeometryScanSettings& settings) {
  const geometry::ProxyOptions& o = settings.options;
  return GeometryFeature::tr("%1 normalisation, %2 bootstrap resamples, M = %3, k = %4")
      .arg(QLatin1String(geometry::normalisationName(o.normalisation)))
      .arg(o.bootstrapResamples)
      .arg(o.anchors)
      .arg(o.neighbours);
}

/** The scan of Score Layers…: every loaded plugin metric with `settings`' options beside the
 *  proxies, /geometry written into `store`. On the job's thread. */
geometry::GeometryReport scoreWith(const std::filesystem::path& store,
                                   const GeometryScanSettings& settings, JobContext& job) {
  job.progress(-1.0, "starting the geometry backend");
  // An option a metric does not declare fails the job here, naming the metric.
  const auto metrics = plugin::makePluginMetrics(
      plugin::installedPlugins(), plugin::parseMetricOptionsText(settings.pluginOptions));
  geometry::StoreScoring scoring;  // scan, then /geometry under the default weights
  scoring.store = store;
  scoring.options = settings.options;
  scoring.device = settings.device;
  scoring.metrics = plugin::pointers(metrics);
  return geometry::scoreStore(scoring, job).report;
}

/** Every metric of the loaded plugins, in plugin then declaration order. */
std::vector<plugin::MetricEntry> loadedPluginMetrics() {
  std::vector<plugin::MetricEntry> metrics;
  for (const plugin::LoadedPlugin& p : plugin::installedPlugins().plugins)
    metrics.insert(metrics.end(), p.metrics.begin(), p.metrics.end());
  return metrics;
}

/** "l* = 7 (S = 1.83)" under the weights and candidates the store was scored with, for the log. */
QString bestLayerText(const geometry::GeometryReport& report) {
  const geometry::LayerScores scores = geometry::scoreReport(report, report.scoredWith).scores;
  if (scores.bestIndex < 0)
    return GeometryFeature::tr("no l* (no candidate layer has a finite score)");
  const auto best = static_cast<std::size_t>(scores.bestIndex);
  return GeometryFeature::tr("l* = %1 (S = %2)")
      .arg(report.layers[best].layer)
      .arg(scores.score[best], 0, 'g', 3);
}

}  // namespace

void GeometryFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  loadPluginsIntoLog(workbench.log());
  m_scoreLayersAction = new QAction(tr("&Score Layers…"), this);
  m_scoreLayersAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_G));
  m_scoreLayersAction->setStatusTip(
      tr("Compute m_curv, m_mono and k_eff of every layer of the selected activation store and "
         "rank the layers by the score S; for a selected model, capture its hidden states over "
         "a corpus first"));
  m_scoreLayersAction->setEnabled(false);  // until a model or a store is open
  connect(m_scoreLayersAction, &QAction::triggered, this, &GeometryFeature::showScoreLayersDialog);
  workbench.declareMenu(kGeometryMenu, tr("&Geometry"));
  workbench.addMenuAction(kGeometryMenu, m_scoreLayersAction);
  workbench.projects().addEntryAction(ProjectCategory::Models, m_scoreLayersAction);
  workbench.projects().addEntryAction(ProjectCategory::ActivationStores, m_scoreLayersAction);
  connect(&workbench.events(), &WorkbenchEvents::pathOpened, this,
          &GeometryFeature::loadStoredGeometry);
  // A model's tab, however it was opened (a drop, Recent, Open Model), offers the same path.
  connect(&workbench.events(), &WorkbenchEvents::tabAdded, this,
          [this](QWidget* view, const QString& key) {
            if (auto* model = qobject_cast<ModelSummaryView*>(view))
              connect(model, &ModelSummaryView::scoreLayersRequested, this,
                      [this, key] { scoreModel(key); });
          });
}

LayerGeometryView* GeometryFeature::geometryView(const QString& storeFile) const {
  return m_workbench->tabAs<LayerGeometryView>(tabkey::geometry(QDir::cleanPath(storeFile)));
}

LayerDetailView* GeometryFeature::layerDetailView(const QString& storeFile, qint64 layer) const {
  return m_workbench->tabAs<LayerDetailView>(
      tabkey::layerDetail(QDir::cleanPath(storeFile), layer));
}

QString GeometryFeature::modelToScore() const {
  ProjectDock& projects = m_workbench->projects();
  if (const QString model = projects.selectedEntry(ProjectCategory::Models); !model.isEmpty())
    return model;
  if (!projects.selectedEntry(ProjectCategory::ActivationStores).isEmpty()) return {};
  if (const QString tab = m_workbench->currentTabKey(); m_workbench->model(tab)) return tab;
  return m_workbench->currentStore().isEmpty() ? m_workbench->currentModel() : QString();
}

void GeometryFeature::scoreModel(const QString& modelFolder) {
  const GeometryScanSettings settings = m_workbench->persistSettings()
                                            ? ScoreLayersDialog::readSettings(guiSettings())
                                            : GeometryScanSettings{};
  AfterCapture after;
  after.description = tr("score every layer (%1)").arg(optionsText(settings));
  after.scoresLayers = true;
  after.work = [settings](const std::filesystem::path& store, JobContext& job) {
    const geometry::GeometryReport report = scoreWith(store, settings, job);
    job.info(tr("Scored %1 layers of %2 on %3: %4; /geometry written")
                 .arg(report.layers.size())
                 .arg(fileName(toQString(store)), QString::fromStdString(report.backend),
                      bestLayerText(report))
                 .toStdString());
  };
  // The store then opens like any other, and loadStoredGeometry shows its Layer Geometry.
  m_workbench->service<CaptureService>().offerCapture(modelFolder, after);
}

void GeometryFeature::showScoreLayersDialog() {
  if (const QString model = modelToScore(); !model.isEmpty()) {
    scoreModel(model);
    return;
  }
  const QString store = m_workbench->currentStore();
  if (store.isEmpty()) return;
  const auto summary = m_workbench->store(store);
  auto* dialog =
      new ScoreLayersDialog(store, summary ? summary->numTokens : 0, m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setPluginMetrics(loadedPluginMetrics());
  if (m_workbench->persistSettings()) dialog->restoreSettings(guiSettings());
  connect(dialog, &QDialog::accepted, this, [this, dialog, store] {
    if (m_workbench->persistSettings()) {
      QSettings settings = guiSettings();
      dialog->saveSettings(settings);
    }
    startGeometryScan(store, dialog->settings());
  });
  dialog->open();  // window-modal without a nested event loop, like every dialog here
}

void GeometryFeature::startGeometryScan(const QString& storeFile,
                                        const GeometryScanSettings& settings) {
  LogDock& log = m_workbench->log();
  const QString store = cleanAbsolute(storeFile);
  if (m_scanning.contains(store)) {
    log.append(
        MessageLevel::Warning,
        tr("%1 is already being scored; wait for that scan or cancel it").arg(fileName(store)));
    return;
  }
  m_scanning << store;
  log.append(MessageLevel::Info,
             tr("Scoring the layers of %1 (device %2, %3 bootstrap resamples, M = %4, "
                "k = %5, normalisation %6)")
                 .arg(store, QLatin1String(deviceName(settings.device)))
                 .arg(settings.options.bootstrapResamples)
                 .arg(settings.options.anchors)
                 .arg(settings.options.neighbours)
                 .arg(QLatin1String(geometry::normalisationName(settings.options.normalisation))));
  if (!settings.pluginOptions.empty())
    log.append(MessageLevel::Info,
               tr("Plugin metric options: %1").arg(QString::fromStdString(settings.pluginOptions)));
  // The worker writes only *report; the GUI thread reads it after finished() (the job's thread
  // has ended by then) and hands it on as an immutable snapshot.
  auto report = std::make_shared<geometry::GeometryReport>();
  JobWork work = [settings, file = toFsPath(store), report](JobContext& job) {
    *report = scoreWith(file, settings, job);
  };
  m_workbench->startJob(
      tr("Scoring %1").arg(fileName(store)), std::move(work),
      [this, store, settings, report](JobOutcome outcome, const QString& error) {
        m_scanning.removeAll(store);
        switch (outcome) {
          case JobOutcome::Succeeded: {
            std::shared_ptr<const geometry::GeometryReport> snapshot = report;
            m_workbench->log().append(
                MessageLevel::Info,
                tr("Scored %1 layers of %2 on %3: %4; /geometry written")
                    .arg(snapshot->layers.size())
                    .arg(fileName(store), QString::fromStdString(snapshot->backend),
                         bestLayerText(*snapshot)));
            showGeometry(store, snapshot);
            break;
          }
          case JobOutcome::Cancelled:
            m_workbench->log().append(
                MessageLevel::Warning,
                tr("Scoring %1 was cancelled: the store was not changed").arg(fileName(store)));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(
                tr("Could not score the layers of “%1”.").arg(fileName(store)), error,
                scanDetails(store, settings));
            break;
        }
        emit geometryFinished(store, outcome);
      });
}

void GeometryFeature::loadStoredGeometry(const QString& path) {
  m_scoreLayersAction->setEnabled(!m_workbench->currentStore().isEmpty() ||
                                  !m_workbench->currentModel().isEmpty());
  if (!m_workbench->store(path)) return;  // a model folder
  auto report = std::make_shared<std::optional<geometry::GeometryReport>>();
  JobWork work = [file = toFsPath(path), report](JobContext& job) {
    job.progress(-1.0, "reading /geometry");
    *report = geometry::readGeometry(file);
  };
  m_workbench->startJob(
      tr("Reading the geometry of %1").arg(fileName(path)), std::move(work),
      [this, path, report](JobOutcome outcome, const QString& error) {
        if (outcome == JobOutcome::Succeeded && report->has_value()) {
          showGeometry(path, std::make_shared<const geometry::GeometryReport>(std::move(**report)));
        } else if (outcome == JobOutcome::Failed) {
          m_workbench->reportFailure(
              tr("Could not read the layer geometry stored in “%1”.").arg(fileName(path)), error,
              tr("Store: %1\nScoring the layers again replaces /geometry.").arg(path));
        }
      });
}

QString GeometryFeature::storeName(const QString& storeFile) const {
  const auto summary = m_workbench->store(storeFile);
  return storeDisplayName(storeFile, summary ? &summary->meta : nullptr);
}

void GeometryFeature::showGeometry(const QString& storeFile,
                                   std::shared_ptr<const geometry::GeometryReport> report) {
  const QString key = tabkey::geometry(storeFile);
  if (LayerGeometryView* view = geometryView(storeFile)) {
    view->setReport(std::move(report));
    m_workbench->focusTab(key);
  } else {
    auto* created = new LayerGeometryView(storeFile, std::move(report));
    connect(created, &LayerGeometryView::layerDetailRequested, this,
            [this, storeFile](qint64 layer) { showLayerDetail(storeFile, layer); });
    m_workbench->addTab(created, key, tr("Geometry — %1").arg(storeName(storeFile)));
  }
  emit m_workbench->events().geometryShown(storeFile);
}

void GeometryFeature::showLayerDetail(const QString& storeFile, qint64 layer) {
  const QString key = tabkey::layerDetail(storeFile, layer);
  if (m_workbench->focusTab(key) || m_loadingDetails.contains(key)) return;
  const LayerGeometryView* view = geometryView(storeFile);
  if (!view) return;
  const std::vector<geometry::LayerGeometry>& layers = view->report().layers;
  const auto found = std::find_if(layers.begin(), layers.end(),
                                  [layer](const auto& g) { return g.layer == layer; });
  if (found == layers.end()) return;
  m_loadingDetails << key;
  auto detail = std::make_shared<engine::LayerDetail>();
  JobWork work = [file = toFsPath(storeFile), geometry = *found, detail](JobContext& job) {
    job.progress(-1.0, "reading the layer and its principal plane");
    *detail = engine::readLayerDetail(file, geometry);
    job.checkCancelled();
  };
  m_workbench->startJob(
      tr("Layer %1 of %2").arg(layer).arg(fileName(storeFile)), std::move(work),
      [this, storeFile, layer, key, detail](JobOutcome outcome, const QString& error) {
        m_loadingDetails.removeAll(key);
        if (outcome == JobOutcome::Succeeded) {
          m_workbench->addTab(new LayerDetailView(detail), key,
                              tr("Layer %1 — %2").arg(layer).arg(storeName(storeFile)));
          emit layerDetailShown(storeFile, layer);
        } else if (outcome == JobOutcome::Failed) {
          m_workbench->reportFailure(
              tr("Could not show layer %1 of “%2”.").arg(layer).arg(fileName(storeFile)), error,
              tr("Store: %1\nLayer: %2").arg(storeFile).arg(layer));
        }
      });
}

}  // namespace strata
