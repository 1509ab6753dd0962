#include "model/backbone/activation.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/gelu.h>
#include <ATen/ops/relu.h>
#include <ATen/ops/silu.h>

#include <utility>

namespace strata::model {

std::optional<Activation> activationNamed(const std::string& name) {
  if (name == "silu" || name == "swish") return Activation::Silu;
  // gelu_fast is 0.5x(1 + tanh(0.7978845608·x(1 + 0.044715x²))): the same function as gelu_new.
  if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast")
    return Activation::GeluTanh;
  if (name == "gelu") return Activation::GeluErf;
  if (name == "relu") return Activation::Relu;
  return std::nullopt;
}

namespace {

/** `activation` of x, into new memory or (`inPlace`) over x: one table of the ops for both. */
at::Tensor applied(at::Tensor x, Activation activation, bool inPlace) {
  switch (activation) {
    case Activation::Silu:
      return inPlace ? at::silu_(x) : at::silu(x);
    case Activation::GeluTanh:
      return inPlace ? at::gelu_(x, "tanh") : at::gelu(x, "tanh");
    case Activation::GeluErf:
      return inPlace ? at::gelu_(x) : at::gelu(x);
    case Activation::Relu:
      return inPlace ? at::relu_(x) : at::relu(x);
  }
  return x;
}

}  // namespace

at::Tensor activate(const at::Tensor& x, Activation activation) {
  return applied(x, activation, /*inPlace=*/false);
}

at::Tensor activateFresh(at::Tensor x, Activation activation) {
  const bool inPlace = !x.requires_grad();  // autograd keeps x for the backward otherwise
  return applied(std::move(x), activation, inPlace);
}

at::Tensor gatedProduct(at::Tensor gate, const at::Tensor& up, Activation activation) {
  if (gate.requires_grad() || up.requires_grad()) return activate(gate, activation) * up;
  return activateFresh(std::move(gate), activation).mul_(up);
}

}  // namespace strata::model
