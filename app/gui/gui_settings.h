#pragma once
// The workbench's QSettings: organisation "Strata", application "Strata" (on Linux
// ~/.config/Strata/Strata.conf). Window geometry and state, recent files.

#include <QSettings>

namespace strata {

inline QSettings guiSettings() {
  return QSettings(QStringLiteral("Strata"), QStringLiteral("Strata"));
}

}  // namespace strata
