#include "model/diffusion/dcdm_masks.h"

#include <ATen/ATen.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace strata::model {

namespace {

void requireIds(const at::Tensor& ids) {
  if (!ids.defined() || ids.dim() != 2 || c10::isFloatingType(ids.scalar_type()) ||
      ids.scalar_type() == at::kBool)
    throw std::invalid_argument("chunk ids must be an integer tensor [B, T]");
}

}  // namespace

at::Tensor positionalChunkIds(int64_t length, int64_t blockSize) {
  if (length < 0 || blockSize < 1)
    throw std::invalid_argument("positional chunks need length >= 0 and block size >= 1, got " +
                                std::to_string(length) + " and " + std::to_string(blockSize));
  return at::arange(length, at::kLong).div(blockSize, "floor");
}

at::Tensor additiveMask(const at::Tensor& allowed) {
  return at::zeros(allowed.sizes(), allowed.options().dtype(at::kFloat))
      .masked_fill(allowed.logical_not(), -std::numeric_limits<float>::infinity());
}

at::Tensor chunkCausalMask(const at::Tensor& ids) {
  requireIds(ids);
  const at::Tensor query = ids.unsqueeze(2), key = ids.unsqueeze(1);  // [B, T, 1], [B, 1, T]
  return additiveMask(key.le(query).unsqueeze(1));
}

at::Tensor blockDiffusionAllowed(const at::Tensor& ids) {
  requireIds(ids);
  const at::Tensor query = ids.unsqueeze(2), key = ids.unsqueeze(1);  // [B, T, 1], [B, 1, T]
  const at::Tensor noisyToNoisy = key.eq(query);
  const at::Tensor noisyToClean = key.lt(query);  // every clean token of every earlier chunk
  const at::Tensor cleanToNoisy = at::zeros_like(noisyToNoisy);
  const at::Tensor cleanToClean = key.le(query);
  return at::cat(
      {at::cat({noisyToNoisy, noisyToClean}, 2), at::cat({cleanToNoisy, cleanToClean}, 2)}, 1);
}

at::Tensor blockDiffusionMask(const at::Tensor& ids) {
  return additiveMask(blockDiffusionAllowed(ids).unsqueeze(1));
}

}  // namespace strata::model
