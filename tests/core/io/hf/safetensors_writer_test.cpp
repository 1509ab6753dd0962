// Writing safetensors: round trips of every dtype (through LibTorch and through the raw
// writer), header layout, argument checks, and atomicity of the write itself.

#include "io/hf/safetensors_writer.h"

#include <ATen/ATen.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <stdexcept>

#include "common/error.h"
#include "io/atomic_file.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/safetensors_torch.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

std::string readAll(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::vector<std::string> folderEntries(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& item : std::filesystem::directory_iterator(folder))
    names.push_back(item.path().filename().string());
  return names;
}

model::NamedTensors oneOfEachScalarType() {
  at::manual_seed(7);
  const auto values = at::randn({2, 3}) * 50;
  return {{"f64", values.to(at::kDouble)},     {"f32", values},
          {"f16", values.to(at::kHalf)},       {"bf16", values.to(at::kBFloat16)},
          {"i64", values.to(at::kLong)},       {"i32", values.to(at::kInt)},
          {"i16", values.to(at::kShort)},      {"i8", values.to(at::kChar)},
          {"u8", values.abs().to(at::kByte)},  {"bool", values > 0},
          {"scalar", at::scalar_tensor(3.25)}, {"empty", at::zeros({0, 4})}};
}

TEST(SafetensorsWriter, RoundTripsEveryScalarTypeThroughTorch) {
  TempDir dir;
  const model::NamedTensors tensors = oneOfEachScalarType();
  model::writeSafetensors(dir / "all.safetensors", tensors);

  const auto file = SafetensorsFile::open(dir / "all.safetensors");
  ASSERT_EQ(file->tensors().size(), tensors.size());
  for (const auto& [name, original] : tensors) {
    const at::Tensor back = model::tensorView(file, file->at(name));
    EXPECT_EQ(back.scalar_type(), original.scalar_type()) << name;
    EXPECT_EQ(back.sizes(), original.sizes()) << name;
    EXPECT_TRUE(at::equal(back, original)) << name;  // bit-exact, BF16/F16 included
  }
}

TEST(SafetensorsWriter, RoundTripsEveryDtypeThroughTheRawWriter) {
  TempDir dir;
  const DType dtypes[] = {DType::F64, DType::F32, DType::F16, DType::BF16, DType::I64,
                          DType::I32, DType::I16, DType::I8,  DType::U8,   DType::Bool};
  std::vector<std::vector<std::byte>> payloads;
  SafetensorsWriter writer;
  for (DType dtype : dtypes) {
    std::vector<std::byte> bytes(2 * 2 * dtypeSize(dtype));
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(i % 2);
    payloads.push_back(std::move(bytes));
    writer.add(std::string(dtypeName(dtype)), dtype, {2, 2}, payloads.back());
  }
  writer.write(dir / "raw.safetensors");

  const auto file = SafetensorsFile::open(dir / "raw.safetensors");
  for (std::size_t i = 0; i < std::size(dtypes); ++i) {
    const TensorEntry& entry = file->at(dtypeName(dtypes[i]));
    EXPECT_EQ(entry.dtype, dtypes[i]);
    const auto bytes = file->bytes(entry);
    EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), payloads[i].begin(), payloads[i].end()));
  }
}

TEST(SafetensorsWriter, PadsTheHeaderWithSpacesToAMultipleOf8) {
  TempDir dir;
  for (const std::string name : {"a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "w8"}) {
    const std::byte one{1};
    SafetensorsWriter writer;
    writer.add(name, DType::U8, {1}, {&one, 1});
    writer.write(dir / "p.safetensors");

    const std::string raw = readAll(dir / "p.safetensors");
    uint64_t length = 0;
    std::memcpy(&length, raw.data(), 8);
    EXPECT_EQ(length % 8, 0u) << name;
    const std::string header = raw.substr(8, length);
    EXPECT_EQ(header.find_last_not_of(' '), header.rfind('}')) << header;
    EXPECT_EQ(raw.size(), 8 + length + 1);
  }
}

TEST(SafetensorsWriter, WritesFormatPtMetadataByDefault) {
  TempDir dir;
  SafetensorsWriter writer;
  writer.write(dir / "m.safetensors");
  EXPECT_EQ(SafetensorsFile::open(dir / "m.safetensors")->metadata(),
            (std::map<std::string, std::string>{{"format", "pt"}}));

  model::writeSafetensors(dir / "n.safetensors", {}, {{"step", "12"}});
  EXPECT_EQ(SafetensorsFile::open(dir / "n.safetensors")->metadata(),
            (std::map<std::string, std::string>{{"format", "pt"}, {"step", "12"}}));
}

TEST(SafetensorsWriter, LaysTensorsOutInInsertionOrder) {
  TempDir dir;
  model::writeSafetensors(dir / "o.safetensors",
                          {{"z", at::ones({3})}, {"a", at::ones({2})}, {"m", at::ones({1})}});
  const auto file = SafetensorsFile::open(dir / "o.safetensors");
  ASSERT_EQ(file->tensors().size(), 3u);
  EXPECT_EQ(file->tensors()[0].name, "z");
  EXPECT_EQ(file->tensors()[1].name, "a");
  EXPECT_EQ(file->tensors()[2].name, "m");
}

TEST(SafetensorsWriter, WritesNonContiguousTensorsAsTheirValues) {
  TempDir dir;
  const at::Tensor transposed = at::arange(12, at::kFloat).reshape({3, 4}).t();
  model::writeSafetensors(dir / "t.safetensors", {{"t", transposed}});
  const auto file = SafetensorsFile::open(dir / "t.safetensors");
  EXPECT_TRUE(at::equal(model::tensorView(file, file->at("t")), transposed));
}

TEST(SafetensorsWriter, RejectsDuplicateNames) {
  const std::byte one{1};
  SafetensorsWriter writer;
  writer.add("w", DType::U8, {1}, {&one, 1});
  try {
    writer.add("w", DType::U8, {1}, {&one, 1});
    FAIL() << "accepted a duplicate";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.item(), "w");
  }
}

