#pragma once
// Which other processes hold a lock on a file, for error messages ("another writer has this
// file open: process 4242 (strata-cli capture ...)"). Linux only: read from /proc.

#include <filesystem>
#include <string>

namespace strata::io {

/**
 * The processes other than this one with a descriptor of `file` that carries a lock (an
 * open-file-description lock such as WriterLock's, HDF5's flock(), a POSIX record lock), as
 * "process 4242 (strata-cli capture --out acts.h5)" or "processes 4242 (...), 4343 (...)".
 * Empty when none can be seen: /proc shows only the processes this user may inspect. Scans
 * every process's descriptors, so call it only to word an error.
 */
std::string describeLockHolders(const std::filesystem::path& file);

}  // namespace strata::io
