// GGUF blocks dequantised by LibTorch operations (model/backbone/device_dequantize.h), the path
// a GPU takes, run here on the CPU: every supported type on random blocks against the host
// kernels (io/gguf/gguf_dequantize.h, bit for bit gguf-py's), and every tensor of the tiny GGUF and
// of the two real files loaded that way against the host path — the same bits, un-permuted
// q/k rows and Gemma's norm offset included.

#include "model/backbone/device_dequantize.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_import.h"
#include "io/gguf/gguf_types.h"
#include "io/gguf/gguf_weights.h"
#include "io/hf/hf_config.h"
#include "model/backbone/weight_loader.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"
#include "support/tiny_gguf_model.h"

namespace strata::model {
namespace {

namespace fs = std::filesystem;
using io::GgmlType;

/** Byte offsets of the float16 scales in one block (random bytes there could be NaN). */
std::vector<int> scaleOffsets(GgmlType type) {
  switch (type) {
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q5_0:
      return {0};
    case GgmlType::Q4_1:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
      return {0, 2};
    case GgmlType::Q6_K:
      return {208};
    default:
      return {};
  }
}

/** `blocks` random blocks of `type` whose scales (and plain values) are finite. */
std::vector<std::byte> randomBlocks(GgmlType type, int64_t blocks, std::mt19937& random) {
  const auto traits = *io::ggmlTypeTraits(static_cast<uint32_t>(type));
  std::vector<std::byte> data(static_cast<size_t>(blocks * traits.typeSize));
  std::uniform_int_distribution<int> byte(0, 255);
  for (std::byte& b : data) b = static_cast<std::byte>(byte(random));
  std::uniform_int_distribution<int> scale(0x0400, 0x3BFF);  // normal halves up to 0.996
  for (int64_t b = 0; b < blocks; ++b)
    for (int offset : scaleOffsets(type)) {
      const int half = scale(random);
      data[b * traits.typeSize + offset] = static_cast<std::byte>(half & 0xFF);
      data[b * traits.typeSize + offset + 1] = static_cast<std::byte>(half >> 8);
    }
  // Plain types: keep the exponent below all ones (the top byte's second bit clear).
  const int width = type == GgmlType::F32                             ? 4
                    : type == GgmlType::F16 || type == GgmlType::BF16 ? 2
                                                                      : 0;
  for (size_t i = width - 1; width && i < data.size(); i += width) data[i] &= std::byte{0xBF};
  return data;
}

TEST(DeviceDequantize, EveryTypeEqualsTheHostKernelBitForBit) {
  std::mt19937 random(7);
  int checked = 0;
  for (uint32_t id = 0; id < 64; ++id) {
    if (!dequantizableOnDevice(id)) continue;
    const auto traits = *io::ggmlTypeTraits(id);
    const int64_t blocks = traits.blockSize == 1 ? 4096 : 64;
    const std::vector<std::byte> data = randomBlocks(traits.type, blocks, random);
    const int64_t elements = blocks * traits.blockSize;
    std::vector<float> host(static_cast<size_t>(elements));
    io::dequantizeGgml(id, data, host, "random", traits.name);
    const at::Tensor bytes = at::from_blob(const_cast<std::byte*>(data.data()),
                                           {static_cast<int64_t>(data.size())}, at::kByte);
    const at::Tensor device = dequantizeOnDevice(id, bytes, elements);
    ASSERT_EQ(device.numel(), elements) << traits.name;
    EXPECT_TRUE(at::equal(device, at::from_blob(host.data(), {elements}, at::kFloat)))
        << traits.name << ": max |Δ| "
        << (device - at::from_blob(host.data(), {elements}, at::kFloat)).abs().max().item<float>();
    ++checked;
  }
  EXPECT_EQ(checked, 10);
  EXPECT_FALSE(dequantizableOnDevice(static_cast<uint32_t>(GgmlType::Q3_K)));
  EXPECT_THROW(
      dequantizeOnDevice(static_cast<uint32_t>(GgmlType::Q3_K), at::zeros({110}, at::kByte), 256),
      std::invalid_argument);
  EXPECT_THROW(
      dequantizeOnDevice(static_cast<uint32_t>(GgmlType::Q4_0), at::zeros({17}, at::kByte), 32),
      std::invalid_argument);
}

/** Every tensor of the model folder of `gguf`, through the device path and the host path. */
void expectDevicePathEqualsHostPath(const fs::path& gguf, const fs::path& dataDir) {
  fs::path folder;
  {
    testing::ScopedEnvironment environment;
    environment.set("STRATA_DATA_DIR", dataDir.string());
    folder = io::resolveModelFolder(gguf);
  }
  const io::ModelConfig config = io::readModelConfig(folder / "config.json");
  const WeightLoader loader(folder, config, at::kCPU, at::kFloat, /*borrowMapped=*/false);
  ASSERT_NE(loader.gguf(), nullptr);
  for (const io::GgufWeight& w : loader.gguf()->weights())
    EXPECT_TRUE(at::equal(loader.tensorOn(w.name, at::kCPU), loader.tensor(w.name)))
        << gguf.filename() << ": " << w.name << " (" << io::ggmlTypeName(w.info->typeId) << ")";
  const BlockWeights host = loader.block(0), device = loader.blockOn(0, at::kCPU);
  for (const BlockSlot& slot : loader.layout().blockSlots) {
    if ((host.*slot.field).defined()) {
      EXPECT_TRUE(at::equal(host.*slot.field, device.*slot.field)) << slot.suffix;
    }
  }
}

TEST(DeviceDequantize, TheTinyModelLoadsTheSameOnTheDevicePath) {
  TempDir dir;
  testing::writeTinyLlamaGguf(dir / "tiny.gguf", 2);
  expectDevicePathEqualsHostPath(dir / "tiny.gguf", dir / "data");
}

TEST(DeviceDequantize, TheRealFilesLoadTheSameOnTheDevicePath) {
  std::string why;
  const std::string python = testing::findPython({"gguf"}, "run scripts/setup.sh", why);
  if (python.empty()) GTEST_SKIP() << why;
  int found = 0;
  for (const std::string& model : testing::kRealGgufModels) {
    const fs::path file = testing::realGgufFile(python, model, why);
    if (file.empty()) continue;
    TempDir dir;
    expectDevicePathEqualsHostPath(file, dir / "data");
    ++found;
  }
  if (found == 0) GTEST_SKIP() << why;
}

}  // namespace
}  // namespace strata::model
