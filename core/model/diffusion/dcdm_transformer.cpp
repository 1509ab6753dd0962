#include "model/diffusion/dcdm_transformer.h"

#include <stdexcept>
#include <string>

#include "model/backbone/attention.h"
#include "model/diffusion/dcdm_masks.h"

namespace strata::model {

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
  if (c.variant == DlmVariant::Bdlm && c.blockSize < 1) fail("blockSize must be positive");
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
  return attend(m_q(x), m_k(x), m_v(x), mask, bias, x.size(1));
}

torch::Tensor DcdmAttentionImpl::attend(const torch::Tensor& queries, torch::Tensor keys,
                                        torch::Tensor values, const torch::Tensor& mask,
                                        const torch::Tensor& bias, int64_t rows,
                                        LayerKvCache* cache) {
  const int64_t batch = queries.size(0), dim = queries.size(2), hd = dim / m_heads;
  auto split = [&](const torch::Tensor& t) {
    return t.view({batch, -1, m_heads, hd}).transpose(1, 2);  // [B, H, T, hd]
  };
  const torch::Tensor q = split(queries);
  torch::Tensor k = split(keys), v = split(values);
  if (cache != nullptr && cache->keys.defined()) {
    k = torch::cat({cache->keys, k}, 2);
    v = torch::cat({cache->values, v}, 2);
  }
  // A −inf mask entry gives softmax weight exactly 0 and a zero gradient to that key: this is
  // what makes the no-leakage property exact rather than approximate. Mask and bias add into
  // one additive mask (−inf + bias is −inf), which scaled-dot-product attention takes as is.
  torch::Tensor additive = mask;
  if (bias.defined()) additive = additive.defined() ? additive + bias : bias;
  const torch::Tensor attended = scaledDotProductAttention(q, k, v, additive);
  if (cache != nullptr) {
    cache->keys = k;
    cache->values = v;
  }
  return m_o(attended.transpose(1, 2).reshape({batch, rows, dim}));
}

