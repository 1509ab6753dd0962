// MainWindow, alignment: Training ▸ Alignment… opens the Alignment tab of a repr_align run —
// the run shown in the Training tab when it is one, else a run folder the user picks. The tab
// follows the run's metrics itself; this file only checks the run and adds the tab.

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QTabWidget>

#include "alignment_view.h"
#include "clean_path.h"
#include "common/build_info.h"
#include "common/error.h"
#include "main_window.h"
#include "training_view.h"

namespace strata {
namespace {

QString alignmentKey(const QString& run) { return run + QStringLiteral("#alignment"); }

bool isAlignmentRun(const QString& folder) {
  try {
    readAlignmentRun(folder);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

AlignmentView* MainWindow::alignmentView(const QString& run) const {
  const QString key = alignmentKey(cleanAbsolute(run));
  for (int i = 0; i < m_tabs->count(); ++i)
    if (m_tabs->widget(i)->property("strataPath").toString() == key)
      return qobject_cast<AlignmentView*>(m_tabs->widget(i));
  return nullptr;
}

void MainWindow::showAlignment(const QString& alignRun) {
  QString run = alignRun;
  if (run.isEmpty() && m_trainingView && !m_trainingView->shownRun().isEmpty() &&
      isAlignmentRun(m_trainingView->shownRun()))
    run = m_trainingView->shownRun();
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(this, tr("Choose a repr_align Run"), m_runsRoot);
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  AlignmentRunInfo info;
  try {
    info = readAlignmentRun(run);
  } catch (const Error& error) {
    const QString text = QString::fromStdString(error.what());
    reportError({tr("Cannot show the alignment of “%1”.").arg(QFileInfo(run).fileName()), text,
                 tr("Run folder: %1\nError: %2\nStrata %3")
                     .arg(run, text, QLatin1String(build::kVersion))});
    return;
  }
  if (focusTab(alignmentKey(run))) return;
  addTab(new AlignmentView(std::move(info), this), alignmentKey(run),
         tr("Alignment — %1").arg(QFileInfo(run).fileName()));
}

}  // namespace strata
