#pragma once
// A scratch folder for one test: created fresh and unique, removed with everything in it
// when the object goes out of scope. Tests build their fixtures here.

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace strata {

/** RAII temporary directory under std::filesystem::temp_directory_path(). */
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strata-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("TempDir: cannot create " + pattern);
    m_path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;  // never throw from a destructor; a leftover folder is harmless
    std::filesystem::permissions(m_path, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(m_path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& name) const { return m_path / name; }

 private:
  std::filesystem::path m_path;
};

}  // namespace strata
