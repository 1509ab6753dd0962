#pragma once
// RecentFiles: a list of recently used paths — newest first, at most `capacity` of them,
// persisted in the Strata settings under a key of its own: File ▸ Recent ("recent/paths"), the
// capture dialog's recent corpora ("recent/corpora"). Paths that no longer exist are dropped
// when the list is read.

#include <QString>
#include <QStringList>

namespace strata {

class RecentFiles {
 public:
  /** persistent == false keeps the list in memory only (screenshots, throw-away windows). */
  explicit RecentFiles(bool persistent = true, int capacity = 10,
                       const QString& key = QStringLiteral("recent/paths"));

  /** Puts `path` first (moving it if already listed) and trims to capacity. */
  void add(const QString& path);
  /** The listed paths that still exist, newest first; vanished ones are forgotten. */
  QStringList paths();
  void clear();

 private:
  void save() const;

  bool m_persistent;
  int m_capacity;
  QString m_key;
  QStringList m_paths;
};

}  // namespace strata
