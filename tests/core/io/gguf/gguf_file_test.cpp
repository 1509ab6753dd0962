// The GGUF reader (core/io/gguf/gguf_file.h): what it reads from a well-formed file, and a
// FormatError naming the file and the key or tensor for every kind of damage — never a crash,
// a hang or an allocation larger than the file.

#include "io/gguf/gguf_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>

#include "common/error.h"
#include "support/gguf_test_file.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

using namespace strata::testing;

/** A small valid file: metadata of several types and two F32 tensors. */
GgufTestFile validFile() {
  GgufTestFile f;
  f.set("general.architecture", ggufString("llama"))
      .set("count", ggufUInt32(7))
      .set("ratio", ggufFloat32(0.5f))
      .set("names", ggufStringArray({"a", "bc", ""}));
  f.addF32Tensor("w", {4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  f.addF32Tensor("b", {3}, {-1, 0, 1});
  return f;
}

class GgufFileTest : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& bytes, const std::string& name = "m.gguf") {
    const auto path = m_dir.path() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::filesystem::path write(const GgufTestFile& file) { return write(file.bytes()); }

  /** The FormatError reading `bytes` throws; fails the test when it reads. */
  std::string errorOf(const std::string& bytes) {
    const auto path = write(bytes);
    try {
      GgufFile gguf(path);
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
      return e.what();
    }
    ADD_FAILURE() << "the file was read without error";
    return {};
  }
  std::string errorOf(const GgufTestFile& file) { return errorOf(file.bytes()); }

  TempDir m_dir;
};

void putU64(std::string& bytes, size_t at, uint64_t value) {
  std::memcpy(bytes.data() + at, &value, sizeof value);
}

TEST_F(GgufFileTest, ReadsMetadataOfEveryTypeAndTheTensors) {
  GgufTestFile f = validFile();
  f.set("u8", ggufUInt8(200)).set("i8", ggufInt8(-100)).set("u16", ggufUInt16(60000));
  f.set("i16", ggufInt16(-30000)).set("i32", ggufInt32(-5)).set("u64", ggufUInt64(1ull << 40));
  f.set("i64", ggufInt64(-(1ll << 40))).set("f64", ggufFloat64(2.25)).set("yes", ggufBool(true));
  f.set("ints", ggufInt32Array({3, -4})).set("floats", ggufFloat32Array({0.25f, -1.5f}));
  f.set("nested", ggufArray(GgufValueType::Array, {ggufInt32Array({1}), ggufInt32Array({})}));
  const GgufFile gguf(write(f));
  EXPECT_EQ(gguf.version(), 3u);
  EXPECT_EQ(gguf.string("general.architecture"), "llama");
  EXPECT_EQ(gguf.unsignedInteger("count"), 7u);
  EXPECT_EQ(gguf.number("ratio"), 0.5);
  EXPECT_EQ(gguf.stringArray("names"), (std::vector<std::string>{"a", "bc", ""}));
  EXPECT_EQ(gguf.integer("u8"), 200);
  EXPECT_EQ(gguf.integer("i8"), -100);
  EXPECT_EQ(gguf.integer("u16"), 60000);
  EXPECT_EQ(gguf.integer("i16"), -30000);
  EXPECT_EQ(gguf.integer("i32"), -5);
  EXPECT_EQ(gguf.unsignedInteger("u64"), 1ull << 40);
  EXPECT_EQ(gguf.integer("i64"), -(1ll << 40));
  EXPECT_EQ(gguf.number("f64"), 2.25);
  EXPECT_TRUE(gguf.boolean("yes"));
  EXPECT_EQ(gguf.integerArray("ints"), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(gguf.numberArray("floats"), (std::vector<double>{0.25, -1.5}));
  EXPECT_EQ(gguf.find("u8")->type, GgufValueType::UInt8);
  EXPECT_EQ(gguf.find("nested")->type, GgufValueType::Array);
  EXPECT_EQ(gguf.find("missing"), nullptr);

  ASSERT_EQ(gguf.tensors().size(), 2u);
  const GgufTensorInfo& w = *gguf.findTensor("w");
  EXPECT_EQ(w.dims, (std::vector<int64_t>{4, 2}));
  EXPECT_EQ(w.shape, (std::vector<int64_t>{2, 4}));  // row-major: innermost last
  EXPECT_EQ(w.byteSize, 32u);
  EXPECT_EQ(w.offset % 32, 0u);
  float values[8];
  std::memcpy(values, gguf.tensorData(w).data(), sizeof values);
  EXPECT_EQ(values[5], 6.0f);
  const GgufTensorInfo& b = *gguf.findTensor("b");
  float last = 0;
  std::memcpy(&last, gguf.tensorData(b).data() + 8, sizeof last);
  EXPECT_EQ(last, 1.0f);
}

TEST_F(GgufFileTest, ReadsVersionTwoAndHonoursTheAlignmentKey) {
  GgufTestFile f = validFile();
  f.setVersion(2).set("general.alignment", ggufUInt32(64));
  const GgufFile gguf(write(f));
  EXPECT_EQ(gguf.version(), 2u);
  EXPECT_EQ(gguf.alignment(), 64u);
  EXPECT_EQ(gguf.dataOffset() % 64, 0u);
  EXPECT_EQ(gguf.findTensor("b")->offset % 64, 0u);
}

TEST_F(GgufFileTest, TypedReadsNameTheKeyThatIsMissingOrOfAnotherType) {
  const GgufFile gguf(write(validFile()));
  try {
    (void)gguf.integer("general.architecture");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(
        std::string(e.what()).find("key 'general.architecture': holds string, expected an integer"),
        std::string::npos)
        << e.what();
  }
  try {
    (void)gguf.string("llama.block_count");
    FAIL();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("key 'llama.block_count': is missing"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)gguf.stringArray("count"), FormatError);
  EXPECT_THROW((void)gguf.boolean("ratio"), FormatError);
}

TEST_F(GgufFileTest, RefusesAWrongMagicAndUnknownVersions) {
  std::string bytes = validFile().bytes();
  bytes[0] = 'X';
  EXPECT_NE(errorOf(bytes).find("not a GGUF file"), std::string::npos);
  EXPECT_NE(errorOf("GG").find("not a GGUF file"), std::string::npos);
  for (uint32_t version : {1u, 4u, 0xFFFFFFFFu}) {
    GgufTestFile f = validFile();
    f.setVersion(version);
    EXPECT_NE(errorOf(f).find("GGUF version " + std::to_string(version) + " is not supported"),
              std::string::npos);
  }
}

TEST_F(GgufFileTest, EveryTruncationIsAFormatErrorNeverACrash) {
  const std::string bytes = validFile().bytes();
  const GgufFile whole(write(bytes, "whole.gguf"));
  for (size_t length = 0; length < bytes.size(); ++length) {
    const std::string cut = bytes.substr(0, length);
    const std::string error = errorOf(cut);
    if (length >= whole.dataOffset()) {  // the header is complete: the data is what is missing
      EXPECT_NE(error.find("runs past the end of the file"), std::string::npos) << error;
    }
  }
}

TEST_F(GgufFileTest, AbsurdCountsAreRefusedBeforeAnythingIsAllocated) {
  std::string bytes = validFile().bytes();
  std::string tensors = bytes, keys = bytes;
  putU64(tensors, 8, uint64_t{1} << 60);  // tensor count
  putU64(keys, 16, uint64_t{1} << 60);    // metadata count
  EXPECT_NE(errorOf(tensors).find("tensors cannot fit in the file"), std::string::npos);
  EXPECT_NE(errorOf(keys).find("metadata entries cannot fit in the file"), std::string::npos);

  GgufTestFile array;
  array.set("big", ggufInt32Array({1, 2}));
  std::string arrayBytes = array.bytes();
  // magic 4, version 4, counts 16, key length 8 + "big" 3, type 4, element type 4 → count
  putU64(arrayBytes, 4 + 4 + 16 + 8 + 3 + 4 + 4, uint64_t{1} << 61);
  const std::string error = errorOf(arrayBytes);
  EXPECT_NE(error.find("key 'big'"), std::string::npos) << error;
  EXPECT_NE(error.find("cannot fit in the rest of the file"), std::string::npos) << error;

  GgufTestFile text;
  text.set("s", ggufString("abc"));
  std::string textBytes = text.bytes();
  putU64(textBytes, 4 + 4 + 16 + 8 + 1 + 4, uint64_t{1} << 62);  // the value's length
  EXPECT_NE(errorOf(textBytes).find("runs past the end of the file"), std::string::npos);
}

TEST_F(GgufFileTest, RefusesBadTensorInfosNamingTheTensor) {
  auto withTensor = [](GgufTestTensor t) {
    GgufTestFile f;
    f.set("general.architecture", ggufString("llama"));
    f.addTensor(std::move(t));
    return f;
  };
  const std::string eight(32, '\0');
  EXPECT_NE(
      errorOf(withTensor({"five", {1, 1, 1, 1, 2}, 0, eight})).find("tensor 'five': 5 dimensions"),
      std::string::npos);
  EXPECT_NE(errorOf(withTensor({"zero", {0}, 0, ""})).find("tensor 'zero': dimension 0 is 0"),
            std::string::npos);
  EXPECT_NE(
      errorOf(withTensor({"odd", {2}, 99, eight})).find("tensor 'odd': unknown tensor type 99"),
      std::string::npos);
  EXPECT_NE(
      errorOf(withTensor({"q", {16}, 12, std::string(144, '\0')}))
          .find("tensor 'q': its row of 16 elements is not a whole number of Q4_K blocks of 256"),
      std::string::npos);
  EXPECT_NE(errorOf(withTensor({"moved", {2}, 0, eight, uint64_t{8}}))
                .find("tensor 'moved': its offset 8 is not a multiple of the alignment 32"),
            std::string::npos);
  EXPECT_NE(errorOf(withTensor({"far", {2}, 0, eight, uint64_t{1} << 40}))
                .find("tensor 'far': its data (8 bytes at data offset 1099511627776) runs past"),
            std::string::npos);

  GgufTestFile overlap;
  overlap.addTensor({"first", {16}, 0, std::string(64, '\0'), uint64_t{0}});
  overlap.addTensor({"second", {8}, 0, std::string(32, '\0'), uint64_t{32}});
  EXPECT_NE(errorOf(overlap).find("tensor 'second': its data overlaps tensor 'first'"),
            std::string::npos);

  GgufTestFile twice;
  twice.addF32Tensor("t", {1}, {1}).addF32Tensor("t", {1}, {2});
  EXPECT_NE(errorOf(twice).find("tensor 't': the tensor name appears twice"), std::string::npos);
}

TEST_F(GgufFileTest, RefusesBadAlignmentsValueTypesAndBools) {
  GgufTestFile three = validFile();
  three.set("general.alignment", ggufUInt32(3));
  EXPECT_NE(errorOf(three).find("alignment 3 is not a power of two"), std::string::npos);
  GgufTestFile text = validFile();
  text.set("general.alignment", ggufString("32"));
  EXPECT_NE(errorOf(text).find("key 'general.alignment': must be an integer"), std::string::npos);

  GgufTestFile flag;
  flag.set("flag", ggufBool(true));
  std::string bytes = flag.bytes();
  bytes[4 + 4 + 16 + 8 + 4 + 4] = 2;  // magic, version, counts, key "flag", type: the bool
  EXPECT_NE(errorOf(bytes).find("key 'flag': a bool holds 2"), std::string::npos);

  GgufTestFile typed;
  typed.set("t", ggufUInt8(1));
  std::string typedBytes = typed.bytes();
  typedBytes[4 + 4 + 16 + 8 + 1] = 13;  // the value type
  EXPECT_NE(errorOf(typedBytes).find("key 't': unknown value type 13"), std::string::npos);

  GgufTestFile deep;
  deep.set("deep",
           ggufArray(GgufValueType::Array,
                     {ggufArray(GgufValueType::Array,
                                {ggufArray(GgufValueType::Array, {ggufInt32Array({1})})})}));
  EXPECT_NE(errorOf(deep).find("arrays nested more than 3 deep"), std::string::npos);
}

}  // namespace
}  // namespace strata::io
