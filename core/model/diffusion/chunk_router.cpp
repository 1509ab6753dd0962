#include "model/diffusion/chunk_router.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "model/random/random_draws.h"

namespace strata::model {

namespace {

constexpr double kMinProbability = 1e-9;

torch::nn::Linear projection(int64_t dim) {
  return torch::nn::Linear(torch::nn::LinearOptions(dim, dim).bias(false));
}

}  // namespace

torch::Tensor chunkRelationLogProbability(const torch::Tensor& assignments,
                                          ChunkRelation relation) {
  if (!assignments.defined() || assignments.dim() != 3)
    throw std::invalid_argument("chunk assignments must be shaped [B, T, K]");
  // Key side of each relation: P(c_m == k), P(c_m < k) or P(c_m <= k), per chunk k.
  torch::Tensor keySide;
  switch (relation) {
    case ChunkRelation::Same:
      keySide = assignments;
      break;
    case ChunkRelation::AtMost:
      keySide = assignments.cumsum(-1);
      break;
    case ChunkRelation::Before:
      keySide = assignments.cumsum(-1) - assignments;
      break;
  }
  // P(relation) = Σ_k p_l(k) · keySide_m(k): [B, T, K] × [B, K, T] → [B, T, T].
  torch::Tensor result =
      torch::matmul(assignments, keySide.transpose(1, 2)).clamp_min(kMinProbability).log();
  // A token and itself share one chunk: the independent-draw formula does not apply there.
  const int64_t length = assignments.size(1);
  const torch::Tensor self =
      torch::eye(length, assignments.options().dtype(torch::kBool)).unsqueeze(0);
  const double diagonal = relation == ChunkRelation::Before ? std::log(kMinProbability) : 0.0;
  return result.masked_fill(self, diagonal);
}

torch::Tensor chunkLoads(const torch::Tensor& ids, int64_t chunks) {
  if (chunks < 1) throw std::invalid_argument("chunk loads need at least one chunk");
  const torch::Tensor flat = ids.reshape({-1}).to(torch::kLong);
  if (flat.numel() == 0) return torch::full({chunks}, 1.0 / static_cast<double>(chunks));
  // Checked on the CPU only: on a GPU, reading min and max would make the host wait (as
  // bincount does there), and scatter_add checks its indices itself.
  if (flat.is_cpu() && (flat.min().item<int64_t>() < 0 || flat.max().item<int64_t>() >= chunks))
    throw std::invalid_argument("chunk ids must lie in [0, " + std::to_string(chunks) + ")");
  const auto floats = torch::TensorOptions(torch::kFloat).device(flat.device());
  const torch::Tensor counts =
      torch::zeros({chunks}, floats).scatter_add_(0, flat, torch::ones({flat.numel()}, floats));
  return counts / static_cast<double>(flat.numel());
}

ChunkRouterImpl::ChunkRouterImpl(const ChunkRouterConfig& config) : m_config(config) {
  const int64_t d = config.dim, k = config.chunks, h = config.rank;
  if (d < 1 || k < 2 || h < 1 || h > d)
    throw std::invalid_argument(
        "chunk router needs dim >= 1, chunks >= 2 and 1 <= rank <= dim, "
        "got dim " +
        std::to_string(d) + ", chunks " + std::to_string(k) + ", rank " + std::to_string(h));
  if (!(config.temperature > 0.0) || !(config.gumbelTemperature > 0.0))
    throw std::invalid_argument("chunk router temperatures must be positive");
  // K random orthonormal bases: every subspace starts with the same expected energy (≈ 1 for
  // x̃ of unit RMS), so no chunk is favoured before training.
  torch::Tensor bases = torch::empty({k, d, h});
  {
    torch::NoGradGuard noGrad;
    for (int64_t i = 0; i < k; ++i) torch::nn::init::orthogonal_(bases[i]);
  }
  m_subspaces = register_parameter("subspaces", bases);
  m_balanceBias = register_buffer("balance_bias", torch::zeros({k}));
  m_query = register_module("context_q", projection(d));
  m_key = register_module("context_k", projection(d));
}

torch::Tensor ChunkRouterImpl::normalise(const torch::Tensor& x) const {
  return x * torch::rsqrt(x.pow(2).mean(-1, true) + m_config.normEps);
}

torch::Tensor ChunkRouterImpl::affinity(const torch::Tensor& x) {
  if (!x.defined() || x.dim() != 3 || x.size(2) != m_config.dim)
    throw std::invalid_argument("chunk router input must be shaped [B, T, " +
                                std::to_string(m_config.dim) + "]");
  const torch::Tensor u = normalise(x);
  const double scale = 1.0 / std::sqrt(static_cast<double>(m_config.dim));
  const torch::Tensor weights =
      torch::softmax(torch::matmul(m_query(u), m_key(u).transpose(1, 2)) * scale, -1);
  const torch::Tensor context = normalise(u + torch::matmul(weights, u));  // x̃ [B, T, d]
  // μ_kᵀ x̃_l for every k at once: [B, T, d] × [d, K·h] → [B, T, K, h].
  const int64_t k = m_config.chunks, h = m_config.rank;
  const torch::Tensor flatBases = m_subspaces.permute({1, 0, 2}).reshape({m_config.dim, k * h});
  const torch::Tensor projected =
      torch::matmul(context, flatBases).view({x.size(0), x.size(1), k, h});
  return projected.pow(2).sum(-1) / static_cast<double>(h);
}

ChunkRouting ChunkRouterImpl::forward(const torch::Tensor& x) {
  ChunkRouting routing;
  routing.affinity = affinity(x);
  routing.assignments = torch::softmax(routing.affinity / m_config.temperature, -1);
  routing.ids = (routing.affinity.detach() + m_balanceBias).argmax(-1);
  return routing;
}

torch::Tensor ChunkRouterImpl::balanceLoss(const torch::Tensor& affinity) const {
  const int64_t k = m_config.chunks;
  const torch::Tensor logits = (affinity + m_balanceBias) / m_config.temperature;
  // Gumbel(0, 1) noise; the clamp keeps log(−log u) finite at u = 0 or 1.
  const torch::Tensor u = uniformLike(logits).clamp(1e-10, 1.0 - 1e-7);
  const torch::Tensor gumbel = -torch::log(-torch::log(u));
  const torch::Tensor soft = torch::softmax((logits + gumbel) / m_config.gumbelTemperature, -1);
  const torch::Tensor hard = torch::one_hot(soft.argmax(-1), k).to(soft.scalar_type());
  const torch::Tensor straight = hard + soft - soft.detach();  // forward hard, gradient soft
  const torch::Tensor loads = straight.mean(1);                // f [B, K], per sequence
  const double uniform = 1.0 / static_cast<double>(k);
  const torch::Tensor perSequence =
      (loads - uniform).pow(2).sum(-1) * (static_cast<double>(k) / static_cast<double>(k - 1));
  return perSequence.mean();
}

void ChunkRouterImpl::updateBalanceBias(const torch::Tensor& loads, double rate) {
  const int64_t k = m_config.chunks;
  if (!loads.defined() || loads.numel() != k)
    throw std::invalid_argument("balance update needs one load per chunk (" + std::to_string(k) +
                                ")");
  torch::NoGradGuard noGrad;
  const torch::Tensor fractions = loads.detach().to(m_balanceBias.options()).reshape({k});
  const torch::Tensor total = fractions.sum();
  // No tokens seen: nothing to balance. Decided on the device, so the host never waits.
  const torch::Tensor seen = total > 0;
  const torch::Tensor direction = torch::sign(total / static_cast<double>(k) - fractions);
  m_balanceBias.add_(torch::where(seen, direction * rate, torch::zeros_like(direction)));
  const torch::Tensor mean = m_balanceBias.mean();
  m_balanceBias.sub_(torch::where(seen, mean, torch::zeros_like(mean)));
}

int64_t ChunkRouterImpl::parameterCount() const {
  int64_t count = 0;
  for (const auto& parameter : parameters()) count += parameter.numel();
  return count;
}

}  // namespace strata::model