torch::Tensor DcdmAttentionImpl::forwardCached(const torch::Tensor& x, const torch::Tensor& bias,
                                               LayerKvCache& cache, bool commit) {
  // Without commit the cache is read but left as it was.
  LayerKvCache extended = cache;
  const torch::Tensor out = attend(m_q(x), m_k(x), m_v(x), {}, bias, x.size(1), &extended);
  if (commit) cache = extended;
  return out;
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

torch::Tensor DcdmBlockImpl::forwardCached(const torch::Tensor& x, const torch::Tensor& bias,
                                           LayerKvCache& cache, bool commit) {
  const torch::Tensor h = x + m_attention->forwardCached(m_attentionNorm(x), bias, cache, commit);
  return h + m_mlp->forward(m_mlpNorm(h));
}

int64_t DcdmTransformerConfig::parameterCount() const {
  // Attention's four projections, the MLP's two, two norms; no biases.
  const int64_t block = 4 * dim * dim + 2 * dim * mlp + 2 * dim;
  // The embedding with [MASK], positions, the final norm and the head.
  int64_t count = (vocab + 1) * dim + maxPositions * dim + layers * block + dim + dim * vocab;
  if (variant == DlmVariant::Dcdm)  // the router's subspaces and its context projections
    count += chunks * dim * subspaceRank + 2 * dim * dim;
  return count;
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
  if (config.variant == DlmVariant::Dcdm) {
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
  // Checked on the CPU only: on a GPU, reading min and max would make the host wait at every
  // step, and the embedding kernel checks its indices itself.
  if (ids.numel() > 0 && ids.is_cpu() &&
      (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() > m_config.vocab))
    throw std::invalid_argument("token ids must lie in [0, vocab] ([MASK] = vocab)");
  const torch::Tensor positions = torch::arange(length, ids.options().dtype(torch::kLong));
  return m_embedding(ids.to(torch::kLong)) + m_positions(positions).unsqueeze(0);
}

ChunkLayout DcdmTransformerImpl::chunkLayout(const torch::Tensor& x0, const torch::Tensor& pinned) {
  requireTokens(x0, "x_0");
  const int64_t batch = x0.size(0), length = x0.size(1);
  if (pinned.defined() && pinned.sizes() != x0.sizes())
    throw std::invalid_argument("pinned positions must be shaped like the tokens");
  if (m_config.variant == DlmVariant::Dcdm)
    return routeChunkSequentially(
        *m_router, [this](const torch::Tensor& ids) { return embed(ids); }, x0, m_config.maskId(),
        pinned);
  ChunkLayout layout;
  if (m_config.variant == DlmVariant::Bdlm) {
    layout = positionalChunkLayout(batch, length, m_config.blockSize);
    layout.ids = layout.ids.to(x0.device());
  } else {  // one chunk, made where it is used (no copy for the host to wait on)
    layout.ids = torch::zeros({batch, length}, x0.options().dtype(torch::kLong));
    layout.chunks = 1;
  }
  if (pinned.defined())
    layout.ids = layout.ids.masked_fill(pinned.to(x0.device(), torch::kBool), 0);
  return layout;
}

torch::Tensor DcdmTransformerImpl::balanceLoss(const ChunkLayout& layout) {
  if (!hasRouter() || !layout.affinity.defined()) return torch::zeros({}, m_head->weight.options());
  return m_router->balanceLoss(layout.affinity);
}

torch::Tensor DcdmTransformerImpl::trainingMask(const ChunkLayout& layout) const {
  return blockDiffusionMask(layout.ids.to(torch::kLong));
}

torch::Tensor DcdmTransformerImpl::forwardTraining(const torch::Tensor& xt, const torch::Tensor& x0,
                                                   const ChunkLayout& layout,
                                                   const DcdmForwardOptions& options) {
  requireTokens(xt, "x_t");
  requireTokens(x0, "x_0");
  if (xt.sizes() != x0.sizes()) throw std::invalid_argument("x_t and x_0 must have one shape");
  if (layout.chunks == 1 && !layout.orderBias.defined())  // forwardEmbedded's one-chunk path
    return run(embed(xt), {}, {}, xt.size(1));            // never reads the clean stream
  return forwardEmbedded(embed(xt), embed(x0), layout, options);
}

torch::Tensor DcdmTransformerImpl::forwardEmbedded(const torch::Tensor& noisyEmbeddings,
                                                   const torch::Tensor& cleanEmbeddings,
                                                   const ChunkLayout& layout,
                                                   const DcdmForwardOptions& options) {
  if (noisyEmbeddings.dim() != 3 || noisyEmbeddings.size(2) != m_config.dim ||
      cleanEmbeddings.sizes() != noisyEmbeddings.sizes())
    throw std::invalid_argument("noisy and clean embeddings must both be [B, T, dim]");
  const int64_t batch = noisyEmbeddings.size(0), length = noisyEmbeddings.size(1);
  if (!layout.ids.defined() || layout.ids.sizes() != torch::IntArrayRef({batch, length}))
    throw std::invalid_argument("the chunk layout must be [B, T] like the tokens");
  if (layout.chunks == 1 && !layout.orderBias.defined()) {
    // One chunk: the noisy stream sees all of x_t and no clean token, so the clean stream
    // could not change the logits; skipping it saves three quarters of the attention.
    return run(noisyEmbeddings, {}, {}, length);
  }
  const torch::Tensor mask = trainingMask(layout).to(noisyEmbeddings.device());
  torch::Tensor bias;
  if (options.softOrderBias && layout.orderBias.defined()) {
    // Both streams hold the same positions, so each of the four blocks gets the same
    // log P(c_m <= c_l); where a block's mask forbids a pair, the −inf wins.
    bias = layout.orderBias.repeat({1, 2, 2}).unsqueeze(1);
  }
  return run(torch::cat({noisyEmbeddings, cleanEmbeddings}, 1), mask, bias, length);
}

torch::Tensor DcdmTransformerImpl::forwardSampling(const torch::Tensor& x,
                                                   const ChunkLayout& layout,
                                                   const DcdmForwardOptions& options) {
  requireTokens(x, "x");
  if (!layout.ids.defined() || layout.ids.sizes() != x.sizes())
    throw std::invalid_argument("sampling needs chunk ids shaped like x");
  const torch::Tensor mask = chunkCausalMask(layout.ids.to(x.device(), torch::kLong));
  torch::Tensor bias;
  if (options.softOrderBias && layout.orderBias.defined()) bias = layout.orderBias.unsqueeze(1);
  return run(embed(x), mask, bias, x.size(1));
}

torch::Tensor DcdmTransformerImpl::forwardSamplingCached(const torch::Tensor& x,
                                                         const ChunkLayout& layout,
                                                         const torch::Tensor& rows,
                                                         DcdmKvCache& cache, bool commit,
                                                         const DcdmForwardOptions& options) {
  requireTokens(x, "x");
  if (!layout.ids.defined() || layout.ids.sizes() != x.sizes())
    throw std::invalid_argument("sampling needs chunk ids shaped like x");
  if (!rows.defined() || rows.dim() != 1 || rows.numel() == 0)
    throw std::invalid_argument("cached sampling needs the positions of one chunk");
  const torch::Tensor positions = rows.to(x.device(), torch::kLong);
  const torch::Tensor keys =
      cache.positions.defined() ? torch::cat({cache.positions, positions}) : positions;
  torch::Tensor bias;
  if (options.softOrderBias && layout.orderBias.defined())
    bias = layout.orderBias.index_select(1, positions).index_select(2, keys).unsqueeze(1);
  if (cache.layers.empty()) cache.layers.resize(m_blocks->size());
  torch::Tensor h = embed(x).index_select(1, positions);
  for (size_t i = 0; i < m_blocks->size(); ++i)
    h = (*m_blocks)[i]->as<DcdmBlock>()->forwardCached(h, bias, cache.layers[i], commit);
  if (commit) cache.positions = keys;
  return m_head(m_finalNorm(h));
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

}  // namespace strata::model
