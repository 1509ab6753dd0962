#include "preferences_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <QtGlobal>
#include <array>
#include <utility>

namespace strata {
namespace {

constexpr std::array<std::pair<ThemeChoice, const char*>, 3> kThemes{{
    {ThemeChoice::System, "system"},
    {ThemeChoice::Light, "light"},
    {ThemeChoice::Dark, "dark"},
}};

QSpinBox* spinBox(QWidget* parent, int minimum, int maximum, const QString& tip) {
  auto* box = new QSpinBox(parent);
  box->setRange(minimum, maximum);
  box->setGroupSeparatorShown(true);
  box->setToolTip(tip);
  return box;
}

}  // namespace

QString themeName(ThemeChoice theme) {
  for (const auto& [choice, name] : kThemes)
    if (choice == theme) return QLatin1String(name);
  return QStringLiteral("system");
}

ThemeChoice themeFromName(const QString& name) {
  for (const auto& [choice, word] : kThemes)
    if (name == QLatin1String(word)) return choice;
  return ThemeChoice::System;
}

PreferencesDialog::PreferencesDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Preferences"));
  setObjectName(QStringLiteral("PreferencesDialog"));
  auto* layout = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  layout->addLayout(form);

  m_device = new QComboBox(this);
  m_device->addItem(tr("auto (CUDA when available)"), QStringLiteral("auto"));
  m_device->addItem(tr("cpu"), QStringLiteral("cpu"));
  m_device->addItem(tr("cuda"), QStringLiteral("cuda"));
  m_device->setToolTip(tr("Where scoring and training run unless a dialog says otherwise"));
  form->addRow(tr("Compute device"), m_device);

  m_threads = spinBox(this, 0, 1024, tr("CPU threads for LibTorch and the geometry backend"));
  m_threads->setSpecialValueText(tr("automatic"));  // 0: STRATA_THREADS, else every core
  form->addRow(tr("CPU threads"), m_threads);

  m_tokens = spinBox(this, 1, 1 << 30, tr("How many tokens Capture… samples by default"));
  form->addRow(tr("Capture tokens"), m_tokens);
  m_anchors = spinBox(this, 1, 1 << 24,
                      tr("Score Layers…'s M: anchors for m_curv and directions for m_mono"));
  form->addRow(tr("Scoring anchors M"), m_anchors);

  m_theme = new QComboBox(this);
  m_theme->addItem(tr("System"), QStringLiteral("system"));
  m_theme->addItem(tr("Light"), QStringLiteral("light"));
  m_theme->addItem(tr("Dark"), QStringLiteral("dark"));
  m_theme->setToolTip(tr("System follows the desktop's light or dark setting"));
  form->addRow(tr("Theme"), m_theme);

  m_pluginFolders = new QListWidget(this);
  m_pluginFolders->setToolTip(
      tr("Searched for metric and recipe plugins at start-up, after "
         "the installed plugin folder"));
  m_pluginFolders->setMinimumHeight(80);
  auto* addFolder = new QPushButton(tr("Add…"), this);
  m_removeFolder = new QPushButton(tr("Remove"), this);
  auto* folderButtons = new QVBoxLayout;
  folderButtons->addWidget(addFolder);
  folderButtons->addWidget(m_removeFolder);
  folderButtons->addStretch();
  auto* folders = new QHBoxLayout;
  folders->addWidget(m_pluginFolders, 1);
  folders->addLayout(folderButtons);
  form->addRow(tr("Plugin folders"), folders);
  connect(addFolder, &QPushButton::clicked, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add Plugin Folder"));
    if (!folder.isEmpty()) addPluginFolder(folder);
  });
  connect(m_removeFolder, &QPushButton::clicked, this,
          [this] { delete m_pluginFolders->currentItem(); });
  connect(m_pluginFolders, &QListWidget::currentRowChanged, this,
          [this](int row) { m_removeFolder->setEnabled(row >= 0); });
  m_removeFolder->setEnabled(false);

  auto* buttons = new QDialogButtonBox(
      QDialogButtonBox::Ok | QDialogButtonBox::Cancel | QDialogButtonBox::RestoreDefaults, this);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(buttons->button(QDialogButtonBox::RestoreDefaults), &QPushButton::clicked, this, [this] {
    PreferenceValues defaults;
    defaults.pluginFolders = values().pluginFolders;  // folders are a list, not a default
    setValues(defaults);
  });
  layout->addWidget(buttons);
  setValues({});
}

PreferenceValues PreferencesDialog::values() const {
  PreferenceValues v;
  v.device = m_device->currentData().toString();
  v.threads = m_threads->value();
  v.captureTokens = m_tokens->value();
  v.anchors = m_anchors->value();
  v.theme = themeFromName(m_theme->currentData().toString());
  for (int i = 0; i < m_pluginFolders->count(); ++i)
    v.pluginFolders << m_pluginFolders->item(i)->text();
  return v;
}

void PreferencesDialog::setValues(const PreferenceValues& values) {
  m_device->setCurrentIndex(std::max(0, m_device->findData(values.device)));
  m_threads->setValue(values.threads);
  m_tokens->setValue(values.captureTokens);
  m_anchors->setValue(values.anchors);
  m_theme->setCurrentIndex(std::max(0, m_theme->findData(themeName(values.theme))));
  m_pluginFolders->clear();
  for (const QString& folder : values.pluginFolders) addPluginFolder(folder);
}

void PreferencesDialog::addPluginFolder(const QString& folder) {
  if (!m_pluginFolders->findItems(folder, Qt::MatchExactly).isEmpty()) return;
  m_pluginFolders->addItem(folder);
}

}  // namespace strata
