#include "model/trainable/trainable_llama.h"

#include <cmath>
#include <stdexcept>

namespace strata::model {

int64_t TrainableLlamaConfig::parameterCount() const {
  const int64_t keyValue = kvHeads * headDim();
  // q and o, k and v, gate, up and down, two norms.
  const int64_t block = 2 * dim * heads * headDim() + 2 * dim * keyValue + 3 * dim * mlp + 2 * dim;
  return vocabSize * dim + layers * block + dim;
}

namespace {

namespace F = torch::nn::functional;

torch::nn::Linear projection(int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

// HF rotate_half: (x1, x2) → (−x2, x1) over the two halves of the head vector.
torch::Tensor rotateHalf(const torch::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  return torch::cat({-x.slice(-1, half), x.slice(-1, 0, half)}, -1);
}

}  // namespace

RmsNormImpl::RmsNormImpl(int64_t dim, double eps) : m_eps(eps) {
  m_weight = register_parameter("weight", torch::ones({dim}));
}

torch::Tensor RmsNormImpl::forward(const torch::Tensor& x) {
  const torch::Tensor wide = x.to(torch::kFloat);
  const torch::Tensor normed = wide * torch::rsqrt(wide.pow(2).mean(-1, true) + m_eps);
  return m_weight * normed.to(x.scalar_type());
}

LlamaAttentionImpl::LlamaAttentionImpl(const TrainableLlamaConfig& config) : m_config(config) {
  const int64_t hd = config.headDim();
  m_q = register_module("q_proj", projection(config.dim, config.heads * hd));
  m_k = register_module("k_proj", projection(config.dim, config.kvHeads * hd));
  m_v = register_module("v_proj", projection(config.dim, config.kvHeads * hd));
  m_o = register_module("o_proj", projection(config.heads * hd, config.dim));
}

torch::Tensor LlamaAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                          const torch::Tensor& sin) {
  const int64_t batch = x.size(0), length = x.size(1), hd = m_config.headDim();
  const int64_t heads = m_config.heads, kvHeads = m_config.kvHeads;
  torch::Tensor q = m_q(x).view({batch, length, heads, hd}).transpose(1, 2);
  torch::Tensor k = m_k(x).view({batch, length, kvHeads, hd}).transpose(1, 2);
  torch::Tensor v = m_v(x).view({batch, length, kvHeads, hd}).transpose(1, 2);
  q = q * cos + rotateHalf(q) * sin;
  k = k * cos + rotateHalf(k) * sin;
  if (kvHeads != heads) {  // repeat_kv: query head h reads key/value head h / (H / KV)
    k = k.repeat_interleave(heads / kvHeads, 1);
    v = v.repeat_interleave(heads / kvHeads, 1);
  }
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
  const torch::Tensor future =
      torch::ones({length, length}, torch::TensorOptions().dtype(torch::kBool).device(x.device()))
          .triu(1);
  scores = scores.masked_fill(future, -std::numeric_limits<float>::infinity());
  const torch::Tensor attended = torch::matmul(torch::softmax(scores, -1), v);
  return m_o(attended.transpose(1, 2).reshape({batch, length, heads * hd}));
}

LlamaMlpImpl::LlamaMlpImpl(const TrainableLlamaConfig& config) {
  m_gate = register_module("gate_proj", projection(config.dim, config.mlp));
  m_up = register_module("up_proj", projection(config.dim, config.mlp));
  m_down = register_module("down_proj", projection(config.mlp, config.dim));
}

torch::Tensor LlamaMlpImpl::forward(const torch::Tensor& x) {
  return m_down(F::silu(m_gate(x)) * m_up(x));
}

LlamaDecoderLayerImpl::LlamaDecoderLayerImpl(const TrainableLlamaConfig& config) {
  m_inputNorm = register_module("input_layernorm", RmsNorm(config.dim, config.normEps));
  m_attention = register_module("self_attn", LlamaAttention(config));
  m_postAttentionNorm =
      register_module("post_attention_layernorm", RmsNorm(config.dim, config.normEps));
  m_mlp = register_module("mlp", LlamaMlp(config));
}

torch::Tensor LlamaDecoderLayerImpl::forward(const torch::Tensor& x, const torch::Tensor& cos,
                                             const torch::Tensor& sin) {
  const torch::Tensor h = x + m_attention(m_inputNorm(x), cos, sin);
  return h + m_mlp(m_postAttentionNorm(h));
}

LlamaTrunkImpl::LlamaTrunkImpl(const TrainableLlamaConfig& config) : m_config(config) {
  if (config.dim % config.heads != 0 || config.heads % config.kvHeads != 0 ||
      config.headDim() % 2 != 0)
    throw std::invalid_argument(
        "TrainableLlama: dim must divide into heads of even size, and kv-heads divide heads");
  m_embed = register_module("embed_tokens", torch::nn::Embedding(config.vocabSize, config.dim));
  m_layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.layers; ++i) m_layers->push_back(LlamaDecoderLayer(config));
  m_norm = register_module("norm", RmsNorm(config.dim, config.normEps));
  // θ_i = base^(−2i/headDim), in float32 as LlamaRotaryEmbedding computes it.
  const int64_t hd = config.headDim();
  m_inverseFrequencies =
      1.0 / torch::pow(config.ropeTheta, torch::arange(0, hd, 2, torch::kInt64).to(torch::kFloat) /
                                             static_cast<double>(hd));
}

torch::Tensor LlamaTrunkImpl::forward(const torch::Tensor& ids) {
  const int64_t length = ids.size(1);
  const torch::Tensor positions = torch::arange(length, torch::kInt64).to(torch::kFloat);
  const torch::Tensor angles = torch::outer(positions, m_inverseFrequencies);
  const torch::Tensor both = torch::cat({angles, angles}, -1).to(ids.device());
  const torch::Tensor cos = both.cos(), sin = both.sin();
  torch::Tensor h = m_embed(ids);
  for (const auto& layer : *m_layers) h = layer->as<LlamaDecoderLayer>()->forward(h, cos, sin);
  return m_norm(h);
}

TrainableLlamaImpl::TrainableLlamaImpl(const TrainableLlamaConfig& config) : m_config(config) {
  m_model = register_module("model", LlamaTrunk(config));
}

torch::Tensor TrainableLlamaImpl::forward(const torch::Tensor& ids) {
  return F::linear(m_model(ids), m_model->embeddingWeight());
}

torch::Tensor TrainableLlamaImpl::loss(const torch::Tensor& ids) {
  const int64_t length = ids.size(1) - 1;
  const torch::Tensor logits = forward(ids.slice(1, 0, length));
  return F::cross_entropy(logits.reshape({-1, logits.size(-1)}), ids.slice(1, 1).reshape({-1}));
}

void TrainableLlamaImpl::initialiseWeights() {
  torch::NoGradGuard noGrad;
  const double residualStd = 0.02 / std::sqrt(2.0 * static_cast<double>(m_config.layers));
  for (auto& item : named_parameters()) {
    const std::string& name = item.key();
    torch::Tensor& p = item.value();
    if (p.dim() == 1)
      p.fill_(1.0);
    else if (name.ends_with("o_proj.weight") || name.ends_with("down_proj.weight"))
      p.normal_(0.0, residualStd);
    else
      p.normal_(0.0, 0.02);
  }
}

std::vector<std::pair<std::string, torch::Tensor>> TrainableLlamaImpl::huggingFaceTensors() const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : named_parameters()) out.emplace_back(item.key(), item.value().detach());
  return out;
}

}  // namespace strata::model
