#pragma once
// ProjectDock: what this session has open, by kind — models, activation stores, runs. Each
// entry is a path shown by its displayName (no content hashes), with the full path as tooltip.
// Double-click (or Enter) emits entryActivated so the main window can bring up the matching
// view; right-click selects the entry and offers the actions added for its category. GUI thread
// only.

#include <QDockWidget>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

class QAction;
class QTreeWidget;
class QTreeWidgetItem;

namespace strata {

enum class ProjectCategory { Models, ActivationStores, Runs };

class ProjectDock final : public QDockWidget {
  Q_OBJECT

 public:
  explicit ProjectDock(QWidget* parent = nullptr);

  /**
   * Adds `path` under `category`, shown as `label` (displayName when empty). A path already
   * listed there is not added twice; either way the entry is selected.
   */
  void addEntry(ProjectCategory category, const QString& path, const QString& label = {});
  void removeEntry(ProjectCategory category, const QString& path);
  /** Makes `paths` (shown by displayName) the entries under `category`: those already listed
   *  stay, with the selection (unless its entry goes); the new go where `paths` has them. */
  void setEntries(ProjectCategory category, const QStringList& paths);
  /** Paths listed under `category`, in the order they were added. */
  QStringList entries(ProjectCategory category) const;
  /** The selected entry's path when it is listed under `category`; empty otherwise. */
  QString selectedEntry(ProjectCategory category) const;
  /**
   * Offers `action` in the context menu of every entry under `category` (the entry is
   * selected first, so the action can read selectedEntry()). The dock does not own it.
   */
  void addEntryAction(ProjectCategory category, QAction* action);
  /** A short status shown beside the entry (e.g. "✓ matches transformers 5.25.0"); empty
   *  text removes it. Ignored when `path` is not listed under `category`. */
  void setEntryBadge(ProjectCategory category, const QString& path, const QString& badge,
                     const QString& toolTip = {});
  /** The badge shown beside the entry; empty when none (or no such entry). */
  QString entryBadge(ProjectCategory category, const QString& path) const;

  QTreeWidget* tree() const { return m_tree; }

 signals:
  void entryActivated(strata::ProjectCategory category, const QString& path);

 private:
  QTreeWidgetItem* categoryItem(ProjectCategory category) const;
  QTreeWidgetItem* findEntry(ProjectCategory category, const QString& path) const;
  /** A new entry item (not yet in the tree). */
  static QTreeWidgetItem* makeEntry(ProjectCategory category, const QString& path,
                                    const QString& label);
  void showEntryMenu(const QPoint& position);

  QTreeWidget* m_tree;
  QMap<ProjectCategory, QList<QAction*>> m_entryActions;
};

/** "Models", "Activation stores", "Runs". */
QString categoryTitle(ProjectCategory category);

}  // namespace strata

Q_DECLARE_METATYPE(strata::ProjectCategory)
