#include "recent_files.h"

#include <QFileInfo>

#include "gui_settings.h"

namespace strata {

RecentFiles::RecentFiles(bool persistent, int capacity, const QString& key)
    : m_persistent(persistent), m_capacity(capacity), m_key(key) {
  if (m_persistent) m_paths = guiSettings().value(m_key).toStringList();
}

void RecentFiles::add(const QString& path) {
  m_paths.removeAll(path);
  m_paths.prepend(path);
  while (m_paths.size() > m_capacity) m_paths.removeLast();
  save();
}

QStringList RecentFiles::paths() {
  const auto before = m_paths.size();
  m_paths.removeIf([](const QString& path) { return !QFileInfo::exists(path); });
  if (m_paths.size() != before) save();
  return m_paths;
}

void RecentFiles::clear() {
  m_paths.clear();
  save();
}

void RecentFiles::save() const {
  if (m_persistent) guiSettings().setValue(m_key, m_paths);
}

}  // namespace strata
