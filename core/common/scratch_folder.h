#pragma once
// A fresh folder under the system's temporary directory, removed with its contents when the
// object goes (also when an exception leaves the scope): for work whose files nobody keeps.

#include <filesystem>
#include <string>

namespace strata {

class ScratchFolder {
 public:
  /** Creates <temp>/<prefix>XXXXXX (mkdtemp). Throws IoError when it cannot. */
  explicit ScratchFolder(const std::string& prefix);
  ~ScratchFolder();
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return m_path; }

 private:
  std::filesystem::path m_path;
};

}  // namespace strata
