// The activation store: round trips, the h5py contract, and crash safety (a writer killed
// with SIGKILL in a forked child must leave its finished layers readable).

#include "io/store/activation_store.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <utility>

#include "common/error.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

// Chunks hold ~512 KiB of whole rows: 341 rows of float32 or 682 of float16 at this width,
// so every layer spans several chunks and row ranges can cross chunk boundaries.
constexpr int64_t kTokens = 800;
constexpr int64_t kHidden = 384;
constexpr int64_t kLayers = 5;  // layers 0..5 are stored

StoreMeta makeMeta(StoreDType dtype) {
  StoreMeta meta;
  meta.modelId = "strata/tiny-llama";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = kHidden;
  meta.numLayers = kLayers;
  meta.dtype = dtype;
  meta.corpusHash = "sha256:0123abcd";
  meta.samplingPolicy = R"({"skip_position_0": true, "tokens": 800})";
  meta.extra = {{"note", "written by a test — ünïcode kept"}, {"tokenizer", "byte-level BPE"}};
  return meta;
}

TokenTable makeTokens() {
  TokenTable tokens;
  for (int32_t i = 0; i < kTokens; ++i) {
    tokens.ids.push_back((i * 7919) % 50257);
    tokens.doc.push_back(i / 100);
    tokens.position.push_back(1 + i % 100);
  }
  return tokens;
}

// Deterministic per layer; the spread grows with depth as real hidden states do.
std::vector<float> layerValues(int64_t layer) {
  std::mt19937 rng(static_cast<unsigned>(layer) + 17);
  std::normal_distribution<float> normal(0.0f, 1.0f + 3.0f * static_cast<float>(layer));
  std::vector<float> values(kTokens * kHidden);
  for (float& v : values) v = normal(rng);
  return values;
}

// Half has an 11-bit significand: rounding moves a normal value by at most 2^-11 of itself;
// below the normal range the step is fixed at 2^-24, so at most 2^-25.
void expectHalfClose(const std::vector<float>& got, const std::vector<float>& given,
                     const std::string& label) {
  ASSERT_EQ(got.size(), given.size()) << label;
  for (size_t i = 0; i < given.size(); ++i) {
    const float tolerance =
        std::max(std::abs(given[i]) * std::ldexp(1.0f, -11), std::ldexp(1.0f, -25));
    ASSERT_NEAR(got[i], given[i], tolerance) << label << ", element " << i;
  }
}

ActivationStoreWriter writeStore(const std::filesystem::path& file, StoreDType dtype,
                                 int64_t layersToWrite) {
  auto writer = ActivationStoreWriter::create(file, makeMeta(dtype), makeTokens());
  for (int64_t layer = 0; layer < layersToWrite; ++layer) {
    writer.writeLayer(layer, layerValues(layer));
  }
  return writer;
}

// What `body` throws, as the type's message; fails the test when it throws nothing.
template <class ErrorType>
std::string messageOf(const std::function<void()>& body) {
  try {
    body();
  } catch (const ErrorType& error) {
    return error.what();
  }
  ADD_FAILURE() << "expected an exception";
  return {};
}

// Dies at once the way an OOM killer or a scheduler kills: no destructor, no atexit handler,
// no HDF5 close runs. Call it while the writer is still in scope.
void killSelf() { raise(SIGKILL); }  // does not return: SIGKILL can be neither caught nor ignored

// Runs `body` in a forked child that must die of `signal` inside it; returns once the child is
// dead. Fails when the child died any other way (exit code 3: `body` threw; 4: it returned).
void runInChildThatDiesOf(int signal, const std::function<void()>& body) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    try {
      body();
    } catch (...) {
      _exit(3);
    }
    _exit(4);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal)
      << "child exited with status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

// Runs `body`, which must end in killSelf(), in a forked child; returns once the child is dead.
void runInChildThatIsKilled(const std::function<void()>& body) {
  runInChildThatDiesOf(SIGKILL, body);
}

// Writes layers 0..2 of a store in a child process that is then killed mid-capture.
void writeThreeLayersThenGetKilled(const std::filesystem::path& file, StoreDType dtype) {
  runInChildThatIsKilled([&] {
    auto writer = ActivationStoreWriter::create(file, makeMeta(dtype), makeTokens());
    for (int64_t layer = 0; layer <= 2; ++layer) writer.writeLayer(layer, layerValues(layer));
    killSelf();
  });
}