TEST(SafetensorsWriter, RejectsDataOfTheWrongSize) {
  const std::byte bytes[6] = {};
  SafetensorsWriter writer;
  try {
    writer.add("w", DType::F32, {2}, bytes);
    FAIL() << "accepted 6 bytes for two F32";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.item(), "w");
    EXPECT_NE(std::string(e.what()).find("data is 6 bytes, but the shape and F32 need 8"),
              std::string::npos);
  }
  EXPECT_THROW(writer.add("__metadata__", DType::U8, {0}, {}), FormatError);
  EXPECT_THROW(writer.add("n", DType::U8, {-1}, {}), FormatError);
}

TEST(SafetensorsWriter, RejectsScalarTypesSafetensorsCannotHold) {
  TempDir dir;
  try {
    model::writeSafetensors(dir / "c.safetensors", {{"c", at::zeros({2}, at::kComplexFloat)}});
    FAIL() << "accepted a complex tensor";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.item(), "c");
    EXPECT_NE(std::string(e.what()).find("ComplexFloat"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(folderEntries(dir.path()).empty());
}

TEST(SafetensorsWriter, WritingIntoAMissingFolderIsAnIoError) {
  TempDir dir;
  const auto target = dir / "missing" / "w.safetensors";
  try {
    SafetensorsWriter().write(target);
    FAIL() << "wrote into a missing folder";
  } catch (const IoError& e) {
    EXPECT_EQ(e.file(), target);
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos);
  }
}

TEST(SafetensorsWriter, WritingIntoAReadOnlyFolderIsAnIoError) {
  TempDir dir;
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  if (::access(dir.path().c_str(), W_OK) == 0)
    GTEST_SKIP() << "running as root: folder permissions are not enforced";
  EXPECT_THROW(SafetensorsWriter().write(dir / "w.safetensors"), IoError);
}

TEST(SafetensorsWriter, WritingWhereNoFileCanBeCreatedIsAnIoError) {
  // /proc refuses new files even to root, unlike a chmod'ed folder.
  const std::filesystem::path target = "/proc/strata-test.safetensors";
  try {
    SafetensorsWriter().write(target);
    FAIL() << "wrote into /proc";
  } catch (const IoError& e) {
    EXPECT_EQ(e.file(), target);
    EXPECT_NE(std::string(e.what()).find("cannot create a temporary file in '/proc'"),
              std::string::npos)
        << e.what();
  }
}

TEST(SafetensorsWriter, WritingBelowARegularFileIsAnIoError) {
  TempDir dir;
  std::ofstream(dir / "file").put('x');
  EXPECT_THROW(SafetensorsWriter().write(dir / "file" / "w.safetensors"), IoError);
}

TEST(SafetensorsWriter, FailedRenameLeavesNoTemporaryFile) {
  TempDir dir;
  std::filesystem::create_directories(dir / "w.safetensors" / "occupied");  // cannot be replaced
  EXPECT_THROW(SafetensorsWriter().write(dir / "w.safetensors"), IoError);
  EXPECT_EQ(folderEntries(dir.path()), std::vector<std::string>{"w.safetensors"});
}

TEST(SafetensorsAtomicWrite, FailingWriteLeavesNoTemporaryAndNoTarget) {
  TempDir dir;
  EXPECT_THROW(writeFileAtomically(dir / "t.json",
                                   [&](int fd) {
                                     writeAll(fd, "partial", 7, dir / "t.json");
                                     throw std::runtime_error("writer gave up");
                                   }),
               std::runtime_error);
  EXPECT_TRUE(folderEntries(dir.path()).empty());
}

TEST(SafetensorsAtomicWrite, FailingWriteKeepsThePreviousTarget) {
  TempDir dir;
  std::ofstream(dir / "t.json") << "old";
  EXPECT_THROW(
      writeFileAtomically(dir / "t.json", [](int) { throw std::runtime_error("writer gave up"); }),
      std::runtime_error);
  EXPECT_EQ(readAll(dir / "t.json"), "old");
  EXPECT_EQ(folderEntries(dir.path()), std::vector<std::string>{"t.json"});
}

TEST(SafetensorsAtomicWrite, ReplacesTheTargetWhole) {
  TempDir dir;
  std::ofstream(dir / "t.json") << "old contents, longer";
  writeFileAtomically(dir / "t.json", [&](int fd) { writeAll(fd, "new", 3, dir / "t.json"); });
  EXPECT_EQ(readAll(dir / "t.json"), "new");
  EXPECT_EQ(folderEntries(dir.path()), std::vector<std::string>{"t.json"});
}

TEST(SafetensorsAtomicWrite, WriteAllReportsAFullDisk) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "/dev/full is not available";
  const std::string data(4096, 'x');
  try {
    writeAll(fd, data.data(), data.size(), "/checkpoints/w.safetensors");
    ADD_FAILURE() << "wrote to a full device";
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/checkpoints/w.safetensors: disk full"),
              std::string::npos)
        << e.what();
  }
  ::close(fd);
}

}  // namespace
}  // namespace strata::io
