// The safetensors reader: every validation rule of the reference parser, one malformed file
// each, and the legal corner cases (every dtype, rank 0, zero elements, metadata). Files are
// built byte by byte here, independently of SafetensorsWriter.

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/hf/safetensors_file.h"
#include "io/mapped_file.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

std::vector<std::byte> toBytes(std::string_view text) {
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// 8-byte little-endian length (the header's own, unless `length` overrides it), header, data.
std::vector<std::byte> fileBytes(std::string_view header, std::string_view data = {},
                                 std::optional<uint64_t> length = std::nullopt) {
  const uint64_t n = length.value_or(header.size());
  std::string raw;
  for (int i = 0; i < 8; ++i) raw += static_cast<char>((n >> (8 * i)) & 0xFF);
  raw += header;
  raw += data;
  return toBytes(raw);
}

void writeFile(const std::filesystem::path& file, const std::vector<std::byte>& bytes) {
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

struct MalformedCase {
  const char* name;
  std::vector<std::byte> bytes;
  std::string problem;      // a phrase the message must contain
  std::string tensor = {};  // the tensor the error must name, if one is at fault
};

// Names the case in gtest's failure output instead of dumping the struct's bytes.
void PrintTo(const MalformedCase& malformed, std::ostream* out) { *out << malformed.name; }

const std::string kF32x1 = R"({"dtype":"F32","shape":[1],"data_offsets":[0,4]})";

std::vector<MalformedCase> malformedCases() {
  const std::string data4(4, '\0'), data8(8, '\0'), data12(12, '\0');
  return {
      {"ShorterThanLengthPrefix", toBytes("\x01\x02\x03"), "shorter than the 8-byte header length"},
      {"HeaderLengthOverLimit", fileBytes("{}", "", 100'000'001), "exceeds the limit of 100000000"},
      {"HeaderPastEndOfFile", fileBytes("{}", "", 100), "runs past the end of the file"},
      {"HeaderNotJson", fileBytes(R"({"w": )"), "not valid UTF-8 JSON"},
      {"HeaderNotUtf8", fileBytes("{\"w\xff\": 1}"), "not valid UTF-8 JSON"},
      {"HeaderNotAnObject", fileBytes("[1, 2]"), "does not start with '{'"},
      {"EmptyHeader", fileBytes(""), "does not start with '{'"},
      {"DuplicateTensorName",
       fileBytes(R"({"w":)" + kF32x1 + R"(,"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                 data8),
       "duplicate tensor name", "w"},
      {"DuplicateKeyInEntry",
       fileBytes(R"({"w":{"dtype":"F32","dtype":"I32","shape":[1],"data_offsets":[0,4]}})", data4),
       "duplicate key \"dtype\" in header entry of 'w'"},
      {"EntryNotAnObject", fileBytes(R"({"w": 5})"), "header entry is not an object", "w"},
      {"MissingDtype", fileBytes(R"({"w":{"shape":[1],"data_offsets":[0,4]}})", data4),
       "no \"dtype\"", "w"},
      {"DtypeNotAString", fileBytes(R"({"w":{"dtype":3,"shape":[1],"data_offsets":[0,4]}})", data4),
       "\"dtype\" is not a string", "w"},
      {"UnsupportedDtypeU16",
       fileBytes(R"({"w":{"dtype":"U16","shape":[2],"data_offsets":[0,4]}})", data4),
       "unsupported dtype \"U16\" (supported: F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL; "
       "U16, U32, U64 and F8 types are not supported)",
       "w"},
      {"UnsupportedDtypeF8",
       fileBytes(R"({"w":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]}})", data4),
       "unsupported dtype \"F8_E4M3\"", "w"},
      {"MissingShape", fileBytes(R"({"w":{"dtype":"F32","data_offsets":[0,4]}})", data4),
       "no \"shape\"", "w"},
      {"ShapeNotAnArray",
       fileBytes(R"({"w":{"dtype":"F32","shape":1,"data_offsets":[0,4]}})", data4),
       "\"shape\" is not an array", "w"},
      {"NegativeDimension",
       fileBytes(R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", data4),
       "negative dimension -1", "w"},
      {"FractionalDimension",
       fileBytes(R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", data4),
       "must hold non-negative integers", "w"},
      {"MissingDataOffsets", fileBytes(R"({"w":{"dtype":"F32","shape":[1]}})", data4),
       "no \"data_offsets\"", "w"},
      {"DataOffsetsNotTwoNumbers",
       fileBytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", data4),
       "must be two unsigned integers", "w"},
      {"DataOffsetsNegative",
       fileBytes(R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[-4,-4]}})", ""),
       "must be two unsigned integers", "w"},
      {"DataOffsetsDescending",
       fileBytes(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", data4),
       "data_offsets [4, 0] are not ascending", "w"},
      {"SizeDisagreesWithShape",
       fileBytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", data4),
       "span 4 bytes, but shape [2] of F32 needs 8", "w"},
      {"ShapeOverflowsByteSize",
       fileBytes(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,4]}})",
                 data4),
       "byte size overflows", "w"},
      {"OffsetsPastEndOfData",
       fileBytes(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", data4),
       "run past the end of the data section (4 bytes)", "w"},
      {"OverlappingOffsets",
       fileBytes(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                 R"("b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})",
                 data12),
       "data_offsets [4, 12] overlap tensor 'a' [0, 8]", "b"},
      {"GapBetweenTensors",
       fileBytes(R"({"a":)" + kF32x1 + R"(,"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
                 data12),
       "gap of 4 unused bytes after tensor 'a'", "b"},
      {"FirstTensorNotAtZero",
       fileBytes(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", data8),
       "the first tensor starts at byte 4 instead of 0", "a"},
      {"TrailingBytes", fileBytes(R"({"a":)" + kF32x1 + "}", data4 + "xy"),
       "2 trailing bytes after the last tensor"},
      {"DataWithoutTensors", fileBytes("{}", data4), "4 trailing bytes"},
      {"MetadataNotAnObject", fileBytes(R"({"__metadata__":["pt"]})"),
       "\"__metadata__\" is not an object of string values"},
      {"MetadataValueNotAString", fileBytes(R"({"__metadata__":{"n":1}})"),
       "metadata key 'n': \"__metadata__\" values must be strings"},
  };
}

