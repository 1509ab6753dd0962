#pragma once
// The MLP non-linearities of the supported backbones, named as config.json names them
// (hidden_act / activation_function, transformers' ACT2FN).

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>

namespace strata::model {

enum class Activation {
  Silu,      ///< "silu", "swish": x·σ(x) (Llama, Qwen SwiGLU gate)
  GeluTanh,  ///< "gelu_new", "gelu_pytorch_tanh", "gelu_fast": tanh approximation (GPT-2, Gemma)
  GeluErf,   ///< "gelu": exact, with erf (GPT-NeoX / Pythia)
  Relu,      ///< "relu"
};

/** The activation config.json calls `name`, or nullopt when Strata does not implement it. */
std::optional<Activation> activationNamed(const std::string& name);

at::Tensor activate(const at::Tensor& x, Activation activation);

}  // namespace strata::model
