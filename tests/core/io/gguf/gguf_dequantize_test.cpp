// GGUF dequantisation against gguf-py, its reference: tests/python/gguf_quant_vectors.py writes,
// for every type Strata dequantises, blocks made by gguf-py's own quantiser and random blocks
// with edge-case scales, with what gguf.quants.dequantize returns for them; each must match bit
// for bit, on one thread and on three. Those tests skip, saying why, without a Python that has
// numpy and gguf. Hand-computed blocks (one per family) and the error cases need no Python.

#include "io/gguf/gguf_dequantize.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/gguf/gguf_types.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

/** gguf-py's vectors, written on first use, once per process. */
struct ReferenceVectors {
  std::unique_ptr<TempDir> dir;
  std::string skip;     // no Python to run the script
  std::string failure;  // the script ran and failed
  nlohmann::json index;
};

const ReferenceVectors& referenceVectors() {
  static const ReferenceVectors vectors = [] {
    ReferenceVectors made;
    std::string why;
    const std::string python = testing::findPython(
        {"numpy", "gguf"},
        "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
    if (python.empty()) {
      made.skip = "no Python with gguf to compare against: " + why;
      return made;
    }
    made.dir = std::make_unique<TempDir>();
    const std::string command = python +
                                " '" STRATA_SOURCE_DIR "/tests/python/gguf_quant_vectors.py' '" +
                                made.dir->path().string() + "'";
    if (std::system(command.c_str()) != 0)
      made.failure = command + " failed";
    else
      made.index = nlohmann::json::parse(std::ifstream(made.dir->path() / "vectors.json"));
    return made;
  }();
  return vectors;
}

std::vector<std::byte> readBytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> chars{std::istreambuf_iterator<char>(in), {}};
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::string hexBits(float value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08x", std::bit_cast<uint32_t>(value));
  return text;
}

/** Bit-for-bit comparison; reports how many differ and the first few. */
void expectSameBits(const std::vector<float>& actual, const std::vector<float>& expected,
                    const std::string& what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  int reported = 0;
  std::size_t differing = 0;
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (std::bit_cast<uint32_t>(actual[i]) == std::bit_cast<uint32_t>(expected[i])) continue;
    ++differing;
    if (reported++ < 5)
      ADD_FAILURE() << what << ": element " << i << " is " << actual[i] << " ("
                    << hexBits(actual[i]) << "), gguf-py gives " << expected[i] << " ("
                    << hexBits(expected[i]) << ")";
  }
  EXPECT_EQ(differing, 0u) << what << ": elements that differ from gguf-py";
}

void expectMatchesGgufPy(GgmlType type) {
  const ReferenceVectors& vectors = referenceVectors();
  if (!vectors.skip.empty()) GTEST_SKIP() << vectors.skip;
  ASSERT_TRUE(vectors.failure.empty()) << vectors.failure;
  const uint32_t id = static_cast<uint32_t>(type);
  const std::string name = ggmlTypeName(id);
  ASSERT_TRUE(vectors.index.at("types").contains(name)) << "the script wrote no " << name;
  std::cout << "  reference: gguf " << vectors.index.at("gguf").get<std::string>() << ", "
            << vectors.index.at("types").at(name).at("elements").get<int64_t>() << " elements\n";

  const std::vector<std::byte> raw = readBytes(vectors.dir->path() / (name + ".raw"));
  const std::vector<std::byte> expectedBytes = readBytes(vectors.dir->path() / (name + ".f32"));
  std::vector<float> expected(expectedBytes.size() / sizeof(float));
  std::memcpy(expected.data(), expectedBytes.data(), expectedBytes.size());

  std::vector<float> actual(expected.size());
  dequantizeGgml(id, raw, actual, "vectors.raw", name, 1);
  expectSameBits(actual, expected, name + ", one thread");

  // Repeated past four work chunks of 64K elements, so three threads each take a share.
  const std::size_t copies = (4 * 65536) / expected.size() + 1;
  std::vector<std::byte> tiledRaw;
  std::vector<float> tiledExpected;
  for (std::size_t i = 0; i < copies; ++i) {
    tiledRaw.insert(tiledRaw.end(), raw.begin(), raw.end());
    tiledExpected.insert(tiledExpected.end(), expected.begin(), expected.end());
  }
  std::vector<float> tiled(tiledExpected.size());
  dequantizeGgml(id, tiledRaw, tiled, "vectors.raw", name, 3);
  expectSameBits(tiled, tiledExpected, name + ", three threads");
}

