#pragma once
// Environment variables changed for one scope and put back when it ends (also when an assertion
// returns early): tests of one binary share a process, and ctest's own values (STRATA_DATA_DIR,
// the default model, the tuned library settings) must hold again for whatever runs next.

#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::testing {

/** Sets or unsets environment variables for a scope and puts the earlier values back. */
class ScopedEnvironment {
 public:
  ScopedEnvironment() = default;
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  void set(const char* name, const std::string& value) {
    save(name);
    ::setenv(name, value.c_str(), 1);
  }
  void unset(const char* name) {
    save(name);
    ::unsetenv(name);
  }
  ~ScopedEnvironment() {
    for (auto it = m_saved.crbegin(); it != m_saved.crend(); ++it)
      it->second ? ::setenv(it->first, it->second->c_str(), 1) : ::unsetenv(it->first);
  }

 private:
  void save(const char* name) {
    const char* value = std::getenv(name);
    m_saved.emplace_back(name, value ? std::optional<std::string>(value) : std::nullopt);
  }
  std::vector<std::pair<const char*, std::optional<std::string>>> m_saved;
};

}  // namespace strata::testing
