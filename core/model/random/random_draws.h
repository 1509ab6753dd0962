#pragma once
// Every random tensor Strata draws: from a seeded generator (model/random/seeded_generator.h),
// checked against the output's device first, or from torch's default generator of that device
// (which training checkpoints save and restore). In-place weight initialisers (normal_) draw
// from the default generator of their own tensor's device and need no check.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/TensorOptions.h>

#include <optional>

namespace strata::model {

/** U[0, 1) of `sizes`, with `options`' dtype and device. With a generator, `options` must name
 *  the device and the generator must have been made for it (generatorFor), else Error. */
at::Tensor uniformDraw(at::IntArrayRef sizes, const at::TensorOptions& options,
                       const std::optional<at::Generator>& generator = std::nullopt);

/** N(0, 1) of `sizes`, with `options`' dtype and device; the generator as uniformDraw's. */
at::Tensor normalDraw(at::IntArrayRef sizes, const at::TensorOptions& options,
                      const std::optional<at::Generator>& generator = std::nullopt);

/** U[0, 1) shaped like `like`, on its device and in its dtype. Without a generator it keeps
 *  like's memory layout (torch::rand_like), with one it is contiguous. */
at::Tensor uniformLike(const at::Tensor& like,
                       const std::optional<at::Generator>& generator = std::nullopt);

/** N(0, 1) shaped like `like`, as uniformLike. */
at::Tensor normalLike(const at::Tensor& like,
                      const std::optional<at::Generator>& generator = std::nullopt);

}  // namespace strata::model
