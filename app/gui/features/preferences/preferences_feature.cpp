#include "preferences_feature.h"

#include <QAction>
#include <QLabel>

#include "about_dialog.h"
#include "common/build_info.h"
#include "engine/device_info.h"
#include "engine/versions.h"
#include "log_dock.h"
#include "preferences.h"
#include "workbench.h"

namespace strata {
namespace {

const FeatureRegistration<PreferencesFeature> registration("preferences", 1000);

}  // namespace

void PreferencesFeature::install(Workbench& workbench) {
  m_workbench = &workbench;
  m_preferencesAction = new QAction(tr("&Preferences…"), this);
  m_preferencesAction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Comma));
  m_preferencesAction->setMenuRole(QAction::PreferencesRole);
  connect(m_preferencesAction, &QAction::triggered, this, &PreferencesFeature::showPreferences);
  workbench.addMenuAction(menuid::kFileSettings, m_preferencesAction);
  m_aboutAction = new QAction(tr("&About Strata"), this);
  m_aboutAction->setMenuRole(QAction::AboutRole);
  connect(m_aboutAction, &QAction::triggered, this, &PreferencesFeature::showAbout);
  workbench.addMenuAction(menuid::kHelp, m_aboutAction);

  m_deviceLabel = new QLabel(deviceLine(), workbench.dialogParent());
  m_deviceLabel->setToolTip(tr("Device background jobs run on"));
  workbench.addStatusWidget(m_deviceLabel);
  workbench.log().append(
      MessageLevel::Info,
      tr("Strata %1 on %2").arg(QLatin1String(build::kVersion), m_deviceLabel->text()));
}

QString PreferencesFeature::deviceLine() const {
  engine::ComputeDevice device = engine::currentComputeDevice();
  const bool cpuByPreference = m_workbench->persistSettings() && device.cuda &&
                               loadPreferences().device == QLatin1String("cpu");
  if (cpuByPreference) {
    device.cuda = false;
    device.name = "CPU";
  }
  QString line = QString::fromStdString(engine::describe(device));
  if (cpuByPreference) line += tr(" (CUDA off in Preferences)");
  return line;
}

void PreferencesFeature::showPreferences() {
  auto* dialog = new PreferencesDialog(m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_workbench->persistSettings()) dialog->setValues(loadPreferences());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    const PreferenceValues values = dialog->values();
    if (m_workbench->persistSettings()) savePreferences(values);
    applyPreferences(values);
    m_deviceLabel->setText(deviceLine());
    m_workbench->log().append(MessageLevel::Info,
                              tr("Preferences applied: %1").arg(m_deviceLabel->text()));
  });
  dialog->open();  // like every dialog of the window: no nested event loop
}

void PreferencesFeature::showAbout() {
  const engine::LibraryVersions versions = engine::libraryVersions();
  AboutInfo info;
  info.version = QLatin1String(build::kVersion);
  info.build = QStringLiteral("%1, %2, %3")
                   .arg(QLatin1String(build::kBuildType), QLatin1String(build::kCompiler),
                        build::kWithCuda ? tr("with CUDA") : tr("CPU only"));
  info.qt = QLatin1String(qVersion());
  info.libtorch = QString::fromStdString(versions.libtorch);
  info.cuda = QString::fromStdString(versions.cuda);
  info.blas = QString::fromStdString(versions.blas);
  info.hdf5 = QString::fromStdString(versions.hdf5);
  info.eigen = QString::fromStdString(versions.eigen);
  info.device = m_deviceLabel->text();
  auto* dialog = new AboutDialog(info, m_workbench->dialogParent());
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

}  // namespace strata
