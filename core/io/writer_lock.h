#pragma once
// One writer per file, across processes: an advisory lock that a second writer of the same
// file (another capture resuming it, or overwriting it) fails to take.

#include <filesystem>

#include "common/error.h"

namespace strata::io {

/** The lock is held by another writer (as opposed to the file not opening at all). */
class LockHeldError : public IoError {
 public:
  using IoError::IoError;
};

/**
 * Holds an open-file-description lock (Linux F_OFD_SETLK) on one byte far past any data of
 * the file. Such a lock belongs to this object's own descriptor: a library opening and
 * closing the same file in this process (HDF5 does) cannot drop it, as it would drop a plain
 * POSIX record lock, and it does not interact with flock(), which HDF5 uses. The kernel
 * releases it when the process dies, however it dies. Readers are not affected.
 *
 * Move-only; released by release() or the destructor. Not thread-safe.
 */
class WriterLock {
 public:
  /**
   * Creates `file` if needed and locks it. An existing file is refused (IoError "already
   * exists") unless `overwrite`; it is never truncated here. LockHeldError when another
   * writer holds it; IoError naming the system's reason when it cannot be opened at all.
   */
  static WriterLock forNewFile(const std::filesystem::path& file, bool overwrite);
  /** Locks an existing file (IoError when it is missing, LockHeldError when another writer
   *  holds it). */
  static WriterLock forExistingFile(const std::filesystem::path& file);

  WriterLock() = default;
  WriterLock(WriterLock&& other) noexcept;
  WriterLock& operator=(WriterLock&& other) noexcept;
  WriterLock(const WriterLock&) = delete;
  WriterLock& operator=(const WriterLock&) = delete;
  ~WriterLock();

  void release();

 private:
  WriterLock(const std::filesystem::path& file, int openFlags);
  int m_fd = -1;
};

/** True when some WriterLock (in any process, this one included) holds `file`. Asks the
 *  kernel without taking the lock, so it never disturbs the writer. */
bool heldByAnotherWriter(const std::filesystem::path& file);

}  // namespace strata::io
