#include "open_feature.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>

#include "clean_path.h"
#include "display_text.h"
#include "engine/run_folder.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/hf_cache.h"
#include "io/hf/model_folder.h"
#include "io/store/store_summary.h"
#include "log_dock.h"
#include "model_summary_view.h"
#include "store_names.h"
#include "store_summary_view.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<OpenFeature> registration("open", 10);

QString fileName(const QString& path) { return QFileInfo(path).fileName(); }

bool isStoreFile(const QFileInfo& info) {
  const QString suffix = info.suffix().toLower();
  return info.isFile() && (suffix == QLatin1String("h5") || suffix == QLatin1String("hdf5"));
}

}  // namespace

void OpenFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  QWidget* window = workbench.dialogParent();
  // File ▸ Open Model: a folder, a GGUF file, or a model already in the Hugging Face cache.
  m_modelMenu = new QMenu(tr("Open &Model"), window);
  auto* openModel = new QAction(tr("Model &Folder…"), this);
  openModel->setShortcut(QKeySequence::Open);
  connect(openModel, &QAction::triggered, this, [this, window] {
    const QString folder = QFileDialog::getExistingDirectory(window, tr("Open Model Folder"));
    if (!folder.isEmpty()) openModelFolder(folder);
  });
  auto* openGguf = new QAction(tr("&GGUF File…"), this);
  connect(openGguf, &QAction::triggered, this, [this, window] {
    const QString file = QFileDialog::getOpenFileName(window, tr("Open GGUF Model"), QString(),
                                                      tr("GGUF models (*.gguf)"));
    if (!file.isEmpty()) openGgufFile(file);
  });
  m_modelMenu->addAction(openModel);
  m_modelMenu->addAction(openGguf);
  connect(m_modelMenu, &QMenu::aboutToShow, this, &OpenFeature::listCachedModels);
  listCachedModels();
  workbench.addMenuAction(menuid::kFileOpen, m_modelMenu->menuAction());
  auto* openStore = new QAction(tr("Open &Activation Store…"), this);
  openStore->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
  connect(openStore, &QAction::triggered, this, [this, window] {
    const QString store = QFileDialog::getOpenFileName(
        window, tr("Open Activation Store"), QString(), tr("Activation stores (*.h5 *.hdf5)"));
    if (!store.isEmpty()) openActivationStore(store);
  });
  workbench.addMenuAction(menuid::kFileOpen, openStore);
  connect(&workbench.projects(), &ProjectDock::entryActivated, this, &OpenFeature::activateEntry);
}

void OpenFeature::openPath(const QString& path) {
  const QFileInfo info(path);
  if (info.isDir() && engine::isRunFolder(toFsPath(path))) {
    m_workbench->service<TrainingService>().showRun(
        info.absoluteFilePath());  // followed live while it trains
  } else if (info.isDir() || io::isGgufModelFile(toFsPath(path))) {
    openModelFolder(path);
  } else if (isStoreFile(info)) {
    openActivationStore(path);
  } else {
    const QString problem =
        info.exists() ? tr("not a model folder, a GGUF model, a training run or an activation "
                           "store (.h5)")
                      : tr("no such file or folder");
    failOpen(path, tr("Could not open “%1”.").arg(info.fileName()),
             path + QStringLiteral(": ") + problem);
  }
}

void OpenFeature::failOpen(const QString& path, const QString& summary, const QString& error) {
  m_workbench->reportFailure(summary, error, tr("Path: %1").arg(path));
  emit openFailed(path, error);
}

void OpenFeature::openModelFolder(const QString& folder) {
  const bool gguf = io::isGgufModelFile(toFsPath(folder));
  openInBackground(
      cleanAbsolute(folder), gguf ? tr("GGUF model") : tr("model folder"),
      "reading config and weight headers",
      [this](const std::filesystem::path& path, JobContext& job) -> std::function<void()> {
        // A .gguf is imported into a folder the first time (seconds, with
        // progress and Cancel), then opened like any model folder.
        auto summary = std::make_shared<const io::ModelSummary>(
            io::inspectModelFolder(io::resolveModelFolder(path, &job)));
        return [this, summary] { showModel(summary); };
      });
}

void OpenFeature::openGgufFile(const QString& file) {
  // Checked here, not left to openModelFolder: a file that is not a GGUF would be taken for a
  // model folder and reported as "not a folder".
  if (io::isGgufModelFile(toFsPath(file))) {
    openModelFolder(file);
    return;
  }
  const QFileInfo info(file);
  const QString path = QDir::toNativeSeparators(file);
  const QString error =
      !info.exists() ? tr("%1 does not exist").arg(path)
      : info.isDir()
          ? tr("%1 is a folder, not a GGUF file (Open Model ▸ Model Folder… opens it)").arg(path)
          : tr("%1 is not a GGUF file (it does not start with the GGUF magic bytes)").arg(path);
  failOpen(file, tr("Could not open the GGUF model “%1”.").arg(info.fileName()), error);
}

