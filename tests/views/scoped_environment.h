#pragma once
// Environment variables set for one test function and put back when it returns (also when a
// QVERIFY returns early): a view test's functions share one process, and ctest's own values
// (STRATA_DATA_DIR, the default model) must hold again for the next one.

#include <QByteArray>
#include <QList>
#include <QString>
#include <optional>
#include <utility>

namespace strata::test {

/** Sets environment variables for a scope and puts the earlier values back. */
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  void set(const char* name, const QString& value) {
    m_saved.append(
        {name, qEnvironmentVariableIsSet(name) ? std::optional(qgetenv(name)) : std::nullopt});
    qputenv(name, value.toUtf8());
  }
  ~ScopedEnvironment() {
    for (auto it = m_saved.crbegin(); it != m_saved.crend(); ++it)
      it->second ? qputenv(it->first, *it->second) : qunsetenv(it->first);
  }

 private:
  QList<std::pair<const char*, std::optional<QByteArray>>> m_saved;
};

}  // namespace strata::test
