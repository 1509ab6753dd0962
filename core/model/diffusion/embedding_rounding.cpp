// Nearest-embedding rounding (see embedding_rounding.h).

#include "model/diffusion/embedding_rounding.h"

#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "model/backbone/backbone.h"

namespace strata::model {

EmbeddingRounding::EmbeddingRounding(const Backbone& model) : m_model(model) {
  torch::NoGradGuard noGrad;
  const int64_t vocab = model.config().vocabSize;
  const torch::Tensor ids = torch::arange(vocab, torch::kInt64).unsqueeze(1);  // [V, 1]: position 0
  m_table = model.embed(ids).squeeze(1).to(torch::kCPU, torch::kFloat);
  m_rowNorms = m_table.pow(2).sum(-1);
}

torch::Tensor EmbeddingRounding::tokens(const torch::Tensor& hidden) const {
  torch::NoGradGuard noGrad;
  const int64_t length = hidden.size(1), d = hidden.size(2);
  // Position offsets P_p − P_0 (zero for rotary models): embed token 0 at every position.
  const torch::Tensor zeros = torch::zeros({1, length}, torch::kInt64);
  const torch::Tensor offsets = m_model.embed(zeros).to(torch::kCPU, torch::kFloat)[0] - m_table[0];
  const torch::Tensor rows = (hidden.to(torch::kCPU, torch::kFloat) - offsets).reshape({-1, d});
  std::vector<torch::Tensor> chosen;
  // Chunks of rows keep the [rows, V] score matrix small for large vocabularies.
  const int64_t chunk = 256;
  for (int64_t first = 0; first < rows.size(0); first += chunk) {
    const torch::Tensor part = rows.slice(0, first, std::min(first + chunk, rows.size(0)));
    chosen.push_back((2 * torch::matmul(part, m_table.t()) - m_rowNorms).argmax(-1));
  }
  return torch::cat(chosen).view({hidden.size(0), length});
}

}  // namespace strata::model
