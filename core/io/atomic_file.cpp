#include "io/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "common/error.h"

namespace strata::io {

namespace {

// Distinguishes temporaries of concurrent writers inside one process; the pid separates
// processes. O_EXCL below guarantees we never adopt someone else's file.
std::atomic<unsigned> g_tempCounter{0};

std::string describeWriteFailure(int error) {
  if (error == ENOSPC || error == EDQUOT)
    return "disk full while writing (" + std::string(std::strerror(error)) + ")";
  return "write failed: " + std::string(std::strerror(error));
}

// fsync may report a deferred write error (ENOSPC on NFS, EIO): that is a failed write.
void syncOrThrow(int fd, const std::filesystem::path& forErrors) {
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    throw IoError(forErrors, "fsync failed: " + describeWriteFailure(errno));
  }
}

// Owns the temporary until it has been renamed into place; otherwise removes it.
class TempFile {
 public:
  explicit TempFile(const std::filesystem::path& target) {
    const std::filesystem::path folder =
        target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
    for (int attempt = 0; attempt < 100; ++attempt) {
      // Appended piecewise: GCC 12 gives a false -Wrestrict on a chain of operator+.
      std::string name = ".";
      name.append(target.filename().string()).append(".tmp-");
      name.append(std::to_string(::getpid())).append("-");
      name.append(std::to_string(g_tempCounter++));
      m_path = folder / name;
      m_fd = ::open(m_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (m_fd >= 0) return;
      if (errno != EEXIST) break;  // a stale temp of a dead process with our pid: try the next
    }
    throw IoError(target, "cannot create a temporary file in '" + folder.string() +
                              "': " + lastSystemError());
  }
  ~TempFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_committed) ::unlink(m_path.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  int fd() const { return m_fd; }
  const std::filesystem::path& path() const { return m_path; }

  void close(const std::filesystem::path& forErrors) {
    const int descriptor = m_fd;
    m_fd = -1;
    // After close() the descriptor is gone even on EINTR (Linux), so never retry it.
    if (::close(descriptor) != 0 && errno != EINTR)
      throw IoError(forErrors, "close failed: " + describeWriteFailure(errno));
  }
  void commit() { m_committed = true; }

 private:
  std::filesystem::path m_path;
  int m_fd = -1;
  bool m_committed = false;
};

}  // namespace

void writeAll(int fd, const void* data, std::size_t size, const std::filesystem::path& forErrors) {
  const auto* next = static_cast<const char*>(data);
  // Linux transfers at most ~2 GiB per call; large tensors take several.
  constexpr std::size_t kMaxChunk = std::size_t{1} << 30;
  while (size > 0) {
    const ssize_t written = ::write(fd, next, std::min(size, kMaxChunk));
    if (written < 0) {
      if (errno == EINTR) continue;
      throw IoError(forErrors, describeWriteFailure(errno));
    }
    if (written == 0) throw IoError(forErrors, "write made no progress (device full?)");
    next += written;
    size -= static_cast<std::size_t>(written);
  }
}

void fsyncDirectory(const std::filesystem::path& folder) {
  const std::filesystem::path name = folder.empty() ? std::filesystem::path(".") : folder;
  const int fd = ::open(name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw IoError(name, "cannot open folder to fsync it: " + lastSystemError());
  while (::fsync(fd) != 0) {
    if (errno == EINTR) continue;
    const std::string problem = "cannot fsync folder: " + lastSystemError();
    ::close(fd);
    throw IoError(name, problem);
  }
  ::close(fd);
}

void writeFileAtomically(const std::filesystem::path& target,
                         const std::function<void(int fd)>& writeContents) {
  TempFile temp(target);
  writeContents(temp.fd());
  syncOrThrow(temp.fd(), target);
  temp.close(target);
  if (::rename(temp.path().c_str(), target.c_str()) != 0)
    throw IoError(target, "cannot rename the temporary file into place: " + lastSystemError());
  temp.commit();
  fsyncDirectory(target.has_parent_path() ? target.parent_path() : std::filesystem::path("."));
}

void removeStaleTemporaries(const std::filesystem::path& folder) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(".") && name.find(".tmp-") != std::string::npos && entry.is_regular_file())
      std::filesystem::remove(entry.path(), ec);
  }
}

void writeTextAtomically(const std::filesystem::path& target, const std::string& text) {
  writeFileAtomically(target, [&](int fd) { writeAll(fd, text.data(), text.size(), target); });
}

void fsyncFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw IoError(path, "cannot open to fsync: " + lastSystemError());
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw IoError(path, "fsync failed: " + lastSystemError());
}

}  // namespace strata::io
