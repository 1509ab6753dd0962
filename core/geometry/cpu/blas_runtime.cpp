#include "geometry/cpu/blas_runtime.h"

#include <dlfcn.h>

#include <sstream>
#include <vector>

namespace strata::geometry::cpu {

namespace {

template <typename Function>
Function* lookup(const char* symbol) {
  return reinterpret_cast<Function*>(::dlsym(RTLD_DEFAULT, symbol));
}

}  // namespace

std::string blasName() {
  using TextFunction = char*();
  auto* config = lookup<TextFunction>("openblas_get_config");
  if (config == nullptr) return "BLAS";
  // openblas_get_config(): "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
  std::istringstream words(config());
  std::string name, version;
  words >> name >> version;
  std::string out = name + (version.empty() ? "" : " " + version);
  if (auto* core = lookup<TextFunction>("openblas_get_corename"); core != nullptr && core()[0] != 0)
    out += " (" + std::string(core()) + ")";
  return out;
}

int blasThreads() {
  using CountFunction = int();
  auto* threads = lookup<CountFunction>("openblas_get_num_threads");
  return threads == nullptr ? 1 : threads();
}

namespace {
void setBlasThreads(int threads) {
  using SetFunction = void(int);
  if (auto* set = lookup<SetFunction>("openblas_set_num_threads"); set != nullptr) set(threads);
}
}  // namespace

ScopedBlasThreads::ScopedBlasThreads(int threads) : m_previous(blasThreads()) {
  if (threads != m_previous) setBlasThreads(threads);
}

ScopedBlasThreads::~ScopedBlasThreads() {
  if (blasThreads() != m_previous) setBlasThreads(m_previous);
}

}  // namespace strata::geometry::cpu
