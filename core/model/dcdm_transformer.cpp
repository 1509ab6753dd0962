#include "model/dcdm_transformer.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "model/dcdm_masks.h"

namespace strata {
namespace {

torch::nn::Linear projection(int64_t in, int64_t out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

void validate(const DcdmTransformerConfig& c) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("dcdm transformer: " + what);
  };
  if (c.vocab < 1 || c.dim < 1 || c.layers < 1 || c.heads < 1 || c.mlp < 1 || c.maxPositions < 1)
    fail("vocab, dim, layers, heads, mlp and maxPositions must be positive");
  if (c.dim % c.heads != 0) fail("heads must divide dim");
  if (c.variant != "mdlm" && c.variant != "bdlm" && c.variant != "dcdm")
    fail("unknown variant '" + c.variant + "' (mdlm, bdlm or dcdm)");
  if (c.variant == "bdlm" && c.blockSize < 1) fail("blockSize must be positive");
}

void requireTokens(const torch::Tensor& ids, const char* name) {
  if (!ids.defined() || ids.dim() != 2 || c10::isFloatingType(ids.scalar_type()))
    throw std::invalid_argument(std::string(name) + " must be integer token ids [B, T]");
}

}  // namespace

DcdmAttentionImpl::DcdmAttentionImpl(int64_t dim, int64_t heads) : m_heads(heads) {
  m_q = register_module("q", projection(dim, dim));
  m_k = register_module("k", projection(dim, dim));
  m_v = register_module("v", projection(dim, dim));
  m_o = register_module("o", projection(dim, dim));
}

torch::Tensor DcdmAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                         const torch::Tensor& bias) {
  const int64_t batch = x.size(0), length = x.size(1), dim = x.size(2), hd = dim / m_heads;
  auto split = [&](const torch::Tensor& t) {
    return t.view({batch, length, m_heads, hd}).transpose(1, 2);  // [B, H, T, hd]
  };
  const torch::Tensor q = split(m_q(x)), k = split(m_k(x)), v = split(m_v(x));
  torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(static_cast<double>(hd));
  // A −inf mask entry gives softmax weight exactly 0 and a zero gradient to that key: this is
  // what makes the no-leakage property exact rather than approximate.
  if (mask.defined()) scores = scores + mask;
  if (bias.defined()) scores = scores + bias;
  const torch::Tensor attended = torch::matmul(torch::softmax(scores, -1), v);
  return m_o(attended.transpose(1, 2).reshape({batch, length, dim}));
}

DcdmBlockImpl::DcdmBlockImpl(const DcdmTransformerConfig& config) {
  m_attentionNorm = register_module("attention_norm", RmsNorm(config.dim, config.normEps));
  m_attention = register_module("attention", DcdmAttention(config.dim, config.heads));
  m_mlpNorm = register_module("mlp_norm", RmsNorm(config.dim, config.normEps));
  m_mlp = register_module(
      "mlp", torch::nn::Sequential(projection(config.dim, config.mlp), torch::nn::GELU(),
                                   projection(config.mlp, config.dim)));
}

torch::Tensor DcdmBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& mask,
                                     const torch::Tensor& bias) {
  const torch::Tensor h = x + m_attention(m_attentionNorm(x), mask, bias);
  return h + m_mlp->forward(m_mlpNorm(h));
}

DcdmTransformerImpl::DcdmTransformerImpl(const DcdmTransformerConfig& config) : m_config(config) {
  validate(config);
  m_embedding = register_module("embedding", torch::nn::Embedding(config.vocab + 1, config.dim));
  m_positions = register_module("positions", torch::nn::Embedding(config.maxPositions, config.dim));
  {
    torch::NoGradGuard noGrad;  // GPT-2's 0.02: N(0, 1) embeddings would swamp the residuals
    m_embedding->weight.normal_(0.0, 0.02);
    m_positions->weight.normal_(0.0, 0.02);
  }
  m_blocks = register_module("blocks", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.layers; ++i) m_blocks->push_back(DcdmBlock(config));
  m_finalNorm = register_module("final_norm", RmsNorm(config.dim, config.normEps));
  m_head = register_module("head", projection(config.dim, config.vocab));
  if (config.variant == "dcdm") {
    ChunkRouterConfig routerConfig;
    routerConfig.dim = config.dim;
    routerConfig.chunks = config.chunks;
    routerConfig.rank = config.subspaceRank;
    routerConfig.temperature = config.routerTemperature;
    routerConfig.gumbelTemperature = config.gumbelTemperature;
    routerConfig.normEps = config.normEps;
    m_router = register_module("router", ChunkRouter(routerConfig));
  }
}

torch::Tensor DcdmTransformerImpl::embed(const torch::Tensor& ids) {
  requireTokens(ids, "ids");
  const int64_t length = ids.size(1);
  if (length > m_config.maxPositions)
    throw std::invalid_argument("sequence of " + std::to_string(length) + " tokens exceeds " +
                                std::to_string(m_config.maxPositions) + " positions");
  if (ids.numel() > 0 &&
      (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() > m_config.vocab))
    throw std::invalid_argument("token ids must lie in [0, vocab] ([MASK] = vocab)");
  const torch::Tensor positions = torch::arange(length, ids.options().dtype(torch::kLong));
  return m_embedding(ids.to(torch::kLong)) + m_positions(positions).unsqueeze(0);
}

