// The GGUF writer tests use (tests/support/gguf_test_file.h) against core/io/gguf/gguf_file's
// reader: every metadata value type, arrays of arrays, tensors at aligned offsets, and the bytes
// laid out as the format says.

#include "support/gguf_test_file.h"

#include <gtest/gtest.h>

#include <cstring>

#include "io/gguf/gguf_file.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

using namespace testing;  // NOLINT(google-build-using-namespace): the writer's value helpers

TEST(GgufTestFile, EveryValueTypeReadsBackThroughGgufFile) {
  GgufTestFile file;
  file.set("u8", ggufUInt8(200))
      .set("i8", ggufInt8(-100))
      .set("u16", ggufUInt16(60000))
      .set("i16", ggufInt16(-30000))
      .set("u32", ggufUInt32(4000000000u))
      .set("i32", ggufInt32(-2000000000))
      .set("u64", ggufUInt64(1ull << 60))
      .set("i64", ggufInt64(-(1ll << 60)))
      .set("f32", ggufFloat32(0.25f))
      .set("f64", ggufFloat64(-1e300))
      .set("yes", ggufBool(true))
      .set("text", ggufString("héllo"))
      .set("words", ggufStringArray({"a", "", "c d"}))
      .set("ints", ggufInt32Array({-1, 0, 7}))
      .set("floats", ggufFloat32Array({1.5f, -2}))
      .set("nested", ggufArray(GgufValueType::Array, {ggufInt32Array({1, 2}), ggufInt32Array({})}));
  TempDir dir;
  file.write(dir / "all.gguf");
  const GgufFile gguf(dir / "all.gguf");
  EXPECT_EQ(gguf.version(), 3u);
  EXPECT_EQ(gguf.unsignedInteger("u8"), 200u);
  EXPECT_EQ(gguf.integer("i8"), -100);
  EXPECT_EQ(gguf.unsignedInteger("u16"), 60000u);
  EXPECT_EQ(gguf.integer("i16"), -30000);
  EXPECT_EQ(gguf.unsignedInteger("u32"), 4000000000u);
  EXPECT_EQ(gguf.integer("i32"), -2000000000);
  EXPECT_EQ(gguf.unsignedInteger("u64"), 1ull << 60);
  EXPECT_EQ(gguf.integer("i64"), -(1ll << 60));
  EXPECT_EQ(gguf.number("f32"), 0.25);
  EXPECT_EQ(gguf.number("f64"), -1e300);
  EXPECT_TRUE(gguf.boolean("yes"));
  EXPECT_EQ(gguf.string("text"), "héllo");
  EXPECT_EQ(gguf.stringArray("words"), (std::vector<std::string>{"a", "", "c d"}));
  EXPECT_EQ(gguf.integerArray("ints"), (std::vector<int64_t>{-1, 0, 7}));
  EXPECT_EQ(gguf.numberArray("floats"), (std::vector<double>{1.5, -2}));
  EXPECT_EQ(gguf.find("f32")->type, GgufValueType::Float32);
  const auto& nested = std::get<std::shared_ptr<const GgufArray>>(gguf.find("nested")->value);
  ASSERT_EQ(nested->elements.size(), 2u);
  EXPECT_EQ(std::get<std::shared_ptr<const GgufArray>>(nested->elements[0].value)->elements.size(),
            2u);
  EXPECT_EQ(gguf.metadata().front().first, "u8") << "keys in the order they were set";
}

TEST(GgufTestFile, TensorsLieAtAlignedOffsetsWithTheirBytes) {
  GgufTestFile file;
  file.set("general.alignment", ggufUInt32(64));
  file.addF32Tensor("a", {3}, {1, 2, 3});
  file.addTensor({"b", {2, 2}, 1, std::string(8, '\x7f'), std::nullopt});  // F16, raw bytes
  TempDir dir;
  file.write(dir / "tensors.gguf");
  const GgufFile gguf(dir / "tensors.gguf");
  EXPECT_EQ(gguf.alignment(), 64u);
  EXPECT_EQ(gguf.dataOffset() % 64, 0u);
  ASSERT_EQ(gguf.tensors().size(), 2u);
  const GgufTensorInfo& a = gguf.tensors()[0];
  const GgufTensorInfo& b = gguf.tensors()[1];
  EXPECT_EQ(a.offset, gguf.dataOffset());
  EXPECT_EQ(b.offset, gguf.dataOffset() + 64) << "the next multiple of the alignment";
  EXPECT_EQ(b.shape, (std::vector<int64_t>{2, 2}));
  float values[3];
  ASSERT_EQ(gguf.tensorData(a).size(), sizeof values);
  std::memcpy(values, gguf.tensorData(a).data(), sizeof values);
  EXPECT_EQ(values[2], 3.0f);
  EXPECT_EQ(static_cast<char>(gguf.tensorData(b)[7]), '\x7f');
}

TEST(GgufTestFile, WritesTheHeaderAsTheFormatDefinesIt) {
  GgufTestFile file;
  file.setVersion(2).set("k", ggufUInt8(1));
  const std::string bytes = file.bytes();
  // "GGUF", u32 2, u64 0 tensors, u64 1 key, u64 1 "k", u32 type 0, u8 1, zero padding to 32.
  const std::string expected = std::string("GGUF\2\0\0\0", 8) + std::string(8, '\0') +
                               std::string("\1\0\0\0\0\0\0\0", 8) +
                               std::string("\1\0\0\0\0\0\0\0k", 9) + std::string(4, '\0') + "\1";
  ASSERT_EQ(bytes.size(), 64u);
  EXPECT_EQ(bytes.substr(0, expected.size()), expected);
  EXPECT_EQ(bytes.substr(expected.size()), std::string(64 - expected.size(), '\0'));
}

}  // namespace
}  // namespace strata::io
