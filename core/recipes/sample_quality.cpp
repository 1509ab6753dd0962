// Gen.PPL under a judge and diversity of generated text (see sample_quality.h).

#include "recipes/sample_quality.h"

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "common/error.h"
#include "engine/device_choice.h"
#include "engine/memory_plan.h"
#include "model/backbone/backbone.h"
#include "tokenizer/tokenizer.h"

namespace strata::recipes {

namespace {

template <typename Symbol>
NgramCounts ngramCounts(const std::vector<Symbol>& sequence, size_t n) {
  NgramCounts counts;
  if (sequence.size() < n) return counts;
  std::set<std::vector<Symbol>> distinct;
  for (size_t i = 0; i + n <= sequence.size(); ++i) {
    distinct.emplace(sequence.begin() + static_cast<std::ptrdiff_t>(i),
                     sequence.begin() + static_cast<std::ptrdiff_t>(i + n));
    ++counts.total;
  }
  counts.unique = static_cast<int64_t>(distinct.size());
  return counts;
}

/** ∏_{n=2..4} Σ unique / Σ total, with the counts taken per sequence. */
template <typename Symbol>
double perTextDiversity(const std::vector<std::vector<Symbol>>& sequences) {
  double product = 1;
  for (size_t n = 2; n <= 4; ++n) {
    int64_t unique = 0, total = 0;
    for (const auto& sequence : sequences) {
      const NgramCounts counts = ngramCounts(sequence, n);
      unique += counts.unique;
      total += counts.total;
    }
    if (total == 0) return 0;
    product *= static_cast<double>(unique) / static_cast<double>(total);
  }
  return product;
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

}  // namespace

std::vector<std::string> whitespaceWords(const std::string& text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && isSpace(text[i])) ++i;
    const size_t start = i;
    while (i < text.size() && !isSpace(text[i])) ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

double wordDiversity(const std::vector<std::string>& texts) {
  std::vector<std::vector<std::string>> words;
  words.reserve(texts.size());
  for (const auto& text : texts) words.push_back(whitespaceWords(text));
  return perTextDiversity(words);
}

double tokenDiversity(const std::vector<std::vector<int32_t>>& sequences) {
  return perTextDiversity(sequences);
}

double continuationCrossEntropy(const model::Backbone& model, const std::vector<int32_t>& prompt,
                                const std::vector<int32_t>& continuation) {
  // Without a prompt token the first continuation token has no prediction: it is not scored.
  const size_t skipped = prompt.empty() ? 1 : 0;
  if (continuation.size() <= skipped) return 0;
  std::vector<int64_t> all(prompt.begin(), prompt.end());
  all.insert(all.end(), continuation.begin(), continuation.end());
  model::CaptureRequest request;
  request.logits = true;
  request.keepHidden = false;
  const torch::Tensor logits =
      model.capture(torch::tensor(all, torch::kInt64).unsqueeze(0), request)
          .logits[0]
          .to(torch::kCPU, torch::kFloat);
  const auto first = static_cast<int64_t>(prompt.size() + skipped) - 1;  // predicts all[first + 1]
  const auto count = static_cast<int64_t>(continuation.size() - skipped);
  const torch::Tensor predicted = logits.slice(0, first, first + count);
  const torch::Tensor targets = torch::tensor(
      std::vector<int64_t>(continuation.begin() + static_cast<std::ptrdiff_t>(skipped),
                           continuation.end()),
      torch::kInt64);
  return torch::nn::functional::cross_entropy(
             predicted, targets,
             torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
      .item<double>();
}

namespace {

/** The judge, planned first: one sequence of up to 1,024 tokens with its logits. */
std::unique_ptr<model::Backbone> loadJudge(const std::filesystem::path& folder, at::Device device) {
  return model::Backbone::load(
      folder, {.device = device,
               .streamLayers = engine::frozenBackboneStreams(folder, device.is_cuda(), 1, 1024,
                                                             /*logits=*/true)});
}

}  // namespace

GenerationJudge::GenerationJudge(const std::filesystem::path& folder, const std::string& device)
    : m_folder(folder),
      m_model(loadJudge(folder, engine::computeDevice(device, "device"))),
      m_tokenizer(tokenizer::loadTokenizer(folder)) {}

GenerationJudge::~GenerationJudge() = default;

double GenerationJudge::crossEntropy(const std::string& prompt, const std::string& continuation,
                                     int64_t& tokens) const {
  torch::NoGradGuard noGrad;
  std::vector<int32_t> context = m_tokenizer->encode(prompt, true);
  std::vector<int32_t> text = m_tokenizer->encode(continuation, false);
  const int64_t limit = m_model->config().maxPositions;
  if (limit > 0) {
    // Keep the prompt's end and as much continuation as fits; the judge reads left to right.
    const auto room = static_cast<size_t>(limit);
    if (text.size() + 1 > room) text.resize(room - 1);
    if (context.size() + text.size() > room)
      context.erase(context.begin(),
                    context.end() - static_cast<std::ptrdiff_t>(room - text.size()));
  }
  tokens = static_cast<int64_t>(text.size()) - (context.empty() && !text.empty() ? 1 : 0);
  return continuationCrossEntropy(*m_model, context, text);
}

GenPplResult GenerationJudge::judge(const std::vector<JudgedText>& texts) const {
  GenPplResult result;
  result.judge = m_folder.string();
  double crossEntropySum = 0;
  for (const auto& text : texts) {
    int64_t tokens = 0;
    crossEntropySum += crossEntropy(text.prompt, text.continuation, tokens);
    result.judgedTokens += tokens;
  }
  if (result.judgedTokens > 0) {
    result.meanCrossEntropy = crossEntropySum / static_cast<double>(result.judgedTokens);
    result.genPpl = std::exp(result.meanCrossEntropy);
  }
  return result;
}

}  // namespace strata::recipes
