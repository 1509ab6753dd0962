#pragma once
// A seeded random generator of the device a job samples on: torch's random functions accept
// only a generator of their output's device, so a sampler seeded on the CPU cannot draw CUDA
// noise. The same seed gives the same stream on the same device (not across devices).

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace strata {

at::Generator seededGenerator(uint64_t seed, at::Device device);

}  // namespace strata
