#pragma once
// The one spelling of a path the workbench uses as a key (tabs, dock entries, runs): absolute,
// with no "." / ".." / doubled separators. Symbolic links are kept (the user's own names).

#include <QDir>
#include <QFileInfo>
#include <QString>

namespace strata {

inline QString cleanAbsolute(const QString& path) {
  return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

}  // namespace strata
