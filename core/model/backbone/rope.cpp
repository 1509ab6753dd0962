#include "model/backbone/rope.h"

#include <ATen/TensorOperators.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/empty.h>

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace strata::model {

bool ropeScalingSupported(const std::string& type) {
  return type.empty() || type == "default" || type == "linear" || type == "llama3";
}

namespace {

// transformers' _compute_llama3_parameters, one frequency at a time.
double llama3Scaled(double inverse, const io::RopeScaling& s) {
  const double context = static_cast<double>(s.originalMaxPositions);
  const double lowFreqWavelength = context / s.lowFreqFactor;
  const double highFreqWavelength = context / s.highFreqFactor;
  const double wavelength = 2.0 * std::numbers::pi / inverse;
  if (wavelength > lowFreqWavelength) return inverse / s.factor;
  if (wavelength < highFreqWavelength) return inverse;
  const double smooth =
      (context / wavelength - s.lowFreqFactor) / (s.highFreqFactor - s.lowFreqFactor);
  return (1.0 - smooth) * inverse / s.factor + smooth * inverse;
}

at::Tensor rotateHalf(const at::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return at::cat({x.slice(-1, half).neg(), x.slice(-1, 0, half)}, -1);
}

}  // namespace

at::Tensor ropeInverseFrequencies(int64_t rotaryDim, double base,
                                  const std::optional<io::RopeScaling>& scaling) {
  if (rotaryDim <= 0 || rotaryDim % 2 != 0)
    throw std::invalid_argument("rotary dimension must be positive and even, got " +
                                std::to_string(rotaryDim));
  const std::string type = scaling ? scaling->type : std::string();
  if (!ropeScalingSupported(type))
    throw std::invalid_argument("unsupported rope scaling '" + type + "'");
  at::Tensor result = at::empty({rotaryDim / 2}, at::kFloat);
  float* out = result.data_ptr<float>();
  for (int64_t i = 0; i < rotaryDim / 2; ++i) {
    double inverse =
        1.0 / std::pow(base, static_cast<double>(2 * i) / static_cast<double>(rotaryDim));
    if (type == "linear") inverse /= scaling->factor;
    if (type == "llama3") inverse = llama3Scaled(inverse, *scaling);
    out[i] = static_cast<float>(inverse);
  }
  return result;
}

RopeTables ropeTables(const at::Tensor& inverseFrequencies, const at::Tensor& positions,
                      at::ScalarType dtype) {
  // As LlamaRotaryEmbedding: float32 positions × float32 frequencies, halves concatenated.
  const at::Tensor frequencies = inverseFrequencies.to(positions.device());
  const at::Tensor angles = positions.to(at::kFloat).unsqueeze(-1) * frequencies;  // [B, T, r/2]
  const at::Tensor both = at::cat({angles, angles}, -1).unsqueeze(1);              // [B, 1, T, r]
  return {both.cos().to(dtype), both.sin().to(dtype)};
}

at::Tensor applyRope(const at::Tensor& x, const RopeTables& tables) {
  const int64_t rotary = tables.cos.size(-1);
  if (rotary == x.size(-1)) return x * tables.cos + rotateHalf(x) * tables.sin;
  const at::Tensor rotated = x.slice(-1, 0, rotary);
  return at::cat({rotated * tables.cos + rotateHalf(rotated) * tables.sin, x.slice(-1, rotary)},
                 -1);
}

}  // namespace strata::model