TEST(GgufDequantize, F32MatchesGgufPy) { expectMatchesGgufPy(GgmlType::F32); }
TEST(GgufDequantize, F16MatchesGgufPy) { expectMatchesGgufPy(GgmlType::F16); }
TEST(GgufDequantize, BF16MatchesGgufPy) { expectMatchesGgufPy(GgmlType::BF16); }
TEST(GgufDequantize, Q8_0MatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q8_0); }
TEST(GgufDequantize, Q4_0MatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q4_0); }
TEST(GgufDequantize, Q4_1MatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q4_1); }
TEST(GgufDequantize, Q5_0MatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q5_0); }
TEST(GgufDequantize, Q5_1MatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q5_1); }
TEST(GgufDequantize, Q2_KMatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q2_K); }
TEST(GgufDequantize, Q3_KMatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q3_K); }
TEST(GgufDequantize, Q4_KMatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q4_K); }
TEST(GgufDequantize, Q5_KMatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q5_K); }
TEST(GgufDequantize, Q6_KMatchesGgufPy) { expectMatchesGgufPy(GgmlType::Q6_K); }

// Every ggml type gguf-py knows has our name and block geometry, we know no type it does not,
// and the script covers exactly the types marked dequantizable (so a new one cannot go untested).
TEST(GgufDequantize, TypeTableMatchesGgufPy) {
  const ReferenceVectors& vectors = referenceVectors();
  if (!vectors.skip.empty()) GTEST_SKIP() << vectors.skip;
  ASSERT_TRUE(vectors.failure.empty()) << vectors.failure;
  const auto& known = vectors.index.at("all_types");
  for (const auto& [name, entry] : known.items()) {
    const auto traits = ggmlTypeTraits(entry.at(0).get<uint32_t>());
    ASSERT_TRUE(traits.has_value()) << name << " (id " << entry.at(0) << ") is not in the table";
    EXPECT_EQ(traits->name, name);
    EXPECT_EQ(traits->blockSize, entry.at(1).get<int64_t>()) << name;
    EXPECT_EQ(traits->typeSize, entry.at(2).get<int64_t>()) << name;
    EXPECT_EQ(traits->dequantizable, vectors.index.at("types").contains(name)) << name;
  }
  for (uint32_t id = 0; id < 256; ++id) {
    if (const auto traits = ggmlTypeTraits(id)) {
      EXPECT_TRUE(known.contains(traits->name)) << traits->name << " is not in gguf-py";
    }
  }
}

// Hand-computed blocks, one per family, independent of the script. Halves used as scales:
// 0x3C00 = 1, 0x3800 = 0.5, 0x3400 = 0.25, 0x4000 = 2, 0xBC00 = -1, 0x4900 = 10.

/** A zero-filled block of `type` to set bytes in, and its dequantised elements. */
struct Block {
  explicit Block(GgmlType t) : type(t), bytes(ggmlTypeTraits(static_cast<uint32_t>(t))->typeSize) {}
  Block& set(std::size_t offset, uint8_t value) {
    bytes.at(offset) = std::byte{value};
    return *this;
  }
  Block& setHalf(std::size_t offset, uint16_t half) {
    return set(offset, half & 0xFF).set(offset + 1, half >> 8);
  }
  std::vector<float> dequantize() const {
    std::vector<float> out(ggmlTypeTraits(static_cast<uint32_t>(type))->blockSize);
    dequantizeGgml(static_cast<uint32_t>(type), bytes, out, "block.gguf", "block");
    return out;
  }
  GgmlType type;
  std::vector<std::byte> bytes;
};

