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

/**
 * activate(x), written over x when no gradient flows through it (x must be a fresh result that
 * nothing else holds, such as a linear layer's output). In inference every MLP would otherwise
 * take one more buffer of tokens × intermediate floats a layer; past glibc's mmap threshold
 * (32 MB at most, e.g. 2,048 tokens of Qwen2.5-0.5B's 4,864) each such buffer is mapped afresh and
 * faulted in page by page.
 */
at::Tensor activateFresh(at::Tensor x, Activation activation);

/** activate(gate) · up (a gated MLP's product), in gate's memory where no gradient flows. */
at::Tensor gatedProduct(at::Tensor gate, const at::Tensor& up, Activation activation);

}  // namespace strata::model
