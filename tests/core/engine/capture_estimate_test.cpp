// The capture estimate (core/engine/capture_estimate.h): the sequences the sampler cuts, the
// memory request of the capture's shape, and times that reproduce the measurements their rates
// were fitted on (docs/benchmarks.md) and grow with the tokens asked for.

#include "engine/capture_estimate.h"

#include <gtest/gtest.h>

namespace strata::engine {
namespace {

/** SmolLM2-135M: 30 blocks of width 576, 134,515,008 parameters. */
io::ModelConfig smolLm2(int64_t* parameters) {
  io::ModelConfig c;
  c.architecture = io::Architecture::Llama;
  c.numLayers = 30;
  c.hiddenSize = 576;
  c.intermediateSize = 1536;
  c.numHeads = 9;
  c.numKeyValueHeads = 3;
  c.headDim = 64;
  c.vocabSize = 49152;
  c.tieWordEmbeddings = true;
  *parameters = 134'515'008;
  return c;
}

TEST(CaptureEstimate, SequencesStoreTheirPositionsAfterTheSkippedOnes) {
  CaptureShape shape;
  shape.tokens = 4096;
  shape.sequenceLength = 128;
  shape.skipFirstPositions = 1;
  EXPECT_EQ(sequencesFor(shape), 33);  // 32 full sequences store 4,064 rows
  shape.tokens = 127;
  EXPECT_EQ(sequencesFor(shape), 1);
  shape.skipFirstPositions = 128;  // stores nothing: one row per sequence, not a division by 0
  EXPECT_EQ(sequencesFor(shape), 127);
}

TEST(CaptureEstimate, TheMemoryRequestIsTheCapturesOwnShape) {
  int64_t parameters = 0;
  const io::ModelConfig config = smolLm2(&parameters);
  CaptureShape shape;
  shape.tokens = 4096;
  shape.streamLayers = true;
  const MemoryRequest request = captureMemoryRequest(config, parameters, shape);
  EXPECT_EQ(request.parameterCount, parameters);
  EXPECT_EQ(request.sequenceLength, 128);
  EXPECT_EQ(request.sampleTokens, 33 * 128);
  EXPECT_EQ(request.batchSequences, 16);
  EXPECT_TRUE(request.streamRequested);
  EXPECT_FALSE(request.cuda);
}

TEST(CaptureEstimate, ReproducesTheMeasuredSmolLm2CaptureAndScoring) {
  int64_t parameters = 0;
  const io::ModelConfig config = smolLm2(&parameters);
  CaptureShape shape;
  shape.tokens = 4096;
  const double capture = estimateCaptureSeconds(config, parameters, shape);
  EXPECT_GT(capture, 8.7);  // measured 8.7 s (quiet) to 15.4 s (the default run)
  EXPECT_LT(capture, 15.4);
  const double scoring = estimateScoringSeconds(config, 4096);
  EXPECT_NEAR(scoring, 24.2, 0.25 * 24.2);  // measured 24.2 s for 31 hidden states
  shape.computeBytes = 2;                   // bf16 on a CPU with native bf16: measured 4.3 s
  const double bf16 = estimateCaptureSeconds(config, parameters, shape);
  EXPECT_GT(bf16, 4.3);
  EXPECT_LT(bf16, 8.0);
}

TEST(CaptureEstimate, GrowsWithTheTokensAndTheSequenceLength) {
  int64_t parameters = 0;
  const io::ModelConfig config = smolLm2(&parameters);
  CaptureShape shape;
  shape.tokens = 4096;
  const double base = estimateCaptureSeconds(config, parameters, shape);
  shape.tokens = 8192;
  EXPECT_NEAR(estimateCaptureSeconds(config, parameters, shape), 2 * base, 0.05 * base);
  EXPECT_NEAR(estimateScoringSeconds(config, 8192), 2 * estimateScoringSeconds(config, 4096), 1e-9);
  shape.tokens = 4096;
  shape.sequenceLength = 2048;  // attention grows with T
  EXPECT_GT(estimateCaptureSeconds(config, parameters, shape), base);
}

}  // namespace
}  // namespace strata::engine
