#pragma once
// Seeded random generators, each made for the device its draws land on, and the check every
// seeded draw makes before torch sees the generator. torch's random functions accept only a
// generator of their output's device: a CPU generator cannot draw CUDA noise, and the mismatch
// shows only on a GPU, deep inside torch. So every generator of Strata comes from
// seededGenerator, every draw goes through model/random/random_draws.h (which calls
// generatorFor), and tests/layering/check_random_draws.py keeps it that way.

#include <ATen/core/Generator.h>
#include <c10/core/Device.h>

#include <cstdint>

namespace strata::model {

/** A generator for `device` (a CUDA device without an index: the current one), seeded with
 *  `seed`. The same seed gives the same stream on the same device (not across devices). */
at::Generator seededGenerator(uint64_t seed, at::Device device);

/** The generator to hand torch for a draw onto `device`: `generator` itself when it was made
 *  for that device; throws Error naming both devices otherwise. */
at::Generator generatorFor(const at::Generator& generator, at::Device device);

/** While one is alive, seededGenerator hands out stand-ins that tell torch they belong to
 *  another device type (CUDA for a CPU draw, the CPU for a CUDA one), and generatorFor accepts
 *  nothing else and hands torch the real generator inside. A draw that reaches torch without
 *  generatorFor, or with a generator seededGenerator did not make, then fails on the CPU just as
 *  a device mismatch fails on a GPU: the tests train every recipe so. Open it before the job
 *  and close it after; generators made under it stay stand-ins. */
class ForeignDeviceGenerators {
 public:
  ForeignDeviceGenerators();
  ~ForeignDeviceGenerators();
  ForeignDeviceGenerators(const ForeignDeviceGenerators&) = delete;
  ForeignDeviceGenerators& operator=(const ForeignDeviceGenerators&) = delete;
};

}  // namespace strata::model