class SafetensorsReaderRejects : public testing::TestWithParam<MalformedCase> {};

void expectNamedFormatError(const std::function<void()>& read, const std::filesystem::path& file,
                            const MalformedCase& malformed) {
  try {
    read();
    ADD_FAILURE() << "accepted a malformed file";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.file(), file);
    const std::string message = e.what();
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_NE(message.find(malformed.problem), std::string::npos) << message;
    if (!malformed.tensor.empty()) {
      EXPECT_EQ(e.item(), malformed.tensor) << message;
      EXPECT_NE(message.find("tensor '" + malformed.tensor + "'"), std::string::npos) << message;
    }
  }
}

TEST_P(SafetensorsReaderRejects, MalformedFile) {
  const MalformedCase& malformed = GetParam();
  TempDir dir;
  const auto file = dir / (std::string(malformed.name) + ".safetensors");
  writeFile(file, malformed.bytes);

  // The three entry points share one validation; each must refuse the file the same way.
  expectNamedFormatError([&] { SafetensorsFile::open(file); }, file, malformed);
  expectNamedFormatError([&] { readSafetensorsHeader(file); }, file, malformed);
  expectNamedFormatError([&] { SafetensorsFile::fromBytes(malformed.bytes, file); }, file,
                         malformed);
}

INSTANTIATE_TEST_SUITE_P(Safetensors, SafetensorsReaderRejects, testing::ValuesIn(malformedCases()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(SafetensorsReader, ReadsHandMadeFileExactly) {
  // F32 [1.5, -2.0] little-endian, then an I64 scalar 7, header padded with spaces.
  const std::string data(
      "\x00\x00\xC0\x3F\x00\x00\x00\xC0"
      "\x07\x00\x00\x00\x00\x00\x00\x00",
      16);
  const std::string header = R"({"__metadata__":{"format":"pt","by":"hand"},)"
                             R"("s":{"dtype":"I64","shape":[],"data_offsets":[8,16]},)"
                             R"("v":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}     )";
  const auto file = SafetensorsFile::fromBytes(fileBytes(header, data), "hand.safetensors");

  EXPECT_EQ(file->metadata(),
            (std::map<std::string, std::string>{{"by", "hand"}, {"format", "pt"}}));
  ASSERT_EQ(file->tensors().size(), 2u);
  EXPECT_EQ(file->tensors()[0].name, "v");  // sorted by offset, not by name
  float values[2];
  std::memcpy(values, file->bytes(file->at("v")).data(), sizeof values);
  EXPECT_EQ(values[0], 1.5f);
  EXPECT_EQ(values[1], -2.0f);

  const TensorEntry& scalar = file->at("s");
  EXPECT_EQ(scalar.dtype, DType::I64);
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.numel(), 1);
  int64_t seven = 0;
  std::memcpy(&seven, file->bytes(scalar).data(), sizeof seven);
  EXPECT_EQ(seven, 7);
}

TEST(SafetensorsReader, AcceptsEveryDtype) {
  const std::pair<const char*, DType> dtypes[] = {
      {"F64", DType::F64}, {"F32", DType::F32},  {"F16", DType::F16}, {"BF16", DType::BF16},
      {"I64", DType::I64}, {"I32", DType::I32},  {"I16", DType::I16}, {"I8", DType::I8},
      {"U8", DType::U8},   {"BOOL", DType::Bool}};
  std::string header = "{";
  std::string data;
  for (const auto& [name, dtype] : dtypes) {
    const std::size_t size = 3 * dtypeSize(dtype);
    header += std::string(data.empty() ? "" : ",") + "\"t" + name + "\":{\"dtype\":\"" + name +
              "\",\"shape\":[3],\"data_offsets\":[" + std::to_string(data.size()) + "," +
              std::to_string(data.size() + size) + "]}";
    for (std::size_t i = 0; i < size; ++i) data += static_cast<char>(i % 2);  // valid bools too
  }
  const auto file = SafetensorsFile::fromBytes(fileBytes(header + "}", data), "all.safetensors");
  for (const auto& [name, dtype] : dtypes) {
    const TensorEntry& entry = file->at(std::string("t") + name);
    EXPECT_EQ(entry.dtype, dtype) << name;
    EXPECT_EQ(entry.shape, std::vector<int64_t>{3});
    EXPECT_EQ(entry.byteSize(), 3 * dtypeSize(dtype));
    EXPECT_EQ(file->bytes(entry).size(), entry.byteSize());
  }
}

TEST(SafetensorsReader, AcceptsZeroSizeTensorsAnywhere) {
  const std::string header = R"({"e":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},)"
                             R"("w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                             R"("z":{"dtype":"BF16","shape":[4,0],"data_offsets":[2,2]}})";
  const auto file = SafetensorsFile::fromBytes(fileBytes(header, "ab"), "zero.safetensors");
  EXPECT_EQ(file->at("e").numel(), 0);
  EXPECT_EQ(file->at("z").numel(), 0);
  EXPECT_TRUE(file->bytes(file->at("z")).empty());
}

TEST(SafetensorsReader, AcceptsAnEmptyFileOfTensors) {
  const auto file = SafetensorsFile::fromBytes(fileBytes("{}       "), "empty.safetensors");
  EXPECT_TRUE(file->tensors().empty());
  EXPECT_TRUE(file->metadata().empty());
}

TEST(SafetensorsReader, HeaderOnlyReadAgreesWithMappedFile) {
  TempDir dir;
  const std::string header = R"({"__metadata__":{"format":"pt"},"b":)" + kF32x1 +
                             R"(,"a":{"dtype":"I8","shape":[2,1],"data_offsets":[4,6]}})";
  writeFile(dir / "m.safetensors", fileBytes(header, "abcdef"));

  const SafetensorsHeaderInfo info = readSafetensorsHeader(dir / "m.safetensors");
  const auto mapped = SafetensorsFile::open(dir / "m.safetensors");
  EXPECT_EQ(info.tensors, mapped->tensors());
  EXPECT_EQ(info.metadata, mapped->metadata());
  EXPECT_EQ(info.dataOffset(), 8 + header.size());
  EXPECT_EQ(info.dataSize(), 6u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(mapped->bytes(mapped->at("a")).data()), 2),
            "ef");
}

