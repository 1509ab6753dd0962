#include "project_dock.h"

#include <QApplication>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QStyle>
#include <QTreeWidget>

namespace strata {
namespace {

constexpr int kPathRole = Qt::UserRole;
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
  m_tree->header()->setStretchLastSection(true);
  m_tree->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
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

void ProjectDock::addEntry(ProjectCategory category, const QString& path, const QString& label) {
  QTreeWidgetItem* item = findEntry(category, path);
  if (!item) {
    const QString text = label.isEmpty() ? QFileInfo(path).fileName() : label;
    item = new QTreeWidgetItem(categoryItem(category), QStringList(text.isEmpty() ? path : text));
    item->setData(0, kPathRole, path);
    item->setToolTip(0, path);
    item->setIcon(0, categoryIcon(category));
  }
  categoryItem(category)->setExpanded(true);
  m_tree->setCurrentItem(item);
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
