#include "model/diffusion/bridge_denoiser.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace strata::model {

namespace {

namespace F = torch::nn::functional;

void require(bool condition, const std::string& message) {
  if (!condition) throw std::invalid_argument("BridgeDenoiser: " + message);
}

std::string shapeOf(const torch::Tensor& tensor) {
  std::string text = "[";
  for (int64_t i = 0; i < tensor.dim(); ++i)
    text += (i ? ", " : "") + std::to_string(tensor.size(i));
  return text + "]";
}

torch::nn::LayerNorm plainNorm(int64_t width) {
  return torch::nn::LayerNorm(
      torch::nn::LayerNormOptions({width}).elementwise_affine(false).eps(1e-6));
}

// [sin(v·ω_k), cos(v·ω_k)] for ω_k = 10000^(−k/half), k < half = width/2 (Vaswani et al.
// 2017): values [N] → [N, width] float32.
torch::Tensor sinusoids(const torch::Tensor& values, int64_t width) {
  const int64_t half = width / 2;
  const auto options = torch::TensorOptions().dtype(torch::kFloat).device(values.device());
  const torch::Tensor frequencies =
      torch::exp(-std::log(10000.0) * torch::arange(half, options) / static_cast<double>(half));
  const torch::Tensor angles = values.to(torch::kFloat).unsqueeze(1) * frequencies.unsqueeze(0);
  return torch::cat({angles.sin(), angles.cos()}, -1);
}

}  // namespace

CausalAttentionImpl::CausalAttentionImpl(int64_t width, int64_t heads) : m_heads(heads) {
  m_q = register_module("q", torch::nn::Linear(width, width));
  m_k = register_module("k", torch::nn::Linear(width, width));
  m_v = register_module("v", torch::nn::Linear(width, width));
  m_out = register_module("out", torch::nn::Linear(width, width));
}

torch::Tensor CausalAttentionImpl::forward(const torch::Tensor& query,
                                           const torch::Tensor& keyValue) {
  const int64_t batch = query.size(0), length = query.size(1), width = query.size(2);
  const int64_t keys = keyValue.size(1), headDim = width / m_heads;
  const auto split = [&](const torch::Tensor& x, int64_t n) {
    return x.view({batch, n, m_heads, headDim}).transpose(1, 2);  // [B, H, n, hd]
  };
  const torch::Tensor q = split(m_q(query), length);
  const torch::Tensor k = split(m_k(keyValue), keys);
  const torch::Tensor v = split(m_v(keyValue), keys);
  torch::Tensor scores =
      torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(headDim));
  // Key j > query i is masked to −inf, so its softmax weight is exactly 0 and a change there
  // cannot reach position i, not even by rounding. Key 0 is always visible: no row is empty.
  const torch::Tensor future =
      torch::ones({length, keys}, torch::TensorOptions().dtype(torch::kBool).device(query.device()))
          .triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  const torch::Tensor attended = torch::matmul(torch::softmax(scores, -1), v);
  return m_out(attended.transpose(1, 2).reshape({batch, length, width}));
}

BridgeBlockImpl::BridgeBlockImpl(const BridgeDenoiserConfig& config, bool crossAttention)
    : m_cross(crossAttention) {
  const int64_t width = config.width, sublayers = crossAttention ? 3 : 2;
  m_norm = register_module("norm", plainNorm(width));
  m_modulation = register_module("modulation", torch::nn::Linear(width, 2 * sublayers * width));
  m_selfAttention = register_module("self_attention", CausalAttention(width, config.heads));
  if (crossAttention)
    m_crossAttention = register_module("cross_attention", CausalAttention(width, config.heads));
  m_mlp = register_module(
      "mlp",
      torch::nn::Sequential(torch::nn::Linear(width, config.mlpRatio * width), torch::nn::GELU(),
                            torch::nn::Linear(config.mlpRatio * width, width)));
}

torch::Tensor BridgeBlockImpl::forward(const torch::Tensor& h, const torch::Tensor& time,
                                       const torch::Tensor& memory) {
  // (shift, scale) per sublayer, each [B, 1, width] so it applies to every position alike.
  const std::vector<torch::Tensor> mod =
      m_modulation(F::silu(time)).unsqueeze(1).chunk(m_cross ? 6 : 4, -1);
  const auto modulated = [&](size_t sublayer, const torch::Tensor& x) {
    return m_norm(x) * (1 + mod[2 * sublayer + 1]) + mod[2 * sublayer];
  };
  const torch::Tensor normed = modulated(0, h);
  torch::Tensor out = h + m_selfAttention(normed, normed);
  if (m_cross) out = out + m_crossAttention(modulated(1, out), memory);
  return out + m_mlp->forward(modulated(m_cross ? 2 : 1, out));
}

