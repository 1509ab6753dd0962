// The one resolver of --device / the `device` setting (engine/device_choice.h).

#include "engine/device_choice.h"

#include <gtest/gtest.h>

#include "common/error.h"

namespace strata::engine {

namespace {

TEST(DeviceChoice, CpuIsAlwaysTheCpu) {
  EXPECT_EQ(resolveDevice("cpu"), "cpu");
  EXPECT_TRUE(computeDevice("cpu").is_cpu());
}

TEST(DeviceChoice, AutoIsCudaExactlyWhenLibTorchSeesADevice) {
  const std::string expected = cudaUsable() ? "cuda" : "cpu";
  EXPECT_EQ(resolveDevice("auto"), expected);
  EXPECT_EQ(computeDevice("auto").is_cuda(), cudaUsable());
}

TEST(DeviceChoice, CudaWithoutADeviceSaysWhy) {
  std::string reason;
  if (cudaUsable(&reason)) GTEST_SKIP() << "a CUDA device is present: --device cuda is valid here";
  EXPECT_FALSE(reason.empty());
  try {
    resolveDevice("cuda");
    FAIL() << "--device cuda resolved without a CUDA device";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()),
              "--device cuda: this build of LibTorch sees no CUDA device (" + reason + ")");
  }
}

TEST(DeviceChoice, CudaWithADeviceIsDeviceZero) {
  if (!cudaUsable()) GTEST_SKIP() << "no CUDA device on this machine";
  EXPECT_EQ(resolveDevice("cuda"), "cuda");
  EXPECT_EQ(computeDevice("cuda"), at::Device(at::kCUDA, 0));
}

TEST(DeviceChoice, AnUnknownChoiceNamesTheSetting) {
  try {
    resolveDevice("gpu", "device");
    FAIL() << "'gpu' was accepted";
  } catch (const ConfigError& error) {
    EXPECT_EQ(error.field(), "device");
    EXPECT_NE(std::string(error.what()).find("'gpu'"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace strata::engine
