#include "project_dock.h"

#include <QApplication>
#include <QHeaderView>
#include <QMenu>
#include <QStyle>
#include <QTreeWidget>
#include <algorithm>

#include "display_text.h"

namespace strata {
namespace {

constexpr int kPathRole = Qt::UserRole;
constexpr int kLeastColumns = 26;  // characters the dock is always wide enough for
constexpr ProjectCategory kCategories[] = {
    ProjectCategory::Models, ProjectCategory::ActivationStores, ProjectCategory::Runs};

QIcon categoryIcon(ProjectCategory category) {
  QStyle* style = QApplication::style();
  switch (category) {
    case ProjectCategory::Models:
      return style->standardIcon(QStyle::SP_DirIcon);
    case ProjectCategory::ActivationStores:
      return style->standardIcon(QStyle::SP_DriveHDIcon);
    case ProjectCategory::Runs:
      return style->standardIcon(QStyle::SP_FileDialogDetailedView);
  }
  return {};
}

}  // namespace

QString categoryTitle(ProjectCategory category) {
  switch (category) {
    case ProjectCategory::Models:
      return ProjectDock::tr("Models");
    case ProjectCategory::ActivationStores:
      return ProjectDock::tr("Activation stores");
    case ProjectCategory::Runs:
      return ProjectDock::tr("Runs");
  }
  return {};
}

ProjectDock::ProjectDock(QWidget* parent)
    : QDockWidget(tr("Project"), parent), m_tree(new QTreeWidget(this)) {
  setObjectName(QStringLiteral("ProjectDock"));  // saveState() keys docks by object name
  m_tree->setHeaderHidden(true);
  m_tree->setColumnCount(2);  // the name, then an optional badge
  // The badge always in view: the name takes what it leaves, elided in the middle (the full
  // path is its tooltip).
  m_tree->header()->setStretchLastSection(false);
  m_tree->header()->setSectionResizeMode(0, QHeaderView::Stretch);
  m_tree->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  m_tree->setTextElideMode(Qt::ElideMiddle);
  // A usable least width: the main window's layout may otherwise squeeze the dock to a sliver
  // (after a maximise and restore) that cannot be dragged back wide.
  m_tree->setMinimumWidth(m_tree->fontMetrics().horizontalAdvance(QLatin1Char('x')) *
                          kLeastColumns);
  m_tree->setRootIsDecorated(true);
  m_tree->setUniformRowHeights(true);
  for (ProjectCategory category : kCategories) {
    auto* item = new QTreeWidgetItem(m_tree, QStringList(categoryTitle(category)));
    item->setData(0, kPathRole, QString());
    item->setFlags(Qt::ItemIsEnabled);
    QFont bold = item->font(0);
    bold.setBold(true);
    item->setFont(0, bold);
    item->setExpanded(true);
  }
  connect(m_tree, &QTreeWidget::itemActivated, this, [this](QTreeWidgetItem* item, int) {
    if (!item->parent()) return;
    const auto category = static_cast<ProjectCategory>(m_tree->indexOfTopLevelItem(item->parent()));
    emit entryActivated(category, item->data(0, kPathRole).toString());
  });
  m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(m_tree, &QTreeWidget::customContextMenuRequested, this, &ProjectDock::showEntryMenu);
  setWidget(m_tree);
}

void ProjectDock::addEntryAction(ProjectCategory category, QAction* action) {
  m_entryActions[category].append(action);
}

void ProjectDock::setEntryBadge(ProjectCategory category, const QString& path, const QString& badge,
                                const QString& toolTip) {
  QTreeWidgetItem* item = findEntry(category, path);
  if (!item) return;
  item->setText(1, badge);
  item->setToolTip(1, toolTip.isEmpty() ? badge : toolTip);
  item->setForeground(1, m_tree->palette().brush(QPalette::PlaceholderText));
}

QString ProjectDock::entryBadge(ProjectCategory category, const QString& path) const {
  const QTreeWidgetItem* item = findEntry(category, path);
  return item ? item->text(1) : QString();
}

QString ProjectDock::selectedEntry(ProjectCategory category) const {
  const QTreeWidgetItem* item = m_tree->currentItem();
  if (!item || item->parent() != categoryItem(category)) return {};
  return item->data(0, kPathRole).toString();
}

void ProjectDock::showEntryMenu(const QPoint& position) {
  QTreeWidgetItem* item = m_tree->itemAt(position);
  if (!item || !item->parent()) return;
  const auto category = static_cast<ProjectCategory>(m_tree->indexOfTopLevelItem(item->parent()));
  const QList<QAction*> actions = m_entryActions.value(category);
  if (actions.isEmpty()) return;
  m_tree->setCurrentItem(item);
  // popup(), not exec(): no nested event loop while the menu is up.
  auto* menu = new QMenu(this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->addActions(actions);
  menu->popup(m_tree->viewport()->mapToGlobal(position));
}

QTreeWidgetItem* ProjectDock::categoryItem(ProjectCategory category) const {
  return m_tree->topLevelItem(static_cast<int>(category));
}

QTreeWidgetItem* ProjectDock::findEntry(ProjectCategory category, const QString& path) const {
  QTreeWidgetItem* parent = categoryItem(category);
  for (int i = 0; i < parent->childCount(); ++i)
    if (parent->child(i)->data(0, kPathRole).toString() == path) return parent->child(i);
  return nullptr;
}

QTreeWidgetItem* ProjectDock::makeEntry(ProjectCategory category, const QString& path,
                                        const QString& label) {
  auto* item = new QTreeWidgetItem(QStringList(label.isEmpty() ? displayName(path) : label));
  item->setData(0, kPathRole, path);
  item->setToolTip(0, path);
  item->setIcon(0, categoryIcon(category));
  return item;
}

void ProjectDock::addEntry(ProjectCategory category, const QString& path, const QString& label) {
  QTreeWidgetItem* item = findEntry(category, path);
  if (!item) categoryItem(category)->addChild(item = makeEntry(category, path, label));
  categoryItem(category)->setExpanded(true);
  m_tree->setCurrentItem(item);
}

void ProjectDock::setEntries(ProjectCategory category, const QStringList& paths) {
  // Entries already listed stay (with the selection); the gone are deleted, the new inserted
  // where `paths` has them.
  QTreeWidgetItem* parent = categoryItem(category);
  for (int i = parent->childCount() - 1; i >= 0; --i)
    if (!paths.contains(parent->child(i)->data(0, kPathRole).toString())) delete parent->child(i);
  for (int i = 0; i < paths.size(); ++i)
    if (!findEntry(category, paths[i]))
      parent->insertChild(std::min(i, parent->childCount()), makeEntry(category, paths[i], {}));
  parent->setExpanded(true);
}

void ProjectDock::removeEntry(ProjectCategory category, const QString& path) {
  delete findEntry(category, path);
}

QStringList ProjectDock::entries(ProjectCategory category) const {
  QStringList paths;
  QTreeWidgetItem* parent = categoryItem(category);
  for (int i = 0; i < parent->childCount(); ++i)
    paths << parent->child(i)->data(0, kPathRole).toString();
  return paths;
}

}  // namespace strata