TEST(SafetensorsReader, AtNamesTheFileAndTheMissingTensor) {
  const auto file = SafetensorsFile::fromBytes(fileBytes("{}"), "x.safetensors");
  EXPECT_EQ(file->find("nope"), nullptr);
  try {
    file->at("nope");
    FAIL() << "no exception";
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "x.safetensors: tensor 'nope': no such tensor in this file");
  }
}

TEST(SafetensorsReader, MissingFileIsAnIoErrorNamingIt) {
  TempDir dir;
  EXPECT_THROW(SafetensorsFile::open(dir / "absent.safetensors"), IoError);
  try {
    readSafetensorsHeader(dir / "absent.safetensors");
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_EQ(e.file(), dir / "absent.safetensors");
  }
}

TEST(SafetensorsReader, FindsNanAndInfInFloatTensorsOnly) {
  // F16 NaN 0x7E00, BF16 +Inf 0x7F80, F64 -Inf, F32 finite, I32 with an "Inf" bit pattern.
  const std::string data(
      "\x00\x7E"                          // h: F16 NaN
      "\x80\x7F"                          // b: BF16 +Inf
      "\x00\x00\x00\x00\x00\x00\xF0\xFF"  // d: F64 -Inf
      "\x00\x00\x80\x3F"                  // f: F32 1.0
      "\x00\x00\x80\x7F",                 // i: I32, not a float
      20);
  const std::string header = R"({"h":{"dtype":"F16","shape":[1],"data_offsets":[0,2]},)"
                             R"("b":{"dtype":"BF16","shape":[1],"data_offsets":[2,4]},)"
                             R"("d":{"dtype":"F64","shape":[],"data_offsets":[4,12]},)"
                             R"("f":{"dtype":"F32","shape":[1],"data_offsets":[12,16]},)"
                             R"("i":{"dtype":"I32","shape":[1],"data_offsets":[16,20]}})";
  const auto file = SafetensorsFile::fromBytes(fileBytes(header, data), "nan.safetensors");
  EXPECT_EQ(findNonFiniteTensors(*file), (std::vector<std::string>{"h", "b", "d"}));
}

TEST(SafetensorsMappedFile, MapsAnEmptyFileAsNoBytes) {
  TempDir dir;
  std::ofstream(dir / "empty").close();
  const MappedFile mapped(dir / "empty");
  EXPECT_TRUE(mapped.bytes().empty());
  EXPECT_THROW(SafetensorsFile::open(dir / "empty"), FormatError);  // shorter than 8 bytes
}

TEST(SafetensorsMappedFile, MoveKeepsTheMapping) {
  TempDir dir;
  writeFile(dir / "f", toBytes("hello"));
  MappedFile first(dir / "f");
  MappedFile second(std::move(first));
  EXPECT_TRUE(first.bytes().empty());
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(second.bytes().data()), 5), "hello");
}

}  // namespace
}  // namespace strata::io