// Runs create() in a forked child that dies inside it: RLIMIT_FSIZE makes the kernel kill the
// child with SIGXFSZ at its first write past `bytes`, which the token tables alone exceed, so
// it dies before the store is complete (deterministically, unlike a timed SIGKILL).
void createAndDieWritingPast(rlim_t bytes, const std::filesystem::path& file, bool overwrite) {
  runInChildThatDiesOf(SIGXFSZ, [&] {
    const rlimit noCore{0, 0};
    const rlimit small{bytes, bytes};
    if (setrlimit(RLIMIT_CORE, &noCore) != 0 || setrlimit(RLIMIT_FSIZE, &small) != 0) _exit(5);
    ActivationStoreWriter::create(file, makeMeta(StoreDType::Float32), makeTokens(), overwrite);
  });
}

TEST(ActivationStore, RoundTripsFloat32LayersExactly) {
  TempDir dir;
  writeStore(dir / "f32.h5", StoreDType::Float32, kLayers + 1).close();
  const ActivationStore store = ActivationStore::open(dir / "f32.h5");
  for (int64_t layer = 0; layer <= kLayers; ++layer) {
    EXPECT_EQ(store.readLayer(layer), layerValues(layer)) << "layer " << layer;
  }
}

TEST(ActivationStore, RoundsFloat16ToNearestEven) {
  // Exactly representable halves come back unchanged; ties round to the even mantissa.
  const std::vector<std::pair<float, float>> cases = {
      {0.0f, 0.0f},
      {-0.0f, -0.0f},
      {1.0f, 1.0f},
      {-2.5f, -2.5f},
      {1000.125f, 1000.0f},
      {65504.0f, 65504.0f},
      {-65504.0f, -65504.0f},
      {std::ldexp(1.0f, -14), std::ldexp(1.0f, -14)},                   // min normal
      {std::ldexp(1.0f, -24), std::ldexp(1.0f, -24)},                   // min subnormal
      {1.0f + std::ldexp(1.0f, -11), 1.0f},                             // tie → even
      {1.0f + 3 * std::ldexp(1.0f, -11), 1.0f + std::ldexp(1.0f, -9)},  // tie → even
      {std::ldexp(1.0f, -26), 0.0f}};                                   // underflow
  std::vector<float> values(kTokens * kHidden);
  std::vector<float> expected(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    values[i] = cases[i % cases.size()].first;
    expected[i] = cases[i % cases.size()].second;
  }
  TempDir dir;
  {
    auto writer =
        ActivationStoreWriter::create(dir / "f16.h5", makeMeta(StoreDType::Float16), makeTokens());
    writer.writeLayer(0, values);
  }
  const std::vector<float> got = ActivationStore::open(dir / "f16.h5").readLayer(0);
  for (size_t i = 0; i < cases.size(); ++i) {
    EXPECT_EQ(got[i], expected[i]) << "input " << values[i];
    EXPECT_EQ(std::signbit(got[i]), std::signbit(expected[i])) << "input " << values[i];
  }
  EXPECT_EQ(got, expected);
}

TEST(ActivationStore, RoundTripsFloat16WithinHalfPrecision) {
  TempDir dir;
  writeStore(dir / "f16.h5", StoreDType::Float16, kLayers + 1).close();
  const ActivationStore store = ActivationStore::open(dir / "f16.h5");
  for (int64_t layer = 0; layer <= kLayers; ++layer) {
    expectHalfClose(store.readLayer(layer), layerValues(layer), "layer " + std::to_string(layer));
  }
}

TEST(ActivationStore, RefusesFloat16OverflowNamingFileAndLayer) {
  TempDir dir;
  auto writer =
      ActivationStoreWriter::create(dir / "f16.h5", makeMeta(StoreDType::Float16), makeTokens());
  std::vector<float> values = layerValues(2);
  values[5 * kHidden + 1] = 70000.0f;
  const std::string message = messageOf<FormatError>([&] { writer.writeLayer(2, values); });
  EXPECT_NE(message.find((dir / "f16.h5").string()), std::string::npos) << message;
  EXPECT_NE(message.find("layers/2"), std::string::npos) << message;
  EXPECT_NE(message.find("float16 range"), std::string::npos) << message;
  EXPECT_EQ(writer.missingLayers().size(), static_cast<size_t>(kLayers + 1));
}

