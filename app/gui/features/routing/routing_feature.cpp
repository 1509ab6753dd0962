#include "routing_feature.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>

#include "chunk_routing_view.h"
#include "clean_path.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "services.h"
#include "tab_keys.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<RoutingFeature> registration("routing", 70);
/** The Training menu, by id: the features that train or show runs share it. */
const QString kTrainingMenu = QStringLiteral("training");

bool isDcdmRun(const QString& folder) {
  try {
    return engine::isRunFolder(toFsPath(folder)) &&
           engine::readRunInfo(toFsPath(folder)).recipe == "dcdm";
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void RoutingFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  auto* routing = new QAction(tr("Chunk R&outing…"), this);
  routing->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
  routing->setStatusTip(tr("See how a dcdm run routes a text, checkpoint by checkpoint"));
  connect(routing, &QAction::triggered, this, [this] { showChunkRouting(); });
  workbench.declareMenu(kTrainingMenu, tr("&Training"));
  workbench.addMenuAction(kTrainingMenu, routing);
}

ChunkRoutingView* RoutingFeature::chunkRoutingView(const QString& run) const {
  return m_workbench->tabAs<ChunkRoutingView>(tabkey::routing(cleanAbsolute(run)));
}

void RoutingFeature::showChunkRouting(const QString& dcdmRun) {
  QString run = dcdmRun;
  const QString shown = m_workbench->service<TrainingService>().shownRun();
  if (run.isEmpty() && !shown.isEmpty() && isDcdmRun(shown)) run = shown;
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(m_workbench->dialogParent(), tr("Choose a dcdm Run"),
                                            m_workbench->runsRoot());
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  try {
    engine::requireRun(toFsPath(run), "dcdm");
  } catch (const Error& error) {
    m_workbench->reportFailure(
        tr("Cannot show the chunk routing of “%1”.").arg(QFileInfo(run).fileName()),
        QString::fromStdString(error.what()), tr("Run folder: %1").arg(run));
    return;
  }
  m_workbench->showTab(tabkey::routing(run),
                       tr("Chunk Routing — %1").arg(QFileInfo(run).fileName()), [this, run] {
                         auto* view = new ChunkRoutingView(run, &m_workbench->metricsFeeds());
                         // Its routings are the window's jobs: busy() and the status bar see them.
                         view->setJobStarter([this](const QString& name, JobWork work) {
                           return m_workbench->startJob(name, std::move(work), {});
                         });
                         return view;
                       });
}

}  // namespace strata