torch::Tensor DcdmTransformerImpl::chunkIds(const torch::Tensor& noisyEmbeddings) {
  const int64_t batch = noisyEmbeddings.size(0), length = noisyEmbeddings.size(1);
  const auto longOptions = noisyEmbeddings.options().dtype(torch::kLong);
  if (m_config.variant == "dcdm") return m_router(noisyEmbeddings).ids;
  if (m_config.variant == "bdlm")
    return positionalChunkIds(length, m_config.blockSize)
        .to(noisyEmbeddings.device())
        .unsqueeze(0)
        .expand({batch, length})
        .contiguous();
  return torch::zeros({batch, length}, longOptions);
}

DcdmTrainingOutput DcdmTransformerImpl::forwardTraining(const torch::Tensor& xt,
                                                        const torch::Tensor& x0,
                                                        const torch::Tensor& noised,
                                                        const DcdmForwardOptions& options) {
  requireTokens(xt, "x_t");
  requireTokens(x0, "x_0");
  if (xt.sizes() != x0.sizes()) throw std::invalid_argument("x_t and x_0 must have one shape");
  return forwardEmbedded(embed(xt), embed(x0), noised, options);
}

DcdmTrainingOutput DcdmTransformerImpl::forwardEmbedded(const torch::Tensor& noisyEmbeddings,
                                                        const torch::Tensor& cleanEmbeddings,
                                                        const torch::Tensor& noised,
                                                        const DcdmForwardOptions& options) {
  if (noisyEmbeddings.dim() != 3 || noisyEmbeddings.size(2) != m_config.dim ||
      cleanEmbeddings.sizes() != noisyEmbeddings.sizes())
    throw std::invalid_argument("noisy and clean embeddings must both be [B, T, dim]");
  const int64_t batch = noisyEmbeddings.size(0), length = noisyEmbeddings.size(1);
  if (!noised.defined() || noised.scalar_type() != torch::kBool ||
      noised.sizes() != torch::IntArrayRef({batch, length}))
    throw std::invalid_argument("the noise mask must be bool [B, T]");
  DcdmTrainingOutput out;
  out.balanceLoss = torch::zeros({}, noisyEmbeddings.options());
  const bool dcdm = m_config.variant == "dcdm";

  if (m_config.variant == "mdlm" && !options.chunkIds.defined()) {
    // One chunk: the noisy stream sees all of x_t and no clean token, so the clean stream
    // could not change the logits; skipping it saves three quarters of the attention.
    out.chunkIds = torch::zeros({batch, length}, noisyEmbeddings.options().dtype(torch::kLong));
    out.logits = run(noisyEmbeddings, {}, {}, length);
    return out;
  }

  ChunkRouting routing;
  if (dcdm) {
    routing = m_router(noisyEmbeddings);  // x_t only: see the header
    out.assignments = routing.assignments;
    out.balanceLoss = m_router->balanceLoss(routing.affinity);
  }
  if (options.chunkIds.defined()) {
    if (options.chunkIds.sizes() != noised.sizes())
      throw std::invalid_argument("chunk id override must be [B, T]");
    out.chunkIds = options.chunkIds.to(noisyEmbeddings.device(), torch::kLong);
  } else {
    out.chunkIds = dcdm ? routing.ids : chunkIds(noisyEmbeddings);
  }

  const torch::Tensor mask = dualStreamMask(out.chunkIds, noised.to(out.chunkIds.device()));
  torch::Tensor bias;
  if (dcdm && options.softOrderBias) {
    // Both streams hold the same positions, so each of the four blocks gets the same
    // log P(c_m <= c_l); where a block's mask forbids a pair, the −inf wins.
    bias = chunkRelationLogProbability(routing.assignments, ChunkRelation::AtMost)
               .repeat({1, 2, 2})
               .unsqueeze(1);
  }
  out.logits = run(torch::cat({noisyEmbeddings, cleanEmbeddings}, 1), mask, bias, length);
  return out;
}

torch::Tensor DcdmTransformerImpl::forwardSampling(const torch::Tensor& x, const torch::Tensor& ids,
                                                   const DcdmForwardOptions& options) {
  requireTokens(x, "x");
  if (!ids.defined() || ids.sizes() != x.sizes())
    throw std::invalid_argument("sampling needs chunk ids shaped like x");
  const torch::Tensor h = embed(x);
  const torch::Tensor chunk = ids.to(x.device(), torch::kLong);
  const torch::Tensor mask = chunkCausalMask(chunk);
  torch::Tensor bias;
  if (m_config.variant == "dcdm" && options.softOrderBias)
    bias = chunkRelationLogProbability(m_router(h).assignments, ChunkRelation::AtMost).unsqueeze(1);
  return run(h, mask, bias, x.size(1));
}

torch::Tensor DcdmTransformerImpl::run(torch::Tensor h, const torch::Tensor& mask,
                                       const torch::Tensor& bias, int64_t outputs) {
  for (const auto& block : *m_blocks) h = block->as<DcdmBlock>()->forward(h, mask, bias);
  return m_head(m_finalNorm(h.slice(1, 0, outputs)));
}

int64_t DcdmTransformerImpl::parameterCount() const {
  int64_t count = 0;
  for (const auto& parameter : parameters()) count += parameter.numel();
  return count;
}

int64_t DcdmTransformerImpl::routerParameterCount() const {
  return m_router.is_empty() ? 0 : m_router->parameterCount();
}

}  // namespace strata
