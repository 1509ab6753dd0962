#include "common/openmp_wait.h"

#include <unistd.h>

#include <cstdlib>

namespace strata {

void runWithPassiveOpenMpWaits(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr) return;
  if (::setenv("OMP_WAIT_POLICY", "PASSIVE", 1) != 0) return;
  // /proc/self/exe, not argv[0]: the program may have been found through PATH.
  ::execv("/proc/self/exe", argv);
  // Only reached when exec failed: go on as we are (the variable now set is harmless).
}

}  // namespace strata
