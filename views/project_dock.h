#pragma once
// ProjectDock: what this session has open, by kind — models, activation stores, runs. Each
// entry is a path shown by its file name, with the full path as tooltip. Double-click (or
// Enter) emits entryActivated so the main window can bring up the matching view. GUI thread only.

#include <QDockWidget>
#include <QString>
#include <QStringList>

class QTreeWidget;
class QTreeWidgetItem;

namespace strata {

enum class ProjectCategory { Models, ActivationStores, Runs };

class ProjectDock final : public QDockWidget {
  Q_OBJECT

 public:
  explicit ProjectDock(QWidget* parent = nullptr);

  /**
   * Adds `path` under `category`, shown as `label` (the file name when empty). A path already
   * listed there is not added twice; either way the entry is selected.
   */
  void addEntry(ProjectCategory category, const QString& path, const QString& label = {});
  void removeEntry(ProjectCategory category, const QString& path);
  /** Paths listed under `category`, in the order they were added. */
  QStringList entries(ProjectCategory category) const;

  QTreeWidget* tree() const { return m_tree; }

 signals:
  void entryActivated(strata::ProjectCategory category, const QString& path);

 private:
  QTreeWidgetItem* categoryItem(ProjectCategory category) const;
  QTreeWidgetItem* findEntry(ProjectCategory category, const QString& path) const;

  QTreeWidget* m_tree;
};

/** "Models", "Activation stores", "Runs". */
QString categoryTitle(ProjectCategory category);

}  // namespace strata

Q_DECLARE_METATYPE(strata::ProjectCategory)
