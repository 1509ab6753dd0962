// Random draws, each with its generator checked against its output's device (see
// random_draws.h).

#include "model/random/random_draws.h"

#include <ATen/ops/rand.h>
#include <ATen/ops/rand_like.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/randn_like.h>

#include "common/error.h"
#include "model/random/seeded_generator.h"

namespace strata::model {

namespace {

/** The generator torch gets for a draw with `options`: none (the device's default) or the
 *  checked one. A seeded draw names its device: left to the default, a CUDA run's generator
 *  would meet a CPU output. */
std::optional<at::Generator> checkedGenerator(const at::TensorOptions& options,
                                              const std::optional<at::Generator>& generator) {
  if (!generator) return std::nullopt;
  if (!options.has_device())
    throw Error("a seeded random draw must name its output's device (made for " +
                generator->device().str() + ")");
  return generatorFor(*generator, options.device());
}

}  // namespace

at::Tensor uniformDraw(at::IntArrayRef sizes, const at::TensorOptions& options,
                       const std::optional<at::Generator>& generator) {
  return at::rand(sizes, checkedGenerator(options, generator), options);
}

at::Tensor normalDraw(at::IntArrayRef sizes, const at::TensorOptions& options,
                      const std::optional<at::Generator>& generator) {
  return at::randn(sizes, checkedGenerator(options, generator), options);
}

at::Tensor uniformLike(const at::Tensor& like, const std::optional<at::Generator>& generator) {
  return generator ? uniformDraw(like.sizes(), like.options(), generator) : at::rand_like(like);
}

at::Tensor normalLike(const at::Tensor& like, const std::optional<at::Generator>& generator) {
  return generator ? normalDraw(like.sizes(), like.options(), generator) : at::randn_like(like);
}

}  // namespace strata::model