void OpenFeature::listCachedModels() {
  // Everything after the two fixed actions is the cache's listing, rebuilt each time the menu
  // opens (a directory scan of the hub: milliseconds).
  const QList<QAction*> actions = m_modelMenu->actions();
  for (int i = 2; i < actions.size(); ++i) {
    m_modelMenu->removeAction(actions[i]);
    actions[i]->deleteLater();
  }
  const std::filesystem::path hub = io::huggingFaceHubFolder();
  const std::vector<io::HfCachedModel> models = io::listHuggingFaceCache(hub);
  m_modelMenu->addSection(tr("Hugging Face cache (%1)").arg(toQString(hub)));
  if (models.empty()) {
    // A section's title is not drawn by every style: the hint is an entry of its own.
    QAction* hint = m_modelMenu->addAction(
        tr("No models in the Hugging Face cache: open a folder or a .gguf above, or the built-in "
           "model (File ▸ Open Default Model)"));
    hint->setEnabled(false);
    hint->setToolTip(
        tr("Strata lists the models under %1 (HF_HUB_CACHE or HF_HOME/hub)").arg(toQString(hub)));
  }
  for (const io::HfCachedModel& model : models) {
    QString label = QString::fromStdString(model.repoId);
    if (model.path.extension() == ".gguf")
      label += QStringLiteral(" · ") + toQString(model.path.filename());
    if (!model.isMain)
      label += tr(" @ %1").arg(QString::fromStdString(model.revision.substr(0, 8)));
    const QString path = toQString(model.path);
    auto* action = m_modelMenu->addAction(label, this, [this, path] { openModelFolder(path); });
    action->setToolTip(path);
    action->setData(path);
  }
}

void OpenFeature::openActivationStore(const QString& file) {
  openInBackground(cleanAbsolute(file), tr("activation store"), "reading store metadata",
                   [this](const std::filesystem::path& path, JobContext&) -> std::function<void()> {
                     auto summary =
                         std::make_shared<const io::StoreSummary>(io::readStoreSummary(path));
                     return [this, summary] { showStore(summary); };
                   });
}

void OpenFeature::openInBackground(const QString& path, const QString& what, const char* stage,
                                   Reader read) {
  if (m_opening.contains(path)) return;  // already on its way
  m_opening << path;
  m_workbench->log().append(MessageLevel::Info, tr("Opening %1 %2").arg(what, path));
  auto show = std::make_shared<std::function<void()>>();
  // Reading a sharded model's headers can take seconds on a network disk: never on this thread.
  JobWork work = [show, read = std::move(read), fsPath = toFsPath(path), stage](JobContext& job) {
    job.progress(-1.0, stage);
    auto ready = read(fsPath, job);
    job.checkCancelled();  // a cancelled open shows nothing, even when the reading finished
    *show = std::move(ready);
    job.progress(1.0, "done");
  };
  m_workbench->startJob(
      tr("Opening %1").arg(fileName(path)), std::move(work),
      [this, path, what, show](JobOutcome outcome, const QString& error) {
        m_opening.removeAll(path);
        switch (outcome) {
          case JobOutcome::Succeeded:
            (*show)();
            break;
          case JobOutcome::Cancelled:
            m_workbench->log().append(MessageLevel::Info, tr("Opening %1 was cancelled").arg(path));
            break;
          case JobOutcome::Failed:
            failOpen(path, tr("Could not open the %1 “%2”.").arg(what, fileName(path)), error);
            break;
        }
      });
}

void OpenFeature::showModel(std::shared_ptr<const io::ModelSummary> summary) {
  const QString path = QDir::cleanPath(toQString(summary->folder));
  const io::ModelConfig& config = summary->config;
  m_workbench->addModel(path, summary);
  m_workbench->projects().addEntry(ProjectCategory::Models, path);
  m_workbench->log().append(
      MessageLevel::Info, tr("Opened model %1: %2, %3 layers, hidden size %4, %5 parameters")
                              .arg(fileName(path), QString::fromStdString(config.architectureName))
                              .arg(config.numLayers)
                              .arg(config.hiddenSize)
                              .arg(countText(summary->parameterCount)));
  for (const std::string& warning : summary->warnings)
    m_workbench->log().append(MessageLevel::Warning, QString::fromStdString(warning));
  m_workbench->showTab(path, displayName(path),
                       [summary] { return new ModelSummaryView(summary); });
  m_workbench->showStatusMessage(tr("Opened %1").arg(path), 5000);
  emit m_workbench->events().pathOpened(path);
}

void OpenFeature::showStore(std::shared_ptr<const io::StoreSummary> summary) {
  const QString path = QDir::cleanPath(toQString(summary->file));
  m_workbench->addStore(path, summary);
  const QString name = storeDisplayName(path, &summary->meta);
  m_workbench->projects().addEntry(ProjectCategory::ActivationStores, path, name);
  m_workbench->log().append(MessageLevel::Info,
                            tr("Opened activation store %1: %2 tokens, %3 of %4 layers complete")
                                .arg(fileName(path), countText(summary->numTokens))
                                .arg(summary->completedLayers.size())
                                .arg(summary->meta.numLayers + 1));
  m_workbench->showTab(path, name, [summary] { return new StoreSummaryView(summary); });
  m_workbench->showStatusMessage(tr("Opened %1").arg(path), 5000);
  emit m_workbench->events().pathOpened(path);
}

void OpenFeature::activateEntry(ProjectCategory category, const QString& path) {
  if (m_workbench->focusTab(path)) return;
  if (category == ProjectCategory::Models && m_workbench->model(path))
    m_workbench->addTab(new ModelSummaryView(m_workbench->model(path)), path, displayName(path));
  else if (const auto store =
               category == ProjectCategory::ActivationStores ? m_workbench->store(path) : nullptr)
    m_workbench->addTab(new StoreSummaryView(store), path, storeDisplayName(path, &store->meta));
  else
    openPath(path);
}

}  // namespace strata