int64_t BridgeDenoiserConfig::parameterCount() const {
  const bool cross = conditioning == "cross";
  const int64_t w = width, sublayers = cross ? 3 : 2, hidden = mlpRatio * width;
  const int64_t attention = 4 * (w * w + w);
  // The modulation, self- (and cross-) attention and the MLP, biases included; the norm has none.
  const int64_t block = w * 2 * sublayers * w + 2 * sublayers * w + (cross ? 2 : 1) * attention +
                        w * hidden + hidden + hidden * w + w;
  const int64_t input = (cross ? dataDim : dataDim + condDim) * w + w;
  const int64_t condition = cross ? condDim * w + w : 0;
  // Positions, the time MLP's two layers, the final LayerNorm and the output.
  return input + condition + maxPositions * w + 2 * (w * w + w) + depth * block + 2 * w +
         w * dataDim + dataDim;
}

BridgeDenoiserImpl::BridgeDenoiserImpl(const BridgeDenoiserConfig& config) : m_config(config) {
  require(config.dataDim > 0 && config.condDim > 0, "dataDim and condDim must be positive");
  require(config.width > 0 && config.width % 2 == 0, "width must be positive and even");
  require(config.heads > 0 && config.width % config.heads == 0, "heads must divide width");
  require(config.depth > 0 && config.mlpRatio > 0 && config.maxPositions > 0,
          "depth, mlpRatio and maxPositions must be positive");
  require(config.conditioning == "concat" || config.conditioning == "cross",
          "conditioning must be \"concat\" or \"cross\", not \"" + config.conditioning + "\"");
  const bool cross = config.conditioning == "cross";
  const int64_t width = config.width;
  m_input = register_module(
      "input", torch::nn::Linear(cross ? config.dataDim : config.dataDim + config.condDim, width));
  if (cross) m_condition = register_module("condition", torch::nn::Linear(config.condDim, width));
  m_positions = register_module("positions", torch::nn::Embedding(config.maxPositions, width));
  m_timeMlp = register_module(
      "time_mlp", torch::nn::Sequential(torch::nn::Linear(width, width), torch::nn::SiLU(),
                                        torch::nn::Linear(width, width)));
  m_blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.depth; ++i) m_blocks->push_back(BridgeBlock(config, cross));
  m_finalNorm =
      register_module("final_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({width})));
  m_output = register_module("output", torch::nn::Linear(width, config.dataDim));

  torch::NoGradGuard noGrad;
  // Learned, but started from sinusoids: at unit scale, and the dot product of two positions,
  // Σ_k cos((i − j)·ω_k), peaks at i = j, so a causal cross-attention finds its own token early
  // (GPT-2's N(0, 0.02) left it averaging c_0..c_i for hundreds of steps in the tests).
  m_positions->weight.copy_(sinusoids(torch::arange(config.maxPositions), width));
  m_output->weight.zero_();
  m_output->bias.zero_();
}

torch::Tensor BridgeDenoiserImpl::timeEmbedding(const torch::Tensor& t) const {
  // Sinusoids of 1000·t: DDPM (Ho et al. 2020) embeds integer steps 0..999, and the
  // frequencies were chosen for that range (the fastest turns 1 rad per step, the slowest
  // barely moves), so continuous t in [0, 1] is put back on it.
  return sinusoids(1000.0 * t.to(torch::kFloat), m_config.width);
}

torch::Tensor BridgeDenoiserImpl::forward(const torch::Tensor& xt, const torch::Tensor& t,
                                          const torch::Tensor& cond) {
  require(xt.dim() == 3 && xt.size(2) == m_config.dataDim,
          "x_t must be [B, T, " + std::to_string(m_config.dataDim) + "], got " + shapeOf(xt));
  require(cond.dim() == 3 && cond.size(0) == xt.size(0) && cond.size(1) == xt.size(1) &&
              cond.size(2) == m_config.condDim,
          "cond must be [B, T, " + std::to_string(m_config.condDim) + "] like x_t " + shapeOf(xt) +
              ", got " + shapeOf(cond));
  require(t.dim() == 1 && t.size(0) == xt.size(0), "t must be [B], got " + shapeOf(t));
  const int64_t length = xt.size(1);
  require(length <= m_config.maxPositions, "sequence of " + std::to_string(length) +
                                               " exceeds maxPositions " +
                                               std::to_string(m_config.maxPositions));

  const torch::Tensor positions = m_positions->weight.slice(0, 0, length);
  const bool cross = m_config.conditioning == "cross";
  torch::Tensor h = (cross ? m_input(xt) : m_input(torch::cat({xt, cond}, -1))) + positions;
  // The memory carries positions too: without them a causal cross-attention sees only an
  // unordered set of c_0..c_i and cannot tell its own token from the others.
  const torch::Tensor memory = cross ? m_condition(cond) + positions : torch::Tensor();
  const torch::Tensor time = m_timeMlp->forward(timeEmbedding(t).to(h.scalar_type()));
  for (const auto& block : *m_blocks) h = block->as<BridgeBlock>()->forward(h, time, memory);
  return m_output(m_finalNorm(h));
}

int64_t BridgeDenoiserImpl::parameterCount() const {
  int64_t count = 0;
  for (const auto& p : parameters()) count += p.numel();
  return count;
}

}  // namespace strata::model
