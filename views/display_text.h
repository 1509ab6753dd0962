#pragma once
// Core values as Qt text. Numbers use core's human_format (so the GUI and strata-cli print the
// same "1.24 B"); paths go through the local 8-bit file-name encoding, so that names which are
// not valid UTF-8 survive the trip between QString and std::filesystem::path.

#include <QFile>
#include <QString>
#include <cstdint>
#include <filesystem>

#include "common/human_format.h"

namespace strata {

/** "1.24 B" */
inline QString countText(int64_t count) { return QString::fromStdString(formatCount(count)); }
/** "2.30 GiB" */
inline QString bytesText(int64_t bytes) { return QString::fromStdString(formatBytes(bytes)); }
/** "1,235,814,400" */
inline QString groupedText(int64_t value) {
  return QString::fromStdString(formatWithSeparators(value));
}

inline std::filesystem::path toFsPath(const QString& path) {
  return std::filesystem::path(QFile::encodeName(path).toStdString());
}

inline QString toQString(const std::filesystem::path& path) {
  return QFile::decodeName(QByteArray::fromStdString(path.string()));
}

}  // namespace strata
