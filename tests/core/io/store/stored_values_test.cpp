// roundAsStored gives exactly what a store serves back: the same float16 rounding and widening
// as writing a layer and reading it, bit for bit, and the same refusal beyond float16's range.

#include "io/store/stored_values.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "common/error.h"
#include "io/store/activation_store.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

constexpr int64_t kRows = 300;
constexpr int64_t kHidden = 64;

/** `values` written as layer 0 of a fresh store of `dtype` and read back. */
std::vector<float> throughAStore(const std::vector<float>& values, StoreDType dtype,
                                 const TempDir& dir) {
  StoreMeta meta;
  meta.modelId = "test";
  meta.architecture = "test";
  meta.hiddenSize = kHidden;
  meta.numLayers = 0;
  meta.dtype = dtype;
  TokenTable tokens;
  for (int32_t i = 0; i < kRows; ++i) {
    tokens.ids.push_back(i);
    tokens.doc.push_back(0);
    tokens.position.push_back(i);
  }
  const auto file = dir / (std::string(storeDTypeName(dtype)) + ".h5");
  {
    auto writer = ActivationStoreWriter::create(file, meta, tokens);
    writer.writeLayer(0, values);
    writer.close();
  }
  return ActivationStore::open(file).readLayer(0);
}

std::vector<uint32_t> bitsOf(const std::vector<float>& values) {
  std::vector<uint32_t> bits;
  for (float v : values) bits.push_back(std::bit_cast<uint32_t>(v));
  return bits;
}

TEST(StoredValues, RoundAsAStoreServesBackBitForBit) {
  // Hidden-state-like values over many scales, float16 ties, subnormals, the range's edge.
  std::mt19937 random(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> values(kRows * kHidden);
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = normal(random) * std::pow(10.0f, float(int(i % 9) - 5));
  const std::vector<float> special = {1.0f + 1.0f / 2048,  // halfway between two float16s
                                      1.0f + 3.0f / 2048, 1e-7f,     -3e-8f, 6.1e-5f,
                                      65504.0f,           -65519.0f, 0.0f,   -0.0f};
  std::copy(special.begin(), special.end(), values.begin());
  TempDir dir;
  for (const StoreDType dtype : {StoreDType::Float16, StoreDType::Float32}) {
    SCOPED_TRACE(storeDTypeName(dtype));
    std::vector<float> rounded = values;
    EXPECT_EQ(roundAsStored(rounded, dtype), -1);
    EXPECT_EQ(bitsOf(rounded), bitsOf(throughAStore(values, dtype, dir)));
  }
  std::vector<float> half = values;
  roundAsStored(half, StoreDType::Float16);
  EXPECT_NE(bitsOf(half), bitsOf(values));  // float16 did round
}

TEST(StoredValues, NamesTheFirstValueBeyondFloat16sRange) {
  std::vector<float> values(kRows * kHidden, 1.0f);
  values[70] = 65520.0f;  // rounds to infinity in float16: a store refuses it
  values[90] = -1e6f;
  EXPECT_EQ(roundAsStored(values, StoreDType::Float16), 70);
  TempDir dir;
  EXPECT_THROW(throughAStore(values, StoreDType::Float16, dir), FormatError);
  std::vector<float> wide = values;
  EXPECT_EQ(roundAsStored(wide, StoreDType::Float32), -1);
  EXPECT_EQ(wide, values);
}

}  // namespace

}  // namespace strata::io
