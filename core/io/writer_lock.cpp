#include "io/writer_lock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "common/error.h"
#include "io/file_lock_holders.h"

namespace strata::io {

WriterLock WriterLock::forNewFile(const std::filesystem::path& file, bool overwrite) {
  return WriterLock(file, O_CREAT | (overwrite ? 0 : O_EXCL));
}

WriterLock WriterLock::forExistingFile(const std::filesystem::path& file) {
  return WriterLock(file, 0);
}

WriterLock::WriterLock(const std::filesystem::path& file, int openFlags) {
  m_fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC | openFlags, 0666);
  if (m_fd < 0 && errno == EEXIST) {
    throw IoError(file, "already exists; refusing to overwrite it (ask for overwrite)");
  }
  if (m_fd < 0 && errno == EACCES) {
    throw IoError(file,
                  "permission denied: cannot write it; check its owner and mode (ls -l) "
                  "or write to another file");
  }
  if (m_fd < 0) throw IoError(file, "cannot open for writing: " + lastSystemError());
  struct flock lock = {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = off_t{1} << 62;  // far past any real data: never a byte anyone else locks
  lock.l_len = 1;
  if (::fcntl(m_fd, F_OFD_SETLK, &lock) < 0) {
    release();
    const std::string holder = describeLockHolders(file);
    throw LockHeldError(file, "another writer has this file open" +
                                  (holder.empty() ? std::string() : ": " + holder) +
                                  "; wait for it to finish or stop it, then try again");
  }
}

bool heldByAnotherWriter(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct flock lock = {};
  lock.l_type = F_WRLCK;  // "could I take it?" asks about write locks too
  lock.l_whence = SEEK_SET;
  lock.l_start = off_t{1} << 62;
  lock.l_len = 1;
  const bool held = ::fcntl(fd, F_OFD_GETLK, &lock) == 0 && lock.l_type != F_UNLCK;
  ::close(fd);
  return held;
}

WriterLock::WriterLock(WriterLock&& other) noexcept : m_fd(std::exchange(other.m_fd, -1)) {}

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept {
  if (this != &other) {
    release();
    m_fd = std::exchange(other.m_fd, -1);
  }
  return *this;
}

WriterLock::~WriterLock() { release(); }

void WriterLock::release() {
  if (m_fd >= 0) ::close(std::exchange(m_fd, -1));
}

}  // namespace strata::io
