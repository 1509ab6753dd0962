// MainWindow, chunk routing: Training ▸ Chunk Routing… opens the Chunk routing tab of a dcdm
// run — the run shown in the Training tab when it is one, else a run folder the user picks.
// The tab routes texts in its own background jobs; this file only checks the run and adds it.

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QTabWidget>

#include "chunk_routing_view.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "common/error.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "engine/run_manifest.h"
#include "main_window.h"
#include "training_view.h"

namespace strata {
namespace {

QString routingKey(const QString& run) { return run + QStringLiteral("#routing"); }

bool isDcdmRun(const QString& folder) {
  try {
    return isRunFolder(toFsPath(folder)) && readRunInfo(toFsPath(folder)).recipe == "dcdm";
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

ChunkRoutingView* MainWindow::chunkRoutingView(const QString& run) const {
  const QString key = routingKey(cleanAbsolute(run));
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->widget(i)->property("strataPath").toString() == key)
      return qobject_cast<ChunkRoutingView*>(m_tabs->widget(i));
  return nullptr;
}

void MainWindow::showChunkRouting(const QString& dcdmRun) {
  QString run = dcdmRun;
  if (run.isEmpty() && m_trainingView && isDcdmRun(m_trainingView->shownRun()))
    run = m_trainingView->shownRun();
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(this, tr("Choose a dcdm Run"), m_runsRoot);
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  try {
    requireRun(toFsPath(run), "dcdm");
  } catch (const Error& error) {
    const QString text = QString::fromStdString(error.what());
    reportError({tr("Cannot show the chunk routing of “%1”.").arg(QFileInfo(run).fileName()), text,
                 tr("Run folder: %1\nError: %2\nStrata %3")
                     .arg(run, text, QLatin1String(build::kVersion))});
    return;
  }
  if (focusTab(routingKey(run))) return;
  addTab(new ChunkRoutingView(run, this), routingKey(run),
         tr("Chunk Routing — %1").arg(QFileInfo(run).fileName()));
}

}  // namespace strata
