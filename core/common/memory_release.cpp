// Freed memory back to the system (see memory_release.h).

#include "common/memory_release.h"

#include <fstream>
#include <string>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace strata {

void releaseFreedMemory() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

int64_t residentBytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // kB
  return -1;
}

int64_t memAvailableBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key, unit;
  int64_t kilobytes = 0;
  while (meminfo >> key >> kilobytes >> unit)
    if (key == "MemAvailable:") return kilobytes * 1024;
  return -1;
}

}  // namespace strata
