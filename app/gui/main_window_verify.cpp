// MainWindow, Model ▸ Verify against Transformers: core's verifyAgainstTransformers runs in a
// background job (progress and Cancel in the status bar); the result becomes a table in the
// model's tab and a badge beside the model in the project dock. A missing transformers, or a
// model either side cannot load, is an error dialog.

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QTabWidget>

#include "common/build_info.h"
#include "display_text.h"
#include "log_dock.h"
#include "main_window.h"
#include "model_summary_view.h"
#include "verify/python_environment.h"
#include "verify/transformers_verification.h"

namespace strata {

void MainWindow::createVerifyAction(QMenu* modelMenu) {
  m_verifyAction =
      modelMenu->addAction(tr("&Verify against Transformers"), this, [this] { verifyModel(); });
  m_verifyAction->setStatusTip(
      tr("Run the selected model with Strata and with Hugging Face transformers on a few prompts "
         "and compare every layer's hidden states, the logits and the tokenization"));
  m_projectDock->addEntryAction(ProjectCategory::Models, m_verifyAction);
}

QWidget* MainWindow::modelView(const QString& modelFolder,
                               std::shared_ptr<const ModelSummary> summary) const {
  auto* view = new ModelSummaryView(std::move(summary));
  if (auto result = m_verifications.value(modelFolder)) view->showVerification(result);
  return view;
}

void MainWindow::showVerificationBadge(const QString& modelFolder) {
  const TransformersVerification* result = m_verifications.value(modelFolder).get();
  m_projectDock->setEntryBadge(ProjectCategory::Models, modelFolder, verificationBadge(result),
                               result ? QString::fromStdString(result->verdict())
                                      : tr("Model ▸ Verify against Transformers compares it"));
}

void MainWindow::verifyModel(const QString& modelFolder) {
  const QString folder = modelFolder.isEmpty() ? currentModel() : QDir::cleanPath(modelFolder);
  if (folder.isEmpty() || m_verifying.contains(folder)) return;
  m_verifying << folder;
  const QString name = QFileInfo(folder).fileName();
  m_logDock->append(MessageLevel::Info, tr("Verifying %1 against transformers").arg(folder));
  auto result = std::make_shared<TransformersVerification>();
  auto unavailable = std::make_shared<QString>();
  // The worker writes only *result and *unavailable; the GUI thread reads them after finished().
  JobWork work = [folder = toFsPath(folder), result, unavailable](JobContext& job) {
    try {
      *result = verifyAgainstTransformers({.modelFolder = folder}, job);
    } catch (const TransformersUnavailableError& error) {
      *unavailable = QString::fromStdString(error.what());
    }
  };
  startJob(tr("Verifying %1").arg(name), std::move(work),
           [this, folder, name, result, unavailable](JobOutcome outcome, const QString& failure) {
             m_verifying.removeAll(folder);
             // No transformers: the job ran fine, but there is nothing to show but the reason.
             const bool noTransformers = !unavailable->isEmpty();
             if (noTransformers) outcome = JobOutcome::Failed;
             const QString error = noTransformers ? *unavailable : failure;
             switch (outcome) {
               case JobOutcome::Succeeded:
                 showVerification(folder, result);
                 break;
               case JobOutcome::Cancelled:
                 m_logDock->append(MessageLevel::Info,
                                   tr("Verifying %1 was cancelled").arg(folder));
                 break;
               case JobOutcome::Failed: {
                 ErrorReport report;
                 report.summary = tr("Could not verify “%1” against transformers.").arg(name);
                 report.error = error;
                 report.details = tr("Model: %1\nError: %2\nStrata %3")
                                      .arg(folder, error, QLatin1String(build::kVersion));
                 reportError(report);
                 break;
               }
             }
             emit verificationFinished(folder, outcome);
           });
}

void MainWindow::showVerification(const QString& modelFolder,
                                  std::shared_ptr<const TransformersVerification> result) {
  m_verifications.insert(modelFolder, result);
  showVerificationBadge(modelFolder);
  m_logDock->append(result->agrees() ? MessageLevel::Info : MessageLevel::Warning,
                    QStringLiteral("%1: %2").arg(QFileInfo(modelFolder).fileName(),
                                                 QString::fromStdString(result->verdict())));
  for (int i = 0; i < m_tabs->count(); ++i) {
    auto* view = qobject_cast<ModelSummaryView*>(m_tabs->widget(i));
    if (view && view->property("strataPath").toString() == modelFolder) {
      view->showVerification(result);
      m_tabs->setCurrentIndex(i);
      return;
    }
  }
  if (m_models.contains(modelFolder))
    addTab(modelView(modelFolder, m_models.value(modelFolder)), modelFolder,
           QFileInfo(modelFolder).fileName());
}

}  // namespace strata
