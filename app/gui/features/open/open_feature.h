#pragma once
// The open feature: File ▸ Open Model (a folder, a GGUF file, or a model from the Hugging Face
// cache) and Open Activation Store…, the project dock's double-click, and OpenService
// (services.h) for everyone else (Recent, drops, a finished capture). Every open runs its I/O in a
// background job, and the window only ever sees the finished, immutable snapshot (ModelSummary,
// StoreSummary), which it registers with the workbench and shows as the path's summary tab. A run
// folder goes to the Training tab instead.

#include <QObject>
#include <QStringList>
#include <filesystem>
#include <functional>
#include <memory>

#include "feature.h"
#include "project_dock.h"
#include "services.h"

class QMenu;

namespace strata {

class JobContext;
class Workbench;
namespace io {
struct ModelSummary;
struct StoreSummary;
}  // namespace io

class OpenFeature final : public Feature, public OpenService {
  Q_OBJECT

 public:
  using Feature::Feature;
  void install(Workbench& workbench) override;

  /** A folder or a .gguf file opens as a model (a run folder in the Training tab), a
   *  .h5/.hdf5 file as an activation store; anything else is reported. */
  void openPath(const QString& path) override;
  /** A model folder, or a .gguf file (imported into a folder the first time). */
  void openModelFolder(const QString& folder) override;
  /** Open Model ▸ GGUF File…: `file` opens as openModelFolder does when it is a GGUF file;
   *  anything else is reported as not a GGUF file, naming it. */
  void openGgufFile(const QString& file);
  /** File ▸ Open Model's submenu (its entries after the first two list the HF cache). */
  QMenu* modelMenu() const { return m_modelMenu; }
  void openActivationStore(const QString& file) override;

 signals:
  /** Opening `path` failed; the error was reported. */
  void openFailed(const QString& path, const QString& error);

 private:
  /** Runs on the worker thread; returns what the GUI thread then runs to show the result. */
  using Reader = std::function<std::function<void()>(const std::filesystem::path&, JobContext&)>;
  /** Opens `path` (a `what`, e.g. "model folder") with `read` in a background job. */
  void openInBackground(const QString& path, const QString& what, const char* stage, Reader read);
  void failOpen(const QString& path, const QString& summary, const QString& error);
  void showModel(std::shared_ptr<const io::ModelSummary> summary);
  void showStore(std::shared_ptr<const io::StoreSummary> summary);
  void activateEntry(ProjectCategory category, const QString& path);
  /** Rebuilds the Hugging Face cache entries of modelMenu(). */
  void listCachedModels();

  Workbench* m_workbench = nullptr;
  QMenu* m_modelMenu = nullptr;
  QStringList m_opening;  ///< paths whose open job is running
};

}  // namespace strata