TEST(GgufDequantize, Q8_0IsScaleTimesSignedByte) {
  Block block(GgmlType::Q8_0);
  block.setHalf(0, 0x3800);
  for (std::size_t j = 2; j < 34; ++j) block.set(j, 0xFD);  // -3
  for (const float value : block.dequantize()) EXPECT_EQ(value, -1.5f);
}

TEST(GgufDequantize, LegacyNibblesSplitIntoBlockHalves) {
  // Low nibbles are elements 0-15, high nibbles 16-31; Q4_0 is centred on 8.
  const auto q4_0 = Block(GgmlType::Q4_0).setHalf(0, 0x3400).set(2, 0x9A).dequantize();
  EXPECT_EQ(q4_0[0], 0.5f);    // (10 - 8) * 0.25
  EXPECT_EQ(q4_0[16], 0.25f);  // (9 - 8) * 0.25
  EXPECT_EQ(q4_0[1], -2.0f);   // (0 - 8) * 0.25
  // Q4_1: d * q + m.
  const auto q4_1 = Block(GgmlType::Q4_1).setHalf(0, 0x4000).setHalf(2, 0xBC00).set(4, 0x31);
  EXPECT_EQ(q4_1.dequantize()[0], 1.0f);   // 2 * 1 - 1
  EXPECT_EQ(q4_1.dequantize()[16], 5.0f);  // 2 * 3 - 1
}

TEST(GgufDequantize, FifthBitOfQ5ComesFromQh) {
  // qh bit j is element j's bit 4: bit 0 set, bit 16 clear; then bit 16 set.
  const auto q5_0 = Block(GgmlType::Q5_0).setHalf(0, 0x3C00).set(2, 0x01).set(6, 0x2F);
  EXPECT_EQ(q5_0.dequantize()[0], 15.0f);    // (0xF | 0x10) - 16
  EXPECT_EQ(q5_0.dequantize()[16], -14.0f);  // 2 - 16
  auto q5_1 = Block(GgmlType::Q5_1).setHalf(0, 0x3800).setHalf(2, 0x4900).set(6, 0x01);
  EXPECT_EQ(q5_1.set(8, 0x30).dequantize()[16], 19.5f);  // (3 | 0x10) * 0.5 + 10
  EXPECT_EQ(q5_1.dequantize()[0], 10.0f);
}

TEST(GgufDequantize, PlainTypesWidenExactly) {
  const auto f16 = Block(GgmlType::F16).setHalf(0, 0x0001).dequantize();
  EXPECT_EQ(f16[0], 0x1p-24f);  // the smallest subnormal half
  EXPECT_EQ(Block(GgmlType::F16).setHalf(0, 0xFC00).dequantize()[0],
            -std::numeric_limits<float>::infinity());
  EXPECT_EQ(Block(GgmlType::BF16).setHalf(0, 0xC040).dequantize()[0], -3.0f);
}

TEST(GgufDequantize, Q2_KSubtractsScaledMinimum) {
  Block block(GgmlType::Q2_K);
  for (std::size_t g = 0; g < 16; ++g) block.set(g, 0x23);      // scale 3, min 2
  block.set(16, 0xE4).setHalf(80, 0x3800).setHalf(82, 0x3400);  // 2-bit fields 0, 1, 2, 3
  const auto out = block.dequantize();  // 1.5 * q - 0.5, fields of one byte 32 elements apart
  EXPECT_EQ(out[0], -0.5f);
  EXPECT_EQ(out[32], 1.0f);
  EXPECT_EQ(out[64], 2.5f);
  EXPECT_EQ(out[96], 4.0f);
}

