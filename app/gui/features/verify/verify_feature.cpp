#include "verify_feature.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>

#include "display_text.h"
#include "log_dock.h"
#include "model_summary_view.h"
#include "project_dock.h"
#include "transformers_verification_view.h"
#include "verify/python_environment.h"
#include "verify/transformers_verification.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<VerifyFeature> registration("verify", 40);
/** The Model menu, by id: the features that act on an open model share it. */
const QString kModelMenu = QStringLiteral("model");

}  // namespace

void VerifyFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  m_verifyAction = new QAction(tr("&Verify against Transformers"), this);
  m_verifyAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
  m_verifyAction->setStatusTip(
      tr("Run the selected model with Strata and with Hugging Face transformers on a few prompts "
         "and compare every layer's hidden states, the logits and the tokenization"));
  m_verifyAction->setEnabled(false);  // until a model is open
  connect(m_verifyAction, &QAction::triggered, this, [this] { verifyModel(); });
  workbench.declareMenu(kModelMenu, tr("&Model"));
  workbench.addMenuAction(kModelMenu, m_verifyAction);
  workbench.projects().addEntryAction(ProjectCategory::Models, m_verifyAction);

  connect(&workbench.events(), &WorkbenchEvents::pathOpened, this, [this](const QString& path) {
    m_verifyAction->setEnabled(!m_workbench->currentModel().isEmpty());
    if (m_workbench->model(path)) showBadge(path);
  });
  // A model's tab, however it was opened, shows this session's verification of the model.
  connect(&workbench.events(), &WorkbenchEvents::tabAdded, this,
          [this](QWidget* view, const QString& key) {
            auto* modelView = qobject_cast<ModelSummaryView*>(view);
            if (const auto result = m_verifications.value(key); modelView && result)
              modelView->showVerification(result);
          });
}

void VerifyFeature::showBadge(const QString& modelFolder) {
  const verify::TransformersVerification* result = m_verifications.value(modelFolder).get();
  m_workbench->projects().setEntryBadge(
      ProjectCategory::Models, modelFolder, verificationBadge(result),
      result ? QString::fromStdString(result->verdict())
             : tr("Model ▸ Verify against Transformers compares it"));
}

void VerifyFeature::verifyModel(const QString& modelFolder) {
  const QString folder =
      modelFolder.isEmpty() ? m_workbench->currentModel() : QDir::cleanPath(modelFolder);
  if (folder.isEmpty() || m_verifying.contains(folder)) return;
  m_verifying << folder;
  const QString name = QFileInfo(folder).fileName();
  m_workbench->log().append(MessageLevel::Info,
                            tr("Verifying %1 against transformers").arg(folder));
  auto result = std::make_shared<verify::TransformersVerification>();
  auto unavailable = std::make_shared<QString>();
  // The worker writes only *result and *unavailable; the GUI thread reads them after finished().
  JobWork work = [folder = toFsPath(folder), result, unavailable](JobContext& job) {
    try {
      *result = verify::verifyAgainstTransformers({.modelFolder = folder, .bfloat16 = true}, job);
    } catch (const verify::TransformersUnavailableError& error) {
      *unavailable = QString::fromStdString(error.what());
    }
  };
  m_workbench->startJob(
      tr("Verifying %1").arg(name), std::move(work),
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
            m_workbench->log().append(MessageLevel::Info,
                                      tr("Verifying %1 was cancelled").arg(folder));
            break;
          case JobOutcome::Failed:
            m_workbench->reportFailure(tr("Could not verify “%1” against transformers.").arg(name),
                                       error, tr("Model: %1").arg(folder));
            break;
        }
        emit verificationFinished(folder, outcome);
      });
}

void VerifyFeature::showVerification(
    const QString& modelFolder, std::shared_ptr<const verify::TransformersVerification> result) {
  m_verifications.insert(modelFolder, result);
  showBadge(modelFolder);
  m_workbench->log().append(
      result->agrees() ? MessageLevel::Info : MessageLevel::Warning,
      QStringLiteral("%1: %2").arg(QFileInfo(modelFolder).fileName(),
                                   QString::fromStdString(result->verdict())));
  if (auto* view = m_workbench->tabAs<ModelSummaryView>(modelFolder)) {
    view->showVerification(result);
    m_workbench->focusTab(modelFolder);
  } else if (const auto summary = m_workbench->model(modelFolder)) {
    // The new tab gets the table from the tabAdded connection above.
    m_workbench->addTab(new ModelSummaryView(summary), modelFolder, displayName(modelFolder));
  }
}

}  // namespace strata
