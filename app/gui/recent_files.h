#pragma once
// RecentFiles: the File ▸ Recent list — newest first, at most `capacity` paths, persisted in
// the Strata settings. Paths that no longer exist are dropped when the list is read.

#include <QString>
#include <QStringList>

namespace strata {

class RecentFiles {
 public:
  /** persistent == false keeps the list in memory only (screenshots, throw-away windows). */
  explicit RecentFiles(bool persistent = true, int capacity = 10);

  /** Puts `path` first (moving it if already listed) and trims to capacity. */
  void add(const QString& path);
  /** The listed paths that still exist, newest first; vanished ones are forgotten. */
  QStringList paths();
  void clear();

 private:
  void save() const;

  bool m_persistent;
  int m_capacity;
  QStringList m_paths;
};

}  // namespace strata
