#include "engine/capture_estimate.h"

#include <algorithm>

namespace strata::engine {

int64_t sequencesFor(const CaptureShape& shape) {
  const int64_t perSequence = std::max<int64_t>(shape.sequenceLength - shape.skipFirstPositions, 1);
  return (std::max<int64_t>(shape.tokens, 0) + perSequence - 1) / perSequence;
}

MemoryRequest captureMemoryRequest(const io::ModelConfig& config, int64_t parameterCount,
                                   const CaptureShape& shape) {
  MemoryRequest request;
  request.config = config;
  request.parameterCount = parameterCount;
  request.computeBytes = shape.computeBytes;
  request.cuda = shape.cuda;
  request.batchSequences = shape.batchSequences;
  request.sequenceLength = shape.sequenceLength;
  request.sampleTokens = sequencesFor(shape) * shape.sequenceLength;  // padding included
  request.streamRequested = shape.streamLayers;
  return request;
}

double estimateCaptureSeconds(const io::ModelConfig& config, int64_t parameterCount,
                              const CaptureShape& shape) {
  const double positions =
      static_cast<double>(sequencesFor(shape)) * static_cast<double>(shape.sequenceLength);
  // A causal position attends to T/2 others on average, for QKᵀ and for AV: 2·(T/2)·d each.
  const double attention = 2.0 * static_cast<double>(shape.sequenceLength) *
                           static_cast<double>(config.hiddenSize) *
                           static_cast<double>(config.numLayers);
  const double flops = positions * (2.0 * static_cast<double>(parameterCount) + attention);
  const bool cpuBf16 = shape.computeBytes == 2 && !shape.cuda;
  return flops / kCaptureFlopsPerSecond / (cpuBf16 ? shape.cpuBf16Speedup : 1.0);
}

double estimateScoringSeconds(const io::ModelConfig& config, int64_t rows) {
  const auto d = static_cast<double>(config.hiddenSize);
  const auto states = static_cast<double>(config.numLayers + 1);
  return states * static_cast<double>(std::max<int64_t>(rows, 0)) * d * d / kScoringRate;
}

}  // namespace strata::engine
