#include "yield_to_gui.h"

#ifdef __linux__
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace strata {

void yieldToTheGui() {
#ifdef __linux__
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);  // per thread on Linux
#endif
}

}  // namespace strata
