// The training memory plan (core/engine/training_memory.h) against closed forms: 16 bytes a
// trainable parameter for the weights, gradients and AdamW's moments; a step's activations from
// what each block keeps for backward; a checkpoint's in-memory copy; a frozen model beside the
// trained one kept resident when the run fits so, streamed when only that fits, and the run
// refused with what to change otherwise.

#include "engine/training_memory.h"

#include <gtest/gtest.h>

#include "support/scoped_environment.h"

namespace strata::engine {
namespace {

constexpr int64_t GiB = int64_t{1} << 30;

/** SmolLM2-135M's shape: 30 blocks of width 576, 9 heads of 64 and 3 key/value heads, SwiGLU
 *  of 1,536, a tied table of 49,152 tokens. */
TrainedShape smolLm2() {
  TrainedShape m;
  m.parameters = m.trainable = 134'515'008;
  m.layers = 30;
  m.width = 576;
  m.heads = 9;
  m.attentionWidth = 576;
  m.keyValueWidth = 192;
  m.mlpWidth = 1536;
  m.outputWidth = 49152;
  return m;
}

TrainingMemoryRequest request(int64_t rows, int64_t length) {
  TrainingMemoryRequest r;
  r.model = smolLm2();
  r.rows = rows;
  r.sequenceLength = length;
  r.vocabulary = 49152;
  return r;
}

TEST(TrainingMemory, WeightsGradientsAndMomentsAreSixteenBytesATrainableParameter) {
  TrainingMemoryRequest r = request(16, 128);
  r.model.trainable = 100'000'000;
  const TrainingMemoryPlan plan = planTrainingMemory(r, 64 * GiB);
  EXPECT_EQ(plan.weights, 134'515'008 * int64_t{4});
  EXPECT_EQ(plan.gradients, 100'000'000 * int64_t{4});
  EXPECT_EQ(plan.optimizerState, 100'000'000 * int64_t{8});
  // The checkpoint's in-memory copy: the larger of the model's and AdamW's states, twice.
  EXPECT_EQ(plan.checkpoint, 2 * 100'000'000 * int64_t{8});
  // Autocast keeps a bf16 copy of the weights beside the float32 ones.
  r.bf16 = true;
  EXPECT_EQ(planTrainingMemory(r, 64 * GiB).weights, 134'515'008 * int64_t{6});
}

TEST(TrainingMemory, AStepKeepsEachBlocksValuesAndTheLossReadsTheLogits) {
  // 16 × 128 tokens. Per token and block: two norms' inputs and outputs (4 × 576), the queries,
  // their rotation, the attention's output before and after merging heads (4 × 576), the keys,
  // their rotation and the values (3 × 192), SwiGLU's four widths (4 × 1,536): 11,328 floats,
  // for the 30 blocks and two more in flight in backward. The logits, their log-softmax and
  // its gradient: 3 × 49,152 floats a token.
  const int64_t tokens = 16 * 128;
  const int64_t block = 4 * 576 + 4 * 576 + 3 * 192 + 4 * 1536;
  ASSERT_EQ(block, 11'328);
  // A fifth more for what malloc and autograd hold besides (measured, docs/training.md).
  const auto withSlack = [](int64_t bytes) { return bytes + bytes / 5; };
  const int64_t counted = tokens * block * (30 + 2) * 4 + tokens * 49152 * 3 * 4;
  const int64_t expected = withSlack(counted);
  const TrainingMemoryPlan plan = planTrainingMemory(request(16, 128), 64 * GiB);
  EXPECT_EQ(plan.activations, expected);
  // Linear in the tokens of a micro-batch; bf16 halves the blocks' share, not the loss's.
  EXPECT_EQ(planTrainingMemory(request(32, 128), 64 * GiB).activations, withSlack(2 * counted));
  TrainingMemoryRequest half = request(16, 128);
  half.bf16 = true;
  EXPECT_EQ(planTrainingMemory(half, 64 * GiB).activations,
            withSlack(tokens * block * (30 + 2) * 2 + tokens * 49152 * 3 * 4));
  // A kept softmax adds a float32 T×T matrix a head and block (and two more in flight).
  TrainingMemoryRequest scores = request(16, 128);
  scores.model.attentionScoresKept = true;
  EXPECT_EQ(planTrainingMemory(scores, 64 * GiB).activations,
            withSlack(counted + int64_t{30 + 2} * 16 * 9 * 128 * 128 * 4));
  // Two streams side by side (block diffusion): twice the blocks' tokens, four times the
  // scores, the same logits.
  scores.model.sequenceStreams = 2;
  EXPECT_EQ(planTrainingMemory(scores, 64 * GiB).activations,
            withSlack(2 * tokens * block * (30 + 2) * 4 + tokens * 49152 * 3 * 4 +
                      int64_t{30 + 2} * 16 * 9 * 256 * 256 * 4));
  // What the loss holds besides (a teacher's states) grows with the tokens.
  TrainingMemoryRequest held = request(16, 128);
  held.lossBytesPerToken = 7;
  EXPECT_EQ(planTrainingMemory(held, 64 * GiB).activations, withSlack(counted + tokens * 7));
}

TEST(TrainingMemory, NeedsTheLargerOfAStepAndACheckpoint) {
  const TrainingMemoryPlan step = planTrainingMemory(request(16, 128), 64 * GiB);
  const int64_t states = step.fixedCost + step.weights + step.gradients + step.optimizerState;
  ASSERT_GT(step.activations, step.checkpoint);
  EXPECT_EQ(step.needed(), states + step.activations);
  const TrainingMemoryPlan small = planTrainingMemory(request(1, 16), 64 * GiB);
  ASSERT_LT(small.activations, small.checkpoint);
  EXPECT_EQ(small.needed(), states + small.checkpoint);
}

TEST(TrainingMemory, TheFrozenModelStaysResidentStreamsOrTheRunIsRefused) {
  TrainingMemoryRequest r = request(16, 128);
  MemoryRequest teacher;
  teacher.config.numLayers = 30;
  teacher.config.hiddenSize = 576;
  teacher.config.intermediateSize = 1536;
  teacher.config.numHeads = 9;
  teacher.config.numKeyValueHeads = 3;
  teacher.config.vocabSize = 49152;
  teacher.config.tieWordEmbeddings = true;
  teacher.parameterCount = 134'515'008;
  teacher.batchSequences = 16;
  teacher.sequenceLength = 128;
  r.frozen = teacher;
  const MemoryPlan alone = planMemory(teacher, 64 * GiB);

  const TrainingMemoryPlan roomy = planTrainingMemory(r, 64 * GiB);
  EXPECT_TRUE(roomy.fits);
  EXPECT_FALSE(roomy.frozenStreams);
  EXPECT_EQ(roomy.frozenWeights, alone.residentWeights);
  EXPECT_EQ(roomy.frozenActivations, alone.activations);

  // Between the two: only a streamed teacher leaves room for the student.
  const int64_t resident = roomy.needed();
  const int64_t streamed = resident - alone.residentWeights + alone.streamedWeights;
  const auto between = static_cast<int64_t>((resident + streamed) / 2 / kUsableShare);
  const TrainingMemoryPlan tight = planTrainingMemory(r, between);
  EXPECT_TRUE(tight.fits) << tight.describe();
  EXPECT_TRUE(tight.frozenStreams);
  EXPECT_EQ(tight.needed(), streamed);
  EXPECT_NE(tight.describe().find("streaming its layers"), std::string::npos) << tight.describe();

  const TrainingMemoryPlan tiny = planTrainingMemory(r, 2 * GiB);
  EXPECT_FALSE(tiny.fits);
  const std::string why = tiny.refusal();
  EXPECT_NE(why.find("needs about"), std::string::npos) << why;
  EXPECT_NE(why.find("2.00 GiB is available"), std::string::npos) << why;
  for (const char* remedy : {"batch", "seq_len", "grad_accum", "precision=bf16"})
    EXPECT_NE(why.find(remedy), std::string::npos) << remedy << " in " << why;
}

TEST(TrainingMemory, APretrainedModelsShapeComesFromItsConfig) {
  io::ModelConfig c;
  c.architecture = io::Architecture::Qwen3;
  c.numLayers = 36;
  c.hiddenSize = 4096;
  c.numHeads = 32;
  c.numKeyValueHeads = 8;
  c.headDim = 128;
  c.intermediateSize = 12288;
  c.vocabSize = 151936;
  const TrainedShape qwen = trainedShapeOf(c, 8'190'735'360);
  EXPECT_EQ(qwen.attentionWidth, 4096);
  EXPECT_EQ(qwen.keyValueWidth, 1024);
  EXPECT_TRUE(qwen.gatedMlp);
  EXPECT_EQ(qwen.outputWidth, 151936);
  EXPECT_EQ(qwen.trainable, qwen.parameters);
  c.architecture = io::Architecture::Gpt2;
  EXPECT_FALSE(trainedShapeOf(c, 1).gatedMlp);
}

TEST(TrainingMemory, CheckThrowsTheRefusalWithWhatIsAvailable) {
  testing::ScopedEnvironment environment;
  environment.set("STRATA_MEMORY_AVAILABLE", "1G");
  EXPECT_THROW(checkTrainingMemory(request(16, 128), nullptr), MemoryError);
  environment.set("STRATA_MEMORY_AVAILABLE", "64G");
  EXPECT_TRUE(checkTrainingMemory(request(16, 128), nullptr).fits);
}

TEST(TrainingMemory, ProcessesSharingTheMachineEachNeedTheirOwn) {
  // One process fits in 8 GiB; two of them (--nproc 2 on one machine) do not.
  TrainingMemoryRequest r = request(8, 128);
  const TrainingMemoryPlan one = planTrainingMemory(r, 8 * GiB);
  ASSERT_TRUE(one.fits) << one.describe();
  ASSERT_GT(2 * one.needed(), static_cast<int64_t>(8 * GiB * kUsableShare));
  r.processes = 2;
  const TrainingMemoryPlan two = planTrainingMemory(r, 8 * GiB);
  EXPECT_EQ(two.needed(), one.needed()) << "each process needs the same";
  EXPECT_FALSE(two.fits);
  EXPECT_NE(two.refusal().find("2 processes"), std::string::npos) << two.refusal();
  EXPECT_NE(two.refusal().find("--nproc"), std::string::npos) << two.refusal();
  EXPECT_TRUE(planTrainingMemory(r, 16 * GiB).fits);
}

}  // namespace
}  // namespace strata::engine