TEST(GgufDequantize, Q3_KDecodesSixBitScalesAndInvertedHighBit) {
  Block block(GgmlType::Q3_K);
  block.set(96, 0x01).set(104, 0x02).setHalf(108, 0x3C00);  // scale 0: (1 | 2 << 4) - 32 = 1
  block.set(32, 0x03).set(33, 0x02).set(1, 0x01);           // hmask bit set on element 1 only
  const auto out = block.dequantize();
  EXPECT_EQ(out[0], -1.0f);    // 3 - 4: a clear hmask bit subtracts 4
  EXPECT_EQ(out[1], 2.0f);     // 2
  EXPECT_EQ(out[32], 128.0f);  // scale 2 is 0 - 32, q = 0 - 4
}

TEST(GgufDequantize, Q4_KAndQ5_KUnpackScaleMinPairs) {
  Block q4(GgmlType::Q4_K);
  q4.setHalf(0, 0x3C00).setHalf(2, 0x3800).set(4, 0x45).set(8, 0x03).set(12, 0x72);
  q4.set(16, 0x9B).set(80, 0x04);
  const auto out4 = q4.dequantize();
  EXPECT_EQ(out4[0], 53.5f);    // scale 5, min 3: 5 * 11 - 0.5 * 3
  EXPECT_EQ(out4[32], 0.0f);    // scale 1 and min 1 are 0
  EXPECT_EQ(out4[128], 68.5f);  // scale 4 = 2 | 0x10 = 18, min 4 = 7: 18 * 4 - 3.5
  Block q5(GgmlType::Q5_K);
  q5.setHalf(0, 0x3C00).set(4, 0x02).set(5, 0x01).set(16, 0x03).set(48, 0x03);
  EXPECT_EQ(q5.dequantize()[0], 38.0f);   // (3 | 0x10) * 2
  EXPECT_EQ(q5.dequantize()[32], 16.0f);  // (0 | 0x10) * 1
}

TEST(GgufDequantize, Q6_KUsesSignedScales) {
  Block block(GgmlType::Q6_K);
  block.set(0, 0x21).set(128, 0x02).set(192, 0xFE).set(194, 3).set(196, 1).setHalf(208, 0x3800);
  const auto out = block.dequantize();
  EXPECT_EQ(out[0], -1.0f);    // (1 | 2 << 4) - 32 = 1, times 0.5 * -2
  EXPECT_EQ(out[32], -48.0f);  // q = -32, times 0.5 * 3
  EXPECT_EQ(out[64], -15.0f);  // (2 | 0) - 32 = -30, times 0.5 * 1
}

TEST(GgufDequantize, RejectsWrongByteCount) {
  std::vector<std::byte> data(143);
  std::vector<float> out(256);
  try {
    dequantizeGgml(static_cast<uint32_t>(GgmlType::Q4_K), data, out, "model.gguf", "blk.0.w");
    FAIL() << "no error";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.item(), "blk.0.w");
    EXPECT_NE(error.problem().find("Q4_K"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("model.gguf"), std::string::npos) << error.what();
  }
  std::vector<float> partial(31);  // not a whole Q8_0 block
  EXPECT_THROW(dequantizeGgml(8, std::span(data).first(34), partial, "m.gguf", "t"), FormatError);
}

TEST(GgufDequantize, RejectsUnsupportedTypesByName) {
  std::vector<std::byte> data(292);
  std::vector<float> out(256);
  for (const auto& [id, name] :
       {std::pair<uint32_t, std::string>{17, "IQ2_XS"}, {15, "Q8_K"}, {99, "unknown type 99"}}) {
    try {
      dequantizeGgml(id, data, out, "model.gguf", "blk.0.w");
      ADD_FAILURE() << name << " was accepted";
    } catch (const FormatError& error) {
      EXPECT_NE(error.problem().find("tensor type " + name + " is not supported"),
                std::string::npos)
          << error.what();
      EXPECT_NE(error.problem().find("Q4_K"), std::string::npos) << "lists what is supported";
    }
  }
}

TEST(GgufDequantize, AcceptsEmptyTensor) {
  std::vector<float> out;
  EXPECT_NO_THROW(dequantizeGgml(12, {}, out, "model.gguf", "empty", 4));
}

}  // namespace
}  // namespace strata::io
