// A Hugging Face checkpoint as trainable parameters (see trainable_backbone.h).

#include "model/trainable/trainable_backbone.h"

#include <algorithm>
#include <stdexcept>

#include "common/error.h"
#include "io/arch/architecture_spec.h"
#include "model/backbone/attention.h"
#include "model/backbone/blocks.h"
#include "model/backbone/weight_layout.h"
#include "model/backbone/weight_loader.h"
#include "model/random/random_draws.h"
#include "model/random/seeded_generator.h"

namespace strata::model {

namespace {

/** torch::nn::Module names may not contain dots; HF names are dotted. */
std::string moduleName(std::string name) {
  std::replace(name.begin(), name.end(), '.', '_');
  return name;
}

}  // namespace

TrainableBackboneImpl::TrainableBackboneImpl(const std::filesystem::path& folder, int64_t maskId) {
  const std::filesystem::path configFile = folder / "config.json";
  m_config = io::readModelConfig(configFile);
  // The trainable copy runs the blocks itself but embeds and heads the Llama / GPT way: an
  // architecture whose descriptor says otherwise (Gemma-3) would silently compute another model.
  if (!io::architectureSpec(m_config.architecture).trainable)
    throw ConfigError(configFile, "architectures",
                      m_config.architectureName +
                          " cannot be trained by Strata yet (only read: capture, generate, "
                          "verify); use a Llama, Qwen, GPT-2 or GPT-NeoX model");
  m_activation = blockActivation(m_config, configFile);
  const WeightLoader loader(folder, m_config, torch::kCPU, torch::kFloat, /*borrowMapped=*/false);
  const WeightLayout& layout = loader.layout();

  const auto adopt = [&](const std::string& name, const torch::Tensor& tensor) {
    torch::Tensor& parameter = register_parameter(moduleName(name), tensor.detach().clone());
    m_named.emplace_back(name, parameter);
    return parameter;
  };
  const OuterWeights outer = loader.outer();
  for (const OuterSlot& slot : layout.outerSlots)
    if (!slot.name.empty() && (outer.*slot.field).defined())
      m_outer.*slot.field = adopt(slot.name, outer.*slot.field);
  m_tiedHead = layout.tiedHead;
  if (m_tiedHead) m_outer.head = m_outer.tokens;
  for (int64_t layer = 0; layer < m_config.numLayers; ++layer) {
    const BlockWeights loaded = loader.block(layer);
    BlockWeights& block = m_blocks.emplace_back();
    for (const BlockSlot& slot : layout.blockSlots)
      if ((loaded.*slot.field).defined())
        block.*slot.field = adopt(layout.blockTensorName(layer, slot), loaded.*slot.field);
  }

  const at::Tensor frequencies = rotaryInverseFrequencies(m_config, configFile);
  if (frequencies.defined())
    m_inverseFrequencies =
        register_buffer("rope_inverse_frequencies", frequencies.to(torch::kFloat));
  if (maskId >= 0) {
    if (maskId >= m_config.vocabSize)
      throw std::invalid_argument("mask token id " + std::to_string(maskId) +
                                  " is outside the model's vocabulary of " +
                                  std::to_string(m_config.vocabSize));
    m_maskId = maskId;
  } else {
    m_maskId = m_config.vocabSize;
    m_maskEmbedding =
        register_parameter("mask_embedding", m_outer.tokens.detach().mean(0, true).clone());
  }
}

torch::Tensor TrainableBackboneImpl::embed(const torch::Tensor& ids,
                                           const AttentionOptions& attention) const {
  if (!ids.defined() || ids.dim() != 2) throw std::invalid_argument("ids must be [B, T]");
  const int64_t limit = addedMaskToken() ? m_config.vocabSize + 1 : m_config.vocabSize;
  if (ids.numel() > 0 && (ids.min().item<int64_t>() < 0 || ids.max().item<int64_t>() >= limit))
    throw std::invalid_argument("token ids must lie in 0.." + std::to_string(limit - 1));
  const torch::Tensor tokens = ids.to(torch::kLong);
  torch::Tensor hidden = torch::embedding(m_outer.tokens, tokens.clamp_max(m_config.vocabSize - 1));
  if (addedMaskToken())
    hidden = torch::where((tokens == m_maskId).unsqueeze(-1), m_maskEmbedding, hidden);
  if (m_outer.positions.defined())  // GPT-2's learned positions
    hidden = hidden +
             torch::embedding(m_outer.positions,
                              resolvePositions(attention, ids.size(0), ids.size(1), ids.device()));
  return hidden;
}

torch::Tensor TrainableBackboneImpl::finalNorm(const torch::Tensor& hidden) const {
  return finalNormOf(m_config, hidden, m_outer.finalNorm, m_outer.finalNormBias);
}

TrainableForward TrainableBackboneImpl::forward(const torch::Tensor& ids,
                                                const AttentionOptions& attention,
                                                bool keepHidden) {
  TrainableForward out;
  torch::Tensor h = embed(ids, attention);
  const BlockContext context{&m_config, m_activation,
                             prepareAttention(attention, ids.size(0), ids.size(1),
                                              m_inverseFrequencies, h.device(), h.scalar_type())};
  if (keepHidden) out.hidden.push_back(h);
  for (std::size_t layer = 0; layer < m_blocks.size(); ++layer) {
    h = runBlock(m_blocks[layer], h, context, static_cast<int64_t>(layer));
    if (keepHidden && layer + 1 < m_blocks.size()) out.hidden.push_back(h);
  }
  if (keepHidden) out.preNorm = h;
  h = finalNorm(h);
  if (keepHidden) out.hidden.push_back(h);
  out.logits = torch::nn::functional::linear(h, m_outer.head);
  return out;
}

void TrainableBackboneImpl::freezeEmbeddings() {
  for (torch::Tensor* tensor : {&m_outer.tokens, &m_outer.positions, &m_outer.head})
    if (tensor->defined()) tensor->set_requires_grad(false);
}

void TrainableBackboneImpl::reinitialise(uint64_t seed) {
  torch::NoGradGuard noGrad;
  // Drawn on the CPU whatever the parameters' device, so a seed gives the same weights on every
  // device (a CUDA generator's stream differs from the CPU's), then copied.
  const at::Generator generator = seededGenerator(seed, torch::kCPU);
  const auto floats = torch::TensorOptions(torch::kFloat).device(torch::kCPU);
  constexpr double kInitializerRange = 0.02;
  // m_named lists each tensor once (a tied head is the embedding itself), in a fixed order.
  for (auto& [name, parameter] : m_named) {
    if (name.ends_with("bias"))
      parameter.zero_();
    else if (parameter.dim() == 1)
      parameter.fill_(1.0);  // norm scales
    else
      parameter.copy_(normalDraw(parameter.sizes(), floats, generator) * kInitializerRange);
  }
  if (m_maskEmbedding.defined()) m_maskEmbedding.copy_(m_outer.tokens.mean(0, true));
}

void TrainableBackboneImpl::freezeMlps() {
  for (BlockWeights& block : m_blocks)
    for (torch::Tensor* tensor :
         {&block.gate, &block.gateBias, &block.up, &block.upBias, &block.down, &block.downBias})
      if (tensor->defined()) tensor->set_requires_grad(false);
}

std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>>
TrainableBackboneImpl::trainableParameters() const {
  std::vector<torch::Tensor> matrices, rest;
  for (const torch::Tensor& p : parameters())
    if (p.requires_grad()) (p.dim() == 2 && p.size(0) > 1 ? matrices : rest).push_back(p);
  return {matrices, rest};
}

int64_t TrainableBackboneImpl::parameterCount(bool trainableOnly) const {
  int64_t count = 0;
  for (const torch::Tensor& p : parameters())
    if (!trainableOnly || p.requires_grad()) count += p.numel();
  return count;
}

std::vector<std::pair<std::string, torch::Tensor>> TrainableBackboneImpl::huggingFaceTensors()
    const {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& [name, parameter] : m_named) {
    torch::Tensor tensor = parameter.detach();
    if (addedMaskToken() && parameter.is_same(m_outer.tokens))
      tensor = torch::cat({tensor, m_maskEmbedding.detach()});
    else if (addedMaskToken() && parameter.is_same(m_outer.head))
      tensor = torch::cat({tensor, torch::zeros_like(m_maskEmbedding)});
    out.emplace_back(name, tensor);
  }
  return out;
}

}  // namespace strata::model
