#include "model/backbone/norms.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/layer_norm.h>

namespace strata::model {

at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor wide = x.to(at::kFloat);
  const at::Tensor normed = wide * (wide.pow(2).mean(-1, /*keepdim=*/true) + eps).rsqrt();
  return weight * normed.to(x.scalar_type());
}

at::Tensor gemmaRmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  const at::Tensor wide = x.to(at::kFloat);
  const at::Tensor normed = wide * (wide.pow(2).mean(-1, /*keepdim=*/true) + eps).rsqrt();
  return (normed * (weight.to(at::kFloat) + 1.0)).to(x.scalar_type());
}

at::Tensor layerNorm(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias,
                     double eps) {
  return at::layer_norm(x, {x.size(-1)}, weight, bias, eps);
}

}  // namespace strata::model
