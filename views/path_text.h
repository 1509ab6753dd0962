#pragma once
// Paths between Qt and core: QString <-> std::filesystem::path through the local 8-bit file
// name encoding, so that names which are not valid UTF-8 survive the trip.

#include <QFile>
#include <QString>
#include <filesystem>

namespace strata {

inline std::filesystem::path toFsPath(const QString& path) {
  return std::filesystem::path(QFile::encodeName(path).toStdString());
}

inline QString toQString(const std::filesystem::path& path) {
  return QFile::decodeName(QByteArray::fromStdString(path.string()));
}

}  // namespace strata
