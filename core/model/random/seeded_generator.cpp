// Seeded generators and the device check of every draw (see seeded_generator.h).

#include "model/random/seeded_generator.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <atomic>

#include "common/error.h"

namespace strata::model {

namespace {

std::atomic<int> g_foreignScopes{0};

/** `device` with its index resolved (a CUDA device without one is the current device), so that
 *  "cuda" and "cuda:0" compare equal on device 0; every CPU is the CPU. */
at::Device concrete(at::Device device) {
  if (device.is_cpu()) return at::Device(at::kCPU);
  if (device.has_index()) return device;
  return c10::impl::getDeviceGuardImpl(device.type())->getDevice();
}

/** A stand-in (ForeignDeviceGenerators): reports a device of another type than the one it was
 *  made for and forwards everything else to the real generator, which only generatorFor hands
 *  out. Its dispatch keys stay the real one's, so torch picks the kernel of the draw's device
 *  and that kernel's generator check refuses it. */
class ForeignDeviceGeneratorImpl final : public c10::GeneratorImpl {
 public:
  ForeignDeviceGeneratorImpl(at::Generator real, at::Device madeFor)
      : c10::GeneratorImpl(madeFor.is_cpu() ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU),
                           real.key_set()),
        m_real(std::move(real)),
        m_madeFor(madeFor) {}

  const at::Generator& real() const { return m_real; }
  at::Device madeFor() const { return m_madeFor; }

  void set_current_seed(uint64_t seed) override { m_real.set_current_seed(seed); }
  void set_offset(uint64_t offset) override { m_real.set_offset(offset); }
  uint64_t get_offset() const override { return m_real.get_offset(); }
  uint64_t current_seed() const override { return m_real.current_seed(); }
  uint64_t seed() override { return m_real.seed(); }
  void set_state(const c10::TensorImpl& state) override {
    m_real.unsafeGetGeneratorImpl()->set_state(state);
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    return m_real.unsafeGetGeneratorImpl()->get_state();
  }

 private:
  ForeignDeviceGeneratorImpl* clone_impl() const override {
    return new ForeignDeviceGeneratorImpl(m_real.clone(), m_madeFor);
  }

  at::Generator m_real;
  at::Device m_madeFor;
};

at::Generator realGenerator(uint64_t seed, at::Device device) {
  if (device.is_cpu()) return at::detail::createCPUGenerator(seed);
  if (!device.is_cuda())
    throw Error("no seeded random generator for device " + device.str() +
                " (Strata draws on the CPU and CUDA)");
  at::Generator generator = at::detail::getCUDAHooks().getNewGenerator(device.index());
  generator.set_current_seed(seed);
  return generator;
}

}  // namespace

at::Generator seededGenerator(uint64_t seed, at::Device device) {
  const at::Device target = concrete(device);
  at::Generator real = realGenerator(seed, target);
  if (g_foreignScopes.load() == 0) return real;
  return at::make_generator<ForeignDeviceGeneratorImpl>(std::move(real), target);
}

at::Generator generatorFor(const at::Generator& generator, at::Device device) {
  const at::Device target = concrete(device);
  at::Device madeFor = generator.device();
  at::Generator real = generator;
  if (const auto* standIn =
          dynamic_cast<const ForeignDeviceGeneratorImpl*>(generator.unsafeGetGeneratorImpl())) {
    madeFor = standIn->madeFor();
    real = standIn->real();
  } else if (g_foreignScopes.load() > 0) {
    throw Error("a random draw onto " + target.str() +
                " got a generator that seededGenerator did not make (made for " +
                generator.device().str() + ")");
  }
  if (concrete(madeFor) != target)
    throw Error("a random draw onto " + target.str() + " got a generator made for " +
                madeFor.str() + ": make it with seededGenerator(seed, <the output's device>)");
  return real;
}

ForeignDeviceGenerators::ForeignDeviceGenerators() { ++g_foreignScopes; }
ForeignDeviceGenerators::~ForeignDeviceGenerators() { --g_foreignScopes; }

}  // namespace strata::model
