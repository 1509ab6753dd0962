#include "io/hf/folder_install.h"

#include <fcntl.h>  // AT_FDCWD
#include <stdio.h>  // renameat2 (glibc >= 2.28)
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <system_error>

#include "common/error.h"
#include "io/atomic_file.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {
std::atomic<unsigned> g_folderCounter{0};
}  // namespace

fs::path installTargetPath(const fs::path& out) {
  fs::path path = fs::absolute(out).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  return path;
}

void checkInstallTarget(const fs::path& target, bool force) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw IoError(target, "exists and is not a folder; refusing to replace it");
  if (!force && !fs::is_empty(target, error))
    throw Error("'" + target.string() +
                "' exists and is not empty; refusing to overwrite it (use --force to replace it)");
}

StagingFolder::StagingFolder(const fs::path& target) {
  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) throw IoError(target.parent_path(), "cannot create the folder: " + error.message());
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = ".";
    name.append(target.filename().string()).append(".tmp-");
    name.append(std::to_string(::getpid())).append("-");
    name.append(std::to_string(g_folderCounter++));
    m_path = target.parent_path() / name;
    if (fs::create_directory(m_path, error)) return;
    if (error) break;  // create_directory reports an existing folder as false, no error
  }
  throw IoError(target, "cannot create a temporary folder next to it: " + lastSystemError());
}

StagingFolder::~StagingFolder() {
  std::error_code ignored;  // best effort; a leftover .tmp folder is harmless
  if (!m_installed) fs::remove_all(m_path, ignored);
}

void StagingFolder::install(const fs::path& target, bool force) {
  fsyncDirectory(m_path);
  checkInstallTarget(target, force);  // again: the folder may have appeared while we wrote
  const fs::path& from = m_path;
  // rename(2) replaces a missing target or an empty folder atomically.
  if (::rename(from.c_str(), target.c_str()) == 0) {
    m_installed = true;
    fsyncDirectory(target.parent_path());
    return;
  }
  if (errno != ENOTEMPTY && errno != EEXIST)
    throw IoError(target, "cannot rename the temporary folder into place: " + lastSystemError());
  // Non-empty and forced: swap the two folders in one step, then delete the old contents,
  // which now sit under the temporary name (the destructor removes them).
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fsyncDirectory(target.parent_path());
    return;
  }
  // A file system without RENAME_EXCHANGE: move the old folder aside first. A crash between
  // the two renames leaves the old contents under the aside name, never a half-written folder.
  const fs::path aside = fs::path(from).concat(".old");
  if (::rename(target.c_str(), aside.c_str()) != 0)
    throw IoError(target, "cannot move the existing folder aside: " + lastSystemError());
  if (::rename(from.c_str(), target.c_str()) != 0) {
    const std::string problem = lastSystemError();
    ::rename(aside.c_str(), target.c_str());  // put the old one back
    throw IoError(target, "cannot rename the temporary folder into place: " + problem);
  }
  m_installed = true;
  fsyncDirectory(target.parent_path());
  std::error_code ignored;
  fs::remove_all(aside, ignored);
}

void writeTextFile(const fs::path& file, const std::string& text) {
  writeFileAtomically(file, [&](int fd) { writeAll(fd, text.data(), text.size(), file); });
}

}  // namespace strata::io
