#pragma once
// Memory a finished job freed, handed back to the system. glibc's malloc keeps freed heap pages
// (in every thread's arena) for reuse rather than returning them: after a job thread has loaded
// a model and run it, the process stays gigabytes above what it still uses (measured: a job that
// allocated and freed 8 GB of tensors in a thread left 8.1 GB resident; malloc_trim brought it
// back to 0.5 GB). The workbench calls releaseFreedMemory when its jobs have ended.

#include <cstdint>

namespace strata {

/** Returns freed heap memory of every malloc arena to the system (glibc's malloc_trim(0));
 *  nothing where the C library has no such call. Cheap when there is little to return. */
void releaseFreedMemory();

/** The process's resident set in bytes (VmRSS of /proc/self/status); -1 where unknown. */
int64_t residentBytes();

/** The system's available memory in bytes (MemAvailable of /proc/meminfo); -1 where unknown. */
int64_t memAvailableBytes();

}  // namespace strata
