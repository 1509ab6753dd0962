// MainWindow, File ▸ Open Default Model: opens the built-in default model and lands on its
// Layer Geometry. Capture and scoring run as one background job (progress and Cancel in the
// status bar) the first time; afterwards the store cached in the user's data folder is read
// (core's cachedGeometry), so the second opening takes about a second.

#include <QAction>
#include <QFileInfo>

#include "common/build_info.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/cached_geometry.h"
#include "log_dock.h"
#include "main_window.h"
#include "plugin/plugin_metric.h"
#include "preferences.h"

namespace strata {

void MainWindow::openDefaultModel() {
  if (m_defaultGeometryJob) {
    m_logDock->append(MessageLevel::Info,
                      tr("The default model's geometry is already being computed"));
    return;
  }
  CachedGeometryRequest request;
  try {
    request = defaultGeometryRequest();
  } catch (const Error& e) {
    ErrorReport report;
    report.summary = tr("Could not open the default model.");
    report.error = QString::fromUtf8(e.what());
    report.details = tr("Error: %1\nStrata %2").arg(report.error, QLatin1String(build::kVersion));
    reportError(report);
    return;
  }
  if (m_options.persistSettings) request.device = jobDevice();  // the Preferences' device
  openModelFolder(toQString(request.modelFolder));
  m_logDock->append(MessageLevel::Info,
                    tr("Layer geometry of the default model over %1 (cached in %2)")
                        .arg(toQString(request.corpus), toQString(request.cacheFolder)));

  auto result = std::make_shared<CachedGeometry>();
  JobWork work = [request, result](JobContext& job) {
    // Every loaded plugin metric with its default options, as Score Layers… and `score` do.
    const auto metrics = plugin::makePluginMetrics(plugin::installedPlugins(), {});
    *result = cachedGeometry(request, job, plugin::pointers(metrics));
  };
  m_defaultGeometryJob = startJob(
      tr("Default model geometry"), std::move(work),
      [this, request, result](JobOutcome outcome, const QString& error) {
        switch (outcome) {
          case JobOutcome::Succeeded: {
            const QString store = toQString(result->store);
            m_logDock->append(MessageLevel::Info,
                              result->captured || result->scored
                                  ? tr("Captured and scored the default model into %1").arg(store)
                                  : tr("Read the default model's cached geometry from %1").arg(store));
            openActivationStore(store);  // its /geometry then opens the Layer Geometry tab
            break;
          }
          case JobOutcome::Cancelled:
            m_logDock->append(MessageLevel::Warning,
                              tr("The default model's geometry was cancelled: the finished "
                                 "layers are kept, and opening it again continues"));
            break;
          case JobOutcome::Failed: {
            ErrorReport report;
            report.summary = tr("Could not compute the default model's layer geometry.");
            report.error = error;
            report.details = tr("Model: %1\nCorpus: %2\nCache: %3\nError: %4\nStrata %5")
                                 .arg(toQString(request.modelFolder), toQString(request.corpus),
                                      toQString(request.cacheFolder), error,
                                      QLatin1String(build::kVersion));
            reportError(report);
            break;
          }
        }
        emit defaultGeometryFinished(outcome);
      });
}

}  // namespace strata
