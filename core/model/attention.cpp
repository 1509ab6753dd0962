#include "model/attention.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace strata {
namespace {

std::string toStringSizes(at::IntArrayRef sizes) {
  std::string text = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

void checkShape(const at::Tensor& tensor, int64_t batch, int64_t length, const char* what) {
  if (tensor.dim() != 2 || tensor.size(0) != batch || tensor.size(1) != length)
    throw std::invalid_argument(std::string(what) + " must be [" + std::to_string(batch) + ", " +
                                std::to_string(length) + "], got " + toStringSizes(tensor.sizes()));
}

}  // namespace

at::Tensor resolvePositions(const AttentionOptions& options, int64_t batch, int64_t length,
                            at::Device device) {
  if (options.positions.defined()) {
    at::Tensor positions = options.positions.to(device, at::kLong);
    if (positions.dim() == 1) positions = positions.unsqueeze(0).expand({batch, length});
    if (positions.dim() != 2 || positions.size(0) != batch || positions.size(1) != length)
      throw std::invalid_argument("positions must be [" + std::to_string(batch) + ", " +
                                  std::to_string(length) + "] or [" + std::to_string(length) +
                                  "], got " + toStringSizes(options.positions.sizes()));
    return positions;
  }
  if (options.paddingMask.defined()) {
    checkShape(options.paddingMask, batch, length, "paddingMask");
    const at::Tensor real = options.paddingMask.to(device).ne(0).to(at::kLong);
    return (real.cumsum(1) - 1).clamp_min(0);
  }
  return at::arange(length, at::TensorOptions().dtype(at::kLong).device(device))
      .unsqueeze(0)
      .expand({batch, length});
}

at::Tensor attentionMask(const AttentionOptions& options, int64_t batch, int64_t length,
                         at::Device device, at::ScalarType dtype) {
  const auto boolOnDevice = at::TensorOptions().dtype(at::kBool).device(device);
  at::Tensor allowed;
  if (options.causal)
    allowed = at::ones({length, length}, boolOnDevice).tril().view({1, 1, length, length});
  if (options.paddingMask.defined()) {
    checkShape(options.paddingMask, batch, length, "paddingMask");
    const at::Tensor realKeys = options.paddingMask.to(device).ne(0).view({batch, 1, 1, length});
    allowed = allowed.defined() ? allowed.logical_and(realKeys)
                                : realKeys.expand({batch, 1, length, length});
    allowed = allowed.logical_or(at::eye(length, boolOnDevice).view({1, 1, length, length}));
  }
  if (!allowed.defined()) return {};
  return at::zeros(allowed.sizes(), at::TensorOptions().dtype(dtype).device(device))
      .masked_fill_(allowed.logical_not(), -std::numeric_limits<float>::infinity());
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& mask) {
  const int64_t batch = q.size(0), heads = q.size(1), length = q.size(2), headDim = q.size(3);
  const int64_t kvHeads = k.size(1);
  const int64_t group = heads / kvHeads;
  // [B, KV, group, T, hd] against [B, KV, 1, T, hd]: broadcasting repeats each k/v head.
  // Scaling q (T·hd values) rather than the scores (T·T) and adding the mask in place save
  // two passes over the T×T scores; neither in-place step is one autograd needs to undo.
  const at::Tensor grouped = q.reshape({batch, kvHeads, group, length, headDim}) *
                             (1.0 / std::sqrt(static_cast<double>(headDim)));
  at::Tensor scores = grouped.matmul(k.unsqueeze(2).transpose(-2, -1));
  if (mask.defined()) scores.add_(mask.unsqueeze(1));
  const at::Tensor weights = scores.softmax(-1, at::kFloat).to(q.scalar_type());
  const at::Tensor out = weights.matmul(v.unsqueeze(2));  // [B, KV, group, T, hd]
  return out.reshape({batch, heads, length, headDim})
      .transpose(1, 2)
      .reshape({batch, length, heads * headDim});
}

PreparedAttention prepareAttention(const AttentionOptions& options, int64_t batch, int64_t length,
                                   const at::Tensor& inverseFrequencies, at::Device device,
                                   at::ScalarType dtype) {
  PreparedAttention result{batch, length, attentionMask(options, batch, length, device, dtype), {}};
  if (inverseFrequencies.defined())
    result.rope = ropeTables(inverseFrequencies, resolvePositions(options, batch, length, device), dtype);
  return result;
}

}  // namespace strata
