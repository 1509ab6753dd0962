#include "preferences.h"

#include <QDir>
#include <QSettings>

#include "engine/device_info.h"
#include "geometry/proxy_options.h"
#include "gui_settings.h"
#include "theme.h"

namespace strata {
namespace {

const QString kDevice = QStringLiteral("preferences/device");
const QString kThreads = QStringLiteral("preferences/threads");
const QString kTheme = QStringLiteral("preferences/theme");
const QString kPluginFolders = QStringLiteral("preferences/pluginFolders");
// Shared with CaptureDialog and ScoreLayersDialog, which remember their last values there.
const QString kCaptureTokens = QStringLiteral("capture/tokens");
const QString kAnchors = QStringLiteral("geometry/anchors");
const QString kScoreDevice = QStringLiteral("geometry/device");

}  // namespace

PreferenceValues loadPreferences() {
  const QSettings settings = guiSettings();
  PreferenceValues values;
  values.anchors = static_cast<int>(geometry::ProxyOptions{}.anchors);
  const QString device = settings.value(kDevice, values.device).toString();
  if (device == QLatin1String("auto") || device == QLatin1String("cpu") ||
      device == QLatin1String("cuda"))
    values.device = device;
  values.threads = std::max(0, settings.value(kThreads, values.threads).toInt());
  values.captureTokens = std::max(1, settings.value(kCaptureTokens, values.captureTokens).toInt());
  values.anchors = std::max(1, settings.value(kAnchors, values.anchors).toInt());
  values.theme = themeFromName(settings.value(kTheme).toString());
  values.pluginFolders = settings.value(kPluginFolders).toStringList();
  return values;
}

void savePreferences(const PreferenceValues& values) {
  QSettings settings = guiSettings();
  settings.setValue(kDevice, values.device);
  settings.setValue(kScoreDevice, values.device);
  settings.setValue(kThreads, values.threads);
  settings.setValue(kCaptureTokens, values.captureTokens);
  settings.setValue(kAnchors, values.anchors);
  settings.setValue(kTheme, themeName(values.theme));
  QStringList folders;
  for (const QString& folder : values.pluginFolders)
    folders << QDir::cleanPath(QDir(folder).absolutePath());
  settings.setValue(kPluginFolders, folders);
}

QStringList pluginFolders() { return loadPreferences().pluginFolders; }

std::string jobDevice() { return loadPreferences().device.toStdString(); }

void applyPreferences(const PreferenceValues& values) {
  applyTheme(values.theme);
  engine::setComputeThreads(values.threads > 0 ? values.threads : engine::defaultThreadCount());
}

}  // namespace strata
