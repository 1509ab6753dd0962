// MainWindow: File ▸ Preferences…, Help ▸ About Strata and the status bar's device line.

#include <QLabel>
#include <QSettings>

#include "about_dialog.h"
#include "common/build_info.h"
#include "engine/device_info.h"
#include "engine/versions.h"
#include "log_dock.h"
#include "main_window.h"
#include "preferences.h"

namespace strata {

QString MainWindow::deviceLine() const {
  ComputeDevice device = currentComputeDevice();
  const bool cpuByPreference =
      m_options.persistSettings && device.cuda && loadPreferences().device == QLatin1String("cpu");
  if (cpuByPreference) {
    device.cuda = false;
    device.name = "CPU";
  }
  QString line = QString::fromStdString(describe(device));
  if (cpuByPreference) line += tr(" (CUDA off in Preferences)");
  return line;
}

void MainWindow::showPreferences() {
  auto* dialog = new PreferencesDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  if (m_options.persistSettings) dialog->setValues(loadPreferences());
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    const PreferenceValues values = dialog->values();
    if (m_options.persistSettings) savePreferences(values);
    applyPreferences(values);
    m_deviceLabel->setText(deviceLine());
    m_logDock->append(MessageLevel::Info, tr("Preferences applied: %1").arg(m_deviceLabel->text()));
  });
  dialog->open();  // like every dialog of the window: no nested event loop
}

void MainWindow::showAbout() {
  const LibraryVersions versions = libraryVersions();
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
  auto* dialog = new AboutDialog(info, this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->open();
}

}  // namespace strata
