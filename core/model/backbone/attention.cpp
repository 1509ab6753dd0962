#include "model/backbone/attention.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/zeros.h>

#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

namespace strata::model {

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
                         at::Device device, at::ScalarType dtype, int64_t window) {
  const auto boolOnDevice = at::TensorOptions().dtype(at::kBool).device(device);
  at::Tensor allowed;
  if (options.causal)
    allowed = at::ones({length, length}, boolOnDevice).tril().view({1, 1, length, length});
  if (window > 0 && window < length) {
    // sliding_window_overlay: kv_idx > q_idx − window (with the causal kv_idx ≤ q_idx).
    const at::Tensor index =
        at::arange(length, at::TensorOptions().dtype(at::kLong).device(device));
    const at::Tensor distance = index.view({length, 1}) - index.view({1, length});  // q − k
    const at::Tensor near =
        (options.causal ? distance : distance.abs()).lt(window).view({1, 1, length, length});
    allowed = allowed.defined() ? allowed.logical_and(near) : near;
  }
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

at::Tensor referenceAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                              const at::Tensor& mask, bool causal, std::optional<double> scale) {
  const int64_t batch = q.size(0), heads = q.size(1), queries = q.size(2), headDim = q.size(3);
  const int64_t kvHeads = k.size(1), keys = k.size(2);
  const int64_t group = heads / kvHeads;
  // [B, KV, group, Tq, hd] against [B, KV, 1, Tk, hd]: broadcasting repeats each k/v head.
  // Scaling q (T·hd values) rather than the scores (T·T) and adding the mask in place save
  // two passes over the T×T scores; neither in-place step is one autograd needs to undo.
  const at::Tensor grouped = q.reshape({batch, kvHeads, group, queries, headDim}) *
                             scale.value_or(1.0 / std::sqrt(static_cast<double>(headDim)));
  at::Tensor scores = grouped.matmul(k.unsqueeze(2).transpose(-2, -1));
  if (mask.defined()) {
    // [B|1, H|1, Tq, Tk] → [B|1, KV|1, group|1, Tq, Tk], matching the grouped scores.
    const at::Tensor m = mask.dim() == 4 && mask.size(1) == heads && heads > 1
                             ? mask.reshape({mask.size(0), kvHeads, group, queries, keys})
                             : mask.unsqueeze(1);
    if (m.scalar_type() == at::kBool)
      scores.masked_fill_(m.logical_not(), -std::numeric_limits<float>::infinity());
    else if (m.requires_grad())
      scores = scores + m;
    else
      scores.add_(m);
  }
  if (causal) {
    const at::Tensor later =
        at::ones({queries, keys}, at::TensorOptions().dtype(at::kBool).device(q.device())).triu(1);
    scores.masked_fill_(later, -std::numeric_limits<float>::infinity());
  }
  const at::Tensor weights = scores.softmax(-1, at::kFloat).to(q.scalar_type());
  return weights.matmul(v.unsqueeze(2)).reshape({batch, heads, queries, headDim});
}

at::Tensor scaledDotProductAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                                     const at::Tensor& mask, bool causal,
                                     std::optional<double> scale) {
  if (causal && (mask.defined() || q.size(2) != k.size(2)))
    throw std::invalid_argument("attention: causal takes no mask and as many queries as keys");
  // The fused kernels give no gradient to the mask (the dcdm denoiser's order bias may want one).
  if (mask.defined() && mask.requires_grad())
    return referenceAttention(q, k, v, mask, causal, scale);
  // A float mask in q's dtype (bf16 passes); a boolean one as it is.
  std::optional<at::Tensor> typedMask;
  if (mask.defined()) typedMask = mask.scalar_type() == at::kBool ? mask : mask.to(q.scalar_type());
  return at::scaled_dot_product_attention(q, k, v, typedMask, /*dropout_p=*/0.0, causal, scale,
                                          /*enable_gqa=*/k.size(1) != q.size(1));
}

at::Tensor attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& mask, bool causal, std::optional<double> scale) {
  const int64_t batch = q.size(0), heads = q.size(1), length = q.size(2), headDim = q.size(3);
  return scaledDotProductAttention(q, k, v, mask, causal, scale)
      .transpose(1, 2)
      .reshape({batch, length, heads * headDim});
}

PreparedAttention prepareAttention(const AttentionOptions& options, int64_t batch, int64_t length,
                                   const at::Tensor& inverseFrequencies, at::Device device,
                                   at::ScalarType dtype, const SlidingWindow& sliding) {
  PreparedAttention result;
  result.batch = batch;
  result.length = length;
  // Causal over unpadded sequences needs no mask tensor: is_causal lets the fused kernels run.
  result.causal = options.causal && !options.paddingMask.defined();
  if (!result.causal) result.mask = attentionMask(options, batch, length, device, dtype);
  at::Tensor positions;
  if (inverseFrequencies.defined() || sliding.inverseFrequencies.defined())
    positions = resolvePositions(options, batch, length, device);
  if (inverseFrequencies.defined()) result.rope = ropeTables(inverseFrequencies, positions, dtype);
  if (sliding.window > 0) {
    // Within the window every key a query may see is near enough: no cut, the same mask.
    if (length <= sliding.window) {
      result.sliding.mask = result.mask;
      result.sliding.causal = result.causal;
    } else {
      result.sliding.mask = attentionMask(options, batch, length, device, dtype, sliding.window);
    }
    if (sliding.inverseFrequencies.defined())
      result.sliding.rope = ropeTables(sliding.inverseFrequencies, positions, dtype);
  }
  return result;
}

}  // namespace strata::model
