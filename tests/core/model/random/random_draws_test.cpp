// Seeded generators and random draws (model/random): a draw checks its generator against its
// output's device, and under ForeignDeviceGenerators any generator that reaches torch without
// that check is refused by torch itself, on the CPU.

#include "model/random/random_draws.h"

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "model/random/seeded_generator.h"

namespace strata::model {

namespace {

const auto kCpuFloats = torch::TensorOptions(torch::kFloat).device(torch::kCPU);

TEST(RandomDraws, ASeededCpuDrawIsTorchsOwn) {
  // The generator is torch's CPU generator: the same seed draws what it always drew.
  const torch::Tensor expected = torch::rand({3, 4}, at::detail::createCPUGenerator(7), kCpuFloats);
  EXPECT_TRUE(
      torch::equal(uniformDraw({3, 4}, kCpuFloats, seededGenerator(7, torch::kCPU)), expected));
  const torch::Tensor normal = torch::randn({5}, at::detail::createCPUGenerator(8), kCpuFloats);
  EXPECT_TRUE(torch::equal(normalDraw({5}, kCpuFloats, seededGenerator(8, torch::kCPU)), normal));
}

TEST(RandomDraws, RefusesAGeneratorMadeForAnotherDevice) {
  const auto cuda = torch::TensorOptions(torch::kFloat).device(torch::Device(torch::kCUDA, 0));
  try {
    uniformDraw({2}, cuda, seededGenerator(1, torch::kCPU));
    FAIL() << "a CPU generator drew onto cuda:0";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("made for cpu"), std::string::npos) << e.what();
  }
}

TEST(RandomDraws, ASeededDrawNamesItsDevice) {
  EXPECT_THROW(uniformDraw({2}, torch::kDouble, seededGenerator(1, torch::kCPU)), Error);
  EXPECT_NO_THROW(uniformDraw({2}, torch::kDouble));  // the default generator: any device
}

TEST(RandomDraws, LikeDrawsFollowTheirTensor) {
  const torch::Tensor like = torch::zeros({2, 3}, torch::kDouble);
  EXPECT_EQ(uniformLike(like, seededGenerator(2, torch::kCPU)).scalar_type(), torch::kDouble);
  EXPECT_TRUE(torch::equal(normalLike(like, seededGenerator(3, torch::kCPU)),
                           normalDraw({2, 3}, like.options(), seededGenerator(3, torch::kCPU))));
}

TEST(ForeignDeviceGenerators, TorchRefusesAStandInHandedToItDirectly) {
  const ForeignDeviceGenerators foreign;
  const at::Generator generator = seededGenerator(4, torch::kCPU);
  EXPECT_NE(generator.device().type(), torch::kCPU);
  // The error a CPU generator meets on a CUDA tensor, mirrored.
  EXPECT_THROW(torch::rand({2}, generator, kCpuFloats), c10::Error);
}

TEST(ForeignDeviceGenerators, RefusesAGeneratorSeededGeneratorDidNotMake) {
  const ForeignDeviceGenerators foreign;
  EXPECT_THROW(uniformDraw({2}, kCpuFloats, at::detail::createCPUGenerator(4)), Error);
}

TEST(ForeignDeviceGenerators, StandInsDrawWhatTheRealGeneratorsDraw) {
  const torch::Tensor expected = uniformDraw({6}, kCpuFloats, seededGenerator(5, torch::kCPU));
  const ForeignDeviceGenerators foreign;
  const at::Generator generator = seededGenerator(5, torch::kCPU);
  EXPECT_TRUE(torch::equal(uniformDraw({6}, kCpuFloats, generator), expected));
  // Its state is the real generator's: saved and restored, the stream repeats.
  const at::Generator again = seededGenerator(6, torch::kCPU);
  const torch::Tensor state = again.get_state();
  const torch::Tensor first = normalDraw({4}, kCpuFloats, again);
  at::Generator restored = again;
  restored.set_state(state);
  EXPECT_TRUE(torch::equal(normalDraw({4}, kCpuFloats, restored), first));
}

}  // namespace
}  // namespace strata::model
