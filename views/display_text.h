#pragma once
// Core values as Qt text. Numbers use core's human_format (so the GUI and strata-cli print the
// same "1.24 B"); paths go through the local 8-bit file-name encoding, so that names which are
// not valid UTF-8 survive the trip between QString and std::filesystem::path.

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
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

/**
 * A file's or folder's name as tabs and the project dock show it: the file name without the
 * content hashes (16 hex digits after a '-') that Strata's imports and captures append, so
 * "SmolLM2-135M-Instruct.Q4_1-2d17f6c9e854c82e-c8171e4d3debdae5.h5" reads
 * "SmolLM2-135M-Instruct.Q4_1.h5". Give the full path as the tooltip.
 */
inline QString displayName(const QString& path) {
  static const QRegularExpression hash(QStringLiteral("-[0-9a-f]{16}(?=[-.]|$)"));
  QString name = QFileInfo(path).fileName();
  name.remove(hash);
  return name.isEmpty() ? path : name;
}

}  // namespace strata
