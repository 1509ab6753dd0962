#include "engine/seeded_generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>

namespace strata {

at::Generator seededGenerator(uint64_t seed, at::Device device) {
  if (!device.is_cuda()) return at::detail::createCPUGenerator(seed);
  at::Generator generator = at::detail::getCUDAHooks().getNewGenerator(device.index());
  generator.set_current_seed(seed);
  return generator;
}

}  // namespace strata