TEST(ActivationStore, RoundTripsMetadataAndTokens) {
  TempDir dir;
  writeStore(dir / "s.h5", StoreDType::Float16, 1).close();
  const ActivationStore store = ActivationStore::open(dir / "s.h5");
  const StoreMeta want = makeMeta(StoreDType::Float16);
  const StoreMeta& got = store.meta();
  EXPECT_EQ(got.modelId, want.modelId);
  EXPECT_EQ(got.architecture, want.architecture);
  EXPECT_EQ(got.hiddenSize, kHidden);
  EXPECT_EQ(got.numLayers, kLayers);
  EXPECT_EQ(got.dtype, StoreDType::Float16);
  EXPECT_EQ(got.corpusHash, want.corpusHash);
  EXPECT_EQ(got.samplingPolicy, want.samplingPolicy);
  EXPECT_EQ(got.extra, want.extra);
  EXPECT_FALSE(got.strataVersion.empty());
  ASSERT_EQ(got.createdUtc.size(), 20u) << got.createdUtc;  // 2024-05-01T12:00:00Z
  EXPECT_EQ(got.createdUtc.back(), 'Z');
  const TokenTable tokens = makeTokens();
  EXPECT_EQ(store.numTokens(), kTokens);
  EXPECT_EQ(store.tokens().ids, tokens.ids);
  EXPECT_EQ(store.tokens().doc, tokens.doc);
  EXPECT_EQ(store.tokens().position, tokens.position);
}

