#pragma once
// Keeps the user's settings out of a GUI test: every QSettings (and QStandardPaths location)
// goes to a throw-away folder for the rest of the test process.

#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

namespace strata::test {

inline void useThrowAwaySettings(const QTemporaryDir& root) {
  QStandardPaths::setTestModeEnabled(true);
  QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, root.filePath("settings"));
  QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, root.filePath("settings"));
}

}  // namespace strata::test
