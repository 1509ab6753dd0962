#include "alignment_feature.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>

#include "alignment_view.h"
#include "clean_path.h"
#include "common/error.h"
#include "services.h"
#include "tab_keys.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<AlignmentFeature> registration("alignment", 80);
/** The Training menu, by id: the features that train or show runs share it. */
const QString kTrainingMenu = QStringLiteral("training");

bool isAlignmentRun(const QString& folder) {
  try {
    readAlignmentRun(folder);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void AlignmentFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  auto* alignment = new QAction(tr("&Alignment…"), this);
  alignment->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
  alignment->setStatusTip(tr("Per-layer student–teacher cosines of a repr_align run, live"));
  connect(alignment, &QAction::triggered, this, [this] { showAlignment(); });
  workbench.declareMenu(kTrainingMenu, tr("&Training"));
  workbench.addMenuAction(kTrainingMenu, alignment);
}

AlignmentView* AlignmentFeature::alignmentView(const QString& run) const {
  return m_workbench->tabAs<AlignmentView>(tabkey::alignment(cleanAbsolute(run)));
}

void AlignmentFeature::showAlignment(const QString& alignRun) {
  QString run = alignRun;
  const QString shown = m_workbench->service<TrainingService>().shownRun();
  if (run.isEmpty() && !shown.isEmpty() && isAlignmentRun(shown)) run = shown;
  if (run.isEmpty()) {
    run = QFileDialog::getExistingDirectory(m_workbench->dialogParent(),
                                            tr("Choose a repr_align Run"), m_workbench->runsRoot());
    if (run.isEmpty()) return;
  }
  run = cleanAbsolute(run);
  AlignmentRunInfo info;
  try {
    info = readAlignmentRun(run);
  } catch (const Error& error) {
    m_workbench->reportFailure(
        tr("Cannot show the alignment of “%1”.").arg(QFileInfo(run).fileName()),
        QString::fromStdString(error.what()), tr("Run folder: %1").arg(run));
    return;
  }
  m_workbench->showTab(
      tabkey::alignment(run), tr("Alignment — %1").arg(QFileInfo(run).fileName()),
      [this, &info] { return new AlignmentView(std::move(info), &m_workbench->metricsFeeds()); });
}

}  // namespace strata
