#include "default_geometry_feature.h"

#include <QAction>
#include <QDir>

#include "common/error.h"
#include "display_text.h"
#include "engine/cached_geometry.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/default_model.h"
#include "log_dock.h"
#include "plugin/plugin_metric.h"
#include "preferences.h"
#include "project_dock.h"
#include "services.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<DefaultGeometryFeature> registration("default_geometry", 20);

}  // namespace

void DefaultGeometryFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  m_action = new QAction(tr("Open &Default Model"), this);
  m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_D));
  m_action->setStatusTip(
      tr("Open the built-in default model (SmolLM2-135M-Instruct, or $STRATA_DEFAULT_MODEL) on "
         "its layer geometry, computed once and then cached"));
  m_action->setEnabled(!io::defaultModel().path.empty());
  connect(m_action, &QAction::triggered, this, &DefaultGeometryFeature::openDefaultModel);
  workbench.addMenuAction(menuid::kFileOpen, m_action);
}

void DefaultGeometryFeature::openStoreAfterModel(const QString& model, const QString& store) {
  auto* once = new QObject(this);  // the connection's owner: deleted once it has fired
  connect(&m_workbench->events(), &WorkbenchEvents::pathOpened, once,
          [this, once, model, store](const QString& path) {
            if (QDir::cleanPath(path) != QDir::cleanPath(model)) return;
            once->deleteLater();
            m_workbench->service<OpenService>().openActivationStore(
                store);  // its /geometry then opens the tab
          });
  m_workbench->service<OpenService>().openModelFolder(model);
}

void DefaultGeometryFeature::openDefaultModel() {
  if (m_job) {
    m_workbench->log().append(MessageLevel::Info,
                              tr("The default model's geometry is already being computed"));
    return;
  }
  engine::CachedGeometryRequest request;
  try {
    request = engine::defaultGeometryRequest();
  } catch (const Error& e) {
    m_workbench->reportFailure(tr("Could not open the default model."),
                               QString::fromUtf8(e.what()));
    return;
  }
  if (m_workbench->persistSettings()) request.device = jobDevice();  // the Preferences' device
  // A GGUF default is imported by the geometry job first; its folder opens when that is done
  // (opening it now would import the same file twice, side by side).
  const bool gguf = io::isGgufModelFile(request.modelFolder);
  const QString ggufFile = gguf ? toQString(request.modelFolder) : QString();
  if (!gguf) m_workbench->service<OpenService>().openModelFolder(toQString(request.modelFolder));
  // Meanwhile the dock lists the file being worked on, so that it is not empty for the first
  // minute (review 2026-12-05, defect 15); the model folder replaces it when the job ends.
  if (gguf)
    m_workbench->projects().addEntry(ProjectCategory::Models, ggufFile,
                                     tr("%1 (computing its geometry)").arg(displayName(ggufFile)));
  m_workbench->log().append(MessageLevel::Info,
                            tr("Layer geometry of the default model over %1 (cached in %2)")
                                .arg(toQString(request.corpus), toQString(request.cacheFolder)));

  auto result = std::make_shared<engine::CachedGeometry>();
  JobWork work = [request, result](JobContext& job) {
    // Every loaded plugin metric with its default options, as Score Layers… and `score` do.
    const auto metrics = plugin::makePluginMetrics(plugin::installedPlugins(), {});
    *result = engine::cachedGeometry(request, job, plugin::pointers(metrics));
  };
  // The job's name names the model: with no tab open yet, the window's centre shows it large
  // while the capture and the scoring run (MainWindow's JobProgressPanel).
  const std::string model = io::defaultModel().name;
  m_job = m_workbench->startJob(
      tr("Layer geometry of %1")
          .arg(model.empty() ? displayName(toQString(request.modelFolder))
                             : QString::fromStdString(model)),
      std::move(work),
      [this, request, result, gguf, ggufFile](JobOutcome outcome, const QString& error) {
        if (gguf) m_workbench->projects().removeEntry(ProjectCategory::Models, ggufFile);
        LogDock& log = m_workbench->log();
        switch (outcome) {
          case JobOutcome::Succeeded: {
            const QString store = toQString(result->store);
            log.append(MessageLevel::Info,
                       result->captured || result->scored
                           ? tr("Captured and scored the default model into %1").arg(store)
                           : tr("Read the default model's cached geometry from %1").arg(store));
            if (gguf)  // the imported folder first, then the store, so Layer Geometry ends in front
              openStoreAfterModel(toQString(result->modelFolder), store);
            else
              m_workbench->service<OpenService>().openActivationStore(
                  store);  // its /geometry then opens the tab
            break;
          }
          case JobOutcome::Cancelled:
            log.append(MessageLevel::Warning,
                       tr("The default model's geometry was cancelled: the finished "
                          "layers are kept, and opening it again continues"));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(
                tr("Could not compute the default model's layer geometry."), error,
                tr("Model: %1\nCorpus: %2\nCache: %3")
                    .arg(toQString(request.modelFolder), toQString(request.corpus),
                         toQString(request.cacheFolder)));
            break;
        }
        emit defaultGeometryFinished(outcome);
      });
}

}  // namespace strata