// Strata writes /meta strings fixed-length: variable-length strings live in HDF5's global heap,
// whose damaged collections make libhdf5 1.10 spin forever (found by fuzz_activation_store).
TEST(ActivationStore, WritesNoVariableLengthStrings) {
  TempDir dir;
  writeStore(dir / "s.h5", StoreDType::Float32, 1).close();
  const hid_t file = H5Fopen((dir / "s.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const hid_t meta = H5Gopen2(file, "meta", H5P_DEFAULT);
  ASSERT_GE(meta, 0);
  int strings = 0;
  for (hsize_t i = 0; i < static_cast<hsize_t>(H5Aget_num_attrs(meta)); ++i) {
    const hid_t attribute =
        H5Aopen_by_idx(meta, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t type = H5Aget_type(attribute);
    if (H5Tget_class(type) == H5T_STRING) {
      ++strings;
      EXPECT_EQ(H5Tis_variable_str(type), 0) << "attribute #" << i;
      EXPECT_EQ(H5Tget_cset(type), H5T_CSET_UTF8) << "attribute #" << i;
    }
    H5Tclose(type);
    H5Aclose(attribute);
  }
  EXPECT_GE(strings, 7);  // model_id, architecture, dtype, corpus_hash, sampling_policy, ...
  H5Gclose(meta);
  H5Fclose(file);
}

// Stores written before that change (and attributes added with h5py) hold variable-length
// strings; they still open.
TEST(ActivationStore, ReadsVariableLengthStringsOfOlderStores) {
  TempDir dir;
  writeStore(dir / "s.h5", StoreDType::Float32, 1).close();
  {
    const hid_t file = H5Fopen((dir / "s.h5").c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    ASSERT_GE(file, 0);
    const hid_t meta = H5Gopen2(file, "meta", H5P_DEFAULT);
    ASSERT_GE(H5Adelete(meta, "model_id"), 0);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    const hid_t space = H5Screate(H5S_SCALAR);
    const hid_t attribute = H5Acreate2(meta, "model_id", type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char* text = "older/vlen-model";
    ASSERT_GE(H5Awrite(attribute, type, &text), 0);
    H5Aclose(attribute);
    H5Sclose(space);
    H5Tclose(type);
    H5Gclose(meta);
    H5Fclose(file);
  }
  EXPECT_EQ(ActivationStore::open(dir / "s.h5").meta().modelId, "older/vlen-model");
}

TEST(ActivationStore, ReadsRowRanges) {
  TempDir dir;
  writeStore(dir / "s.h5", StoreDType::Float32, 2).close();
  const ActivationStore store = ActivationStore::open(dir / "s.h5");
  const std::vector<float> all = layerValues(1);
  const std::vector<float> rows = store.readRows(1, 330, 40);  // crosses the chunk at row 341
  EXPECT_EQ(rows, std::vector<float>(all.begin() + 330 * kHidden, all.begin() + 370 * kHidden));
  EXPECT_THROW(store.readRows(1, kTokens - 10, 11), FormatError);
}

TEST(ActivationStore, RefusesToReadAnUnfinishedLayer) {
  TempDir dir;
  writeStore(dir / "s.h5", StoreDType::Float16, 2).close();
  const ActivationStore store = ActivationStore::open(dir / "s.h5");
  EXPECT_EQ(store.completedLayers(), (std::vector<int64_t>{0, 1}));
  EXPECT_FALSE(store.layerComplete(2));
  const std::string message = messageOf<FormatError>([&] { store.readLayer(2); });
  EXPECT_NE(message.find((dir / "s.h5").string()), std::string::npos) << message;
  EXPECT_NE(message.find("layers/2"), std::string::npos) << message;
  EXPECT_NE(message.find("not finished"), std::string::npos) << message;
}

TEST(ActivationStore, RejectsWrongLayerSizeOrIndexNamingFileAndLayer) {
  TempDir dir;
  auto writer =
      ActivationStoreWriter::create(dir / "s.h5", makeMeta(StoreDType::Float32), makeTokens());
  const std::vector<float> tooShort(kTokens * kHidden - 1, 0.0f);
  std::string message = messageOf<FormatError>([&] { writer.writeLayer(3, tooShort); });
  EXPECT_NE(message.find((dir / "s.h5").string()), std::string::npos) << message;
  EXPECT_NE(message.find("layers/3"), std::string::npos) << message;
  message = messageOf<FormatError>([&] { writer.writeLayer(kLayers + 1, layerValues(0)); });
  EXPECT_NE(message.find("layers/6"), std::string::npos) << message;
  EXPECT_EQ(writer.missingLayers(), (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
}

TEST(ActivationStore, KilledWriterLeavesItsFinishedLayersReadable) {
  TempDir dir;
  const std::filesystem::path file = dir / "killed.h5";
  writeThreeLayersThenGetKilled(file, StoreDType::Float16);
  const ActivationStore store = ActivationStore::open(file);
  EXPECT_EQ(store.completedLayers(), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(store.meta().modelId, makeMeta(StoreDType::Float16).modelId);
  for (int64_t layer = 0; layer <= 2; ++layer) {
    expectHalfClose(store.readLayer(layer), layerValues(layer), "layer " + std::to_string(layer));
  }
  EXPECT_THROW(store.readLayer(3), FormatError);
}

TEST(ActivationStore, ResumeFinishesAStoreWhoseWriterWasKilled) {
  TempDir dir;
  const std::filesystem::path file = dir / "killed.h5";
  writeThreeLayersThenGetKilled(file, StoreDType::Float32);
  {
    auto writer = ActivationStoreWriter::resume(file);
    EXPECT_EQ(writer.meta().corpusHash, makeMeta(StoreDType::Float32).corpusHash);
    EXPECT_EQ(writer.numTokens(), kTokens);
    const std::vector<int64_t> missing = writer.missingLayers();
    EXPECT_EQ(missing, (std::vector<int64_t>{3, 4, 5}));
    for (int64_t layer : missing) writer.writeLayer(layer, layerValues(layer));
    EXPECT_TRUE(writer.missingLayers().empty());
    writer.close();
  }
  const ActivationStore store = ActivationStore::open(file);
  ASSERT_EQ(store.completedLayers().size(), static_cast<size_t>(kLayers + 1));
  for (int64_t layer = 0; layer <= kLayers; ++layer) {
    EXPECT_EQ(store.readLayer(layer), layerValues(layer)) << "layer " << layer;
  }
}

TEST(ActivationStore, ReaderFollowsALiveWriterThatRefusesASecondWriter) {
  TempDir dir;
  const std::filesystem::path file = dir / "live.h5";
  int ready[2], go[2];  // child → parent: layer 0 is written; parent → child: carry on
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(go), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(ready[0]);
    close(go[1]);  // so that read(go) sees end-of-file if the parent gives up
    try {
      auto writer =
          ActivationStoreWriter::create(file, makeMeta(StoreDType::Float16), makeTokens());
      writer.writeLayer(0, layerValues(0));
      char byte = 'r';
      if (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1) _exit(5);
      for (int64_t layer = 1; layer <= kLayers; ++layer) {
        writer.writeLayer(layer, layerValues(layer));
      }
      writer.close();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  close(ready[1]);
  close(go[0]);
  // Whatever fails below, release the child and reap it rather than leave it blocked.
  struct Reaper {
    pid_t pid;
    int go, ready;
    bool reaped = false;
    int status = 0;
    int finish() {
      if (go >= 0) close(std::exchange(go, -1));
      if (!std::exchange(reaped, true)) waitpid(pid, &status, 0);
      return status;
    }
    ~Reaper() {
      finish();
      close(ready);
    }
  } child{pid, go[1], ready[0]};

  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1) << "the writer died before finishing layer 0";
  ActivationStore store = ActivationStore::open(file);
  EXPECT_EQ(store.completedLayers(), (std::vector<int64_t>{0}));
  EXPECT_EQ(store.readLayer(0).size(), static_cast<size_t>(kTokens * kHidden));
  EXPECT_THROW(store.readLayer(1), FormatError);
  const std::string message = messageOf<IoError>([&] { ActivationStoreWriter::resume(file); });
  EXPECT_NE(message.find("another writer has this file open"), std::string::npos) << message;
  EXPECT_THROW(ActivationStoreWriter::create(file, makeMeta(StoreDType::Float16), makeTokens(),
                                             /*overwrite=*/true),
               IoError);

  ASSERT_EQ(write(go[1], &byte, 1), 1);
  const int status = child.finish();
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer failed: " << status;
  store.refresh();
  EXPECT_EQ(store.completedLayers().size(), static_cast<size_t>(kLayers + 1));
  expectHalfClose(store.readLayer(kLayers), layerValues(kLayers), "last layer");
}

TEST(ActivationStore, RejectsAFileThatIsNotHdf5NamingIt) {
  TempDir dir;
  std::ofstream(dir / "notes.h5") << "these are not the hidden states you are looking for\n";
  const std::string message =
      messageOf<FormatError>([&] { ActivationStore::open(dir / "notes.h5"); });
  EXPECT_NE(message.find((dir / "notes.h5").string()), std::string::npos) << message;
  EXPECT_NE(message.find("not an HDF5 file"), std::string::npos) << message;
}

TEST(ActivationStore, RejectsAnHdf5FileWithoutMetaNamingFileAndGroup) {
  // An empty HDF5 file: h5py.File(path, "w", libver="latest") closed at once (195 bytes).
  static const unsigned char kEmptyHdf5[] = {
      0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0x03, 0x08, 0x08, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xc3, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06,
      0x1a, 0x61, 0x37, 0x4f, 0x48, 0x44, 0x52, 0x02, 0x20, 0x0b, 0x28, 0x10, 0x6b, 0x0b, 0x28,
      0x10, 0x6b, 0x0b, 0x28, 0x10, 0x6b, 0x0b, 0x28, 0x10, 0x6b, 0x78, 0x02, 0x12, 0x00, 0x00,
      0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0x0a, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x56, 0xe8, 0x10, 0xe7};
  TempDir dir;
  std::ofstream(dir / "empty.h5", std::ios::binary)
      .write(reinterpret_cast<const char*>(kEmptyHdf5), sizeof kEmptyHdf5);
  const std::string message =
      messageOf<FormatError>([&] { ActivationStore::open(dir / "empty.h5"); });
  EXPECT_NE(message.find((dir / "empty.h5").string()), std::string::npos) << message;
  EXPECT_NE(message.find("'meta'"), std::string::npos) << message;
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

TEST(ActivationStore, RefusesToOverwriteAnExistingFileUnlessTold) {
  TempDir dir;
  const std::filesystem::path file = dir / "s.h5";
  writeStore(file, StoreDType::Float16, 1).close();
  const std::string message = messageOf<IoError>(
      [&] { ActivationStoreWriter::create(file, makeMeta(StoreDType::Float32), makeTokens()); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("already exists"), std::string::npos) << message;
  EXPECT_EQ(ActivationStore::open(file).completedLayers(), (std::vector<int64_t>{0}));

  ActivationStoreWriter::create(file, makeMeta(StoreDType::Float32), makeTokens(), true).close();
  const ActivationStore store = ActivationStore::open(file);
  EXPECT_EQ(store.meta().dtype, StoreDType::Float32);
  EXPECT_TRUE(store.completedLayers().empty());
}

TEST(ActivationStore, ThePlaceOfANewStoreIsCheckedWithoutWritingAnything) {
  TempDir dir;
  const std::filesystem::path file = dir / "s.h5";
  EXPECT_NO_THROW(ActivationStoreWriter::checkCreatable(file, false));
  writeStore(file, StoreDType::Float16, 1).close();
  const std::string exists =
      messageOf<IoError>([&] { ActivationStoreWriter::checkCreatable(file, false); });
  EXPECT_NE(exists.find(file.string() + ": already exists"), std::string::npos) << exists;
  EXPECT_NO_THROW(ActivationStoreWriter::checkCreatable(file, true));
  const std::string missing =
      messageOf<IoError>([&] { ActivationStoreWriter::checkCreatable(dir / "no" / "s.h5", true); });
  EXPECT_NE(missing.find("the folder " + (dir / "no").string() + " does not exist"),
            std::string::npos)
      << missing;
  const std::string folder =
      messageOf<IoError>([&] { ActivationStoreWriter::checkCreatable(dir.path(), true); });
  EXPECT_NE(folder.find("is a folder"), std::string::npos) << folder;
  // Nothing written: the store as it was, and no staging file beside it.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"s.h5"});
}

TEST(ActivationStore, ACreateKilledHalfwayLeavesNoFileAndTheStoreItWouldReplaceIntact) {
  TempDir dir;
  const std::filesystem::path fresh = dir / "fresh.h5";
  createAndDieWritingPast(2048, fresh, false);
  EXPECT_FALSE(std::filesystem::exists(fresh)) << "a half-made store is visible at its path";
  // The next create takes over what the killed one left and leaves only the store.
  ActivationStoreWriter::create(fresh, makeMeta(StoreDType::Float16), makeTokens()).close();
  EXPECT_EQ(ActivationStore::open(fresh).meta().dtype, StoreDType::Float16);

  const std::filesystem::path old = dir / "old.h5";
  writeStore(old, StoreDType::Float16, 2).close();
  createAndDieWritingPast(2048, old, /*overwrite=*/true);
  const ActivationStore kept = ActivationStore::open(old);
  EXPECT_EQ(kept.meta().dtype, StoreDType::Float16);
  EXPECT_EQ(kept.completedLayers(), (std::vector<int64_t>{0, 1}));
  expectHalfClose(kept.readLayer(1), layerValues(1), "layer 1 of the kept store");
  ActivationStoreWriter::create(old, makeMeta(StoreDType::Float32), makeTokens(), true).close();
  EXPECT_EQ(ActivationStore::open(old).meta().dtype, StoreDType::Float32);

  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"fresh.h5", "old.h5"}));
}

TEST(ActivationStore, IsReadableByH5py) {
  std::string why;
  const std::string python = testing::findPython(
      {"numpy", "h5py"}, "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON",
      why);
  ASSERT_FALSE(python.empty()) << "cannot check the store with h5py: " << why;
  TempDir dir;
  for (const StoreDType dtype : {StoreDType::Float16, StoreDType::Float32}) {
    const std::string tag = storeDTypeName(dtype);
    const std::filesystem::path file = dir / (tag + ".h5");
    // Leave the last layer unwritten: h5py must see it flagged incomplete.
    writeStore(file, dtype, kLayers).close();

    const StoreMeta meta = makeMeta(dtype);
    const TokenTable tokens = makeTokens();
    nlohmann::json expected;
    expected["meta"] = {{"model_id", meta.modelId},
                        {"architecture", meta.architecture},
                        {"hidden_size", meta.hiddenSize},
                        {"num_layers", meta.numLayers},
                        {"dtype", tag},
                        {"corpus_hash", meta.corpusHash},
                        {"sampling_policy", meta.samplingPolicy}};
    for (const auto& [name, value] : meta.extra) expected["meta"][name] = value;
    expected["tokens"] = {{"ids", tokens.ids}, {"doc", tokens.doc}, {"position", tokens.position}};
    expected["complete"] = std::vector<int>(kLayers + 1, 1);
    expected["complete"][kLayers] = 0;
    for (int64_t layer = 0; layer < kLayers; ++layer) {
      const std::string raw = tag + "-layer" + std::to_string(layer) + ".f32";
      const std::vector<float> values = layerValues(layer);  // little-endian host, as on x86/arm
      std::ofstream(dir / raw, std::ios::binary)
          .write(reinterpret_cast<const char*>(values.data()),
                 static_cast<std::streamsize>(values.size() * sizeof(float)));
      expected["layers"][std::to_string(layer)] = raw;
    }
    const std::filesystem::path expectations = dir / (tag + ".json");
    std::ofstream(expectations) << expected.dump(2);

    const std::string command =
        python + " '" STRATA_SOURCE_DIR "/tests/python/check_activation_store.py' '" +
        file.string() + "' '" + expectations.string() + "'";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << command << " failed with status " << status;
  }
}

}  // namespace
}  // namespace strata::io

namespace strata::io {
namespace {

// Found by tests/fuzz (fuzz_activation_store): a store with a few damaged bytes made SWMR-read
// mode retry its checksums for many minutes. Opening and reading it must end promptly, with an
// error or with data, and never crash. Run in a child so a hang fails instead of blocking.
TEST(ActivationStore, ADamagedStoreFailsPromptlyInsteadOfRetryingForMinutes) {
  const std::filesystem::path damaged =
      std::filesystem::path(STRATA_SOURCE_DIR) / "tests/fuzz/legacy/swmr-read-retries-hang.h5";
  ASSERT_TRUE(std::filesystem::exists(damaged)) << damaged;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    try {
      const ActivationStore store = ActivationStore::open(damaged);
      for (const int64_t layer : store.completedLayers()) (void)store.readLayer(layer);
    } catch (const Error&) {
    }
    std::_Exit(0);
  }
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (::waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, &status, 0);
      FAIL() << "opening the damaged store still ran after 60 s";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

}  // namespace
}  // namespace strata::io

namespace strata::io {
namespace {

// A disk that fills up mid-capture: the writer's error says "disk full" in one readable line
// (not HDF5's dump), and the store still opens with the layers that were finished before.
TEST(ActivationStore, AFullDiskIsNamedAndKeepsTheFinishedLayers) {
  TempDir dir;
  const std::filesystem::path disk = dir / "small-disk";
  std::filesystem::create_directories(disk);
  if (::mount("tmpfs", disk.c_str(), "tmpfs", 0, "size=4m") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  struct Unmount {
    std::filesystem::path at;
    ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
  } unmount{disk};
  {
    auto writer = ActivationStoreWriter::create(disk / "acts.h5", makeMeta(StoreDType::Float32),
                                                makeTokens());
    writer.writeLayer(0, layerValues(0));
    // Leave the file system almost no room for the next layer.
    struct statvfs fs {};
    ASSERT_EQ(::statvfs(disk.c_str(), &fs), 0);
    const auto free = static_cast<size_t>(fs.f_bavail) * fs.f_frsize;
    std::ofstream(disk / "filler", std::ios::binary)
        << std::string(free > 512 ? free - 512 : 0, 'x');
    std::string message;
    try {
      for (int64_t layer = 1; layer <= kLayers; ++layer)
        writer.writeLayer(layer, layerValues(layer));
      writer.close();
    } catch (const IoError& e) {
      message = e.what();
    }
    ASSERT_FALSE(message.empty()) << "every layer fitted: make the filler bigger";
    EXPECT_NE(message.find("disk full (No space left on device)"), std::string::npos) << message;
    EXPECT_EQ(message.find("errno = "), std::string::npos) << "HDF5's raw dump: " << message;
  }
  std::filesystem::remove(disk / "filler");
  const ActivationStore store = ActivationStore::open(disk / "acts.h5");
  ASSERT_FALSE(store.completedLayers().empty());
  EXPECT_EQ(store.completedLayers().front(), 0);
  EXPECT_EQ(store.readLayer(0), layerValues(0));
}

}  // namespace
}  // namespace strata::io
