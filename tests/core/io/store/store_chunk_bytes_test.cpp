// Direct chunk writes: the chunks a writer compresses on its own threads (libdeflate) must be
// zlib streams that inflate to the very bytes HDF5's shuffle filter writes (same filter mask,
// edge chunks padded as HDF5 pads them) at the dataset's level, checked against HDF5's own
// filtered path (zlib) and against h5py.

#include <gtest/gtest.h>
#include <hdf5.h>
#include <sys/wait.h>
#include <zlib.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/store/activation_store.h"
#include "io/store/chunk_filters.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

/** A store geometry: N rows of width d, L + 1 layers. */
struct Shape {
  int64_t tokens;
  int64_t hidden;
  int64_t layers;
  StoreDType dtype;
};

// 800 × 384: 2 chunks of 341 (float32) or 1 of 682 (float16) rows, then an edge chunk of 118.
// 1000 × 300 float16: chunks of 873 rows, edge of 127. 5 × 7: one chunk smaller than 512 KiB.
const Shape kShapes[] = {{800, 384, 2, StoreDType::Float32},
                         {800, 384, 2, StoreDType::Float16},
                         {1000, 300, 1, StoreDType::Float16},
                         {5, 7, 1, StoreDType::Float32}};

StoreMeta metaOf(const Shape& shape) {
  StoreMeta meta;
  meta.modelId = "strata/chunk-bytes";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = shape.hidden;
  meta.numLayers = shape.layers;
  meta.dtype = shape.dtype;
  meta.corpusHash = "sha256:00";
  meta.samplingPolicy = "{}";
  return meta;
}

TokenTable tokensOf(const Shape& shape) {
  TokenTable tokens;
  for (int32_t i = 0; i < shape.tokens; ++i) {
    tokens.ids.push_back(i % 97);
    tokens.doc.push_back(i / 50);
    tokens.position.push_back(1 + i % 50);
  }
  return tokens;
}

// Hidden-state-like values: normal, a few large ones, some exact zeros (runs compress).
std::vector<float> valuesOf(const Shape& shape, int64_t layer) {
  std::mt19937 rng(static_cast<unsigned>(layer * 31 + shape.hidden));
  std::normal_distribution<float> normal(0.0f, 1.0f + 2.0f * static_cast<float>(layer));
  std::vector<float> values(static_cast<size_t>(shape.tokens * shape.hidden));
  for (size_t i = 0; i < values.size(); ++i) values[i] = i % 11 == 0 ? 0.0f : normal(rng);
  return values;
}

void writeStore(const std::filesystem::path& file, const Shape& shape,
                const StoreWriteOptions& options) {
  auto writer = ActivationStoreWriter::create(file, metaOf(shape), tokensOf(shape), false, options);
  for (int64_t layer = 0; layer <= shape.layers; ++layer)
    writer.writeLayer(layer, valuesOf(shape, layer));
  writer.close();
}

/** Every chunk of one dataset as stored: its filter mask, then its bytes. */
std::vector<std::pair<uint32_t, std::vector<char>>> storedChunks(const std::filesystem::path& file,
                                                                 const std::string& name) {
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(h5, name.c_str(), H5P_DEFAULT);
  const hid_t space = H5Dget_space(dataset), dcpl = H5Dget_create_plist(dataset);
  hsize_t dims[2] = {}, chunk[2] = {};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  H5Pget_chunk(dcpl, 2, chunk);
  std::vector<std::pair<uint32_t, std::vector<char>>> chunks;
  for (hsize_t row = 0; row < dims[0]; row += chunk[0]) {
    const hsize_t offset[2] = {row, 0};
    hsize_t bytes = 0;
    EXPECT_GE(H5Dget_chunk_storage_size(dataset, offset, &bytes), 0) << name << " row " << row;
    std::pair<uint32_t, std::vector<char>> stored{0, std::vector<char>(bytes)};
    EXPECT_GE(H5Dread_chunk(dataset, H5P_DEFAULT, offset, &stored.first, stored.second.data()), 0);
    chunks.push_back(std::move(stored));
  }
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Dclose(dataset);
  H5Fclose(h5);
  return chunks;
}

/** A stored chunk inflated (zlib's uncompress, as HDF5's deflate filter reads it) to `size`
 *  bytes; empty when it is not a whole zlib stream of that size. */
std::vector<char> inflated(const std::vector<char>& stored, size_t size) {
  std::vector<char> out(size);
  uLongf length = size;
  const int status = uncompress(reinterpret_cast<Bytef*>(out.data()), &length,
                                reinterpret_cast<const Bytef*>(stored.data()), stored.size());
  if (status != Z_OK || length != size) return {};
  return out;
}

/** The compression level a zlib stream's header records (RFC 1950 FLEVEL: 0 fastest … 3
 *  best), as zlib and libdeflate both map levels 1, 2–5, 6 and 7–9 to it. */
int headerLevel(const std::vector<char>& stored) {
  return stored.size() < 2 ? -1 : (static_cast<unsigned char>(stored[1]) >> 6);
}
int headerLevelOf(int level) { return level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3; }

/** The bytes of one chunk before compression (rows × columns × element size, padded). */
size_t chunkBytes(const std::filesystem::path& file, const std::string& name) {
  const hid_t h5 = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t dataset = H5Dopen2(h5, name.c_str(), H5P_DEFAULT);
  const hid_t dcpl = H5Dget_create_plist(dataset), type = H5Dget_type(dataset);
  hsize_t chunk[2] = {};
  H5Pget_chunk(dcpl, 2, chunk);
  const size_t bytes = size_t(chunk[0] * chunk[1]) * H5Tget_size(type);
  H5Tclose(type);
  H5Pclose(dcpl);
  H5Dclose(dataset);
  H5Fclose(h5);
  return bytes;
}

std::string label(const Shape& shape) {
  return std::to_string(shape.tokens) + "x" + std::to_string(shape.hidden) + " " +
         storeDTypeName(shape.dtype);
}

TEST(StoreChunkBytes, DirectChunksInflateToTheBytesHdf5FiltersWrite) {
  TempDir dir;
  for (const Shape& shape : kShapes) {
    for (const int level : {1, 4}) {
      const std::filesystem::path reference = dir / "filtered.h5";
      writeStore(reference, shape, {.threads = 1, .deflateLevel = level, .directChunks = false});
      for (const int threads : {1, 2, 3}) {
        const std::filesystem::path direct = dir / "direct.h5";
        writeStore(direct, shape, {.threads = threads, .deflateLevel = level});
        for (int64_t layer = 0; layer <= shape.layers; ++layer) {
          const std::string name = "layers/" + std::to_string(layer);
          const auto got = storedChunks(direct, name), want = storedChunks(reference, name);
          const size_t bytes = chunkBytes(reference, name);
          ASSERT_EQ(got.size(), want.size()) << label(shape) << " " << name;
          for (size_t c = 0; c < want.size(); ++c) {
            const std::string where = label(shape) + " level " + std::to_string(level) + ", " +
                                      std::to_string(threads) + " threads, " + name + " chunk " +
                                      std::to_string(c);
            EXPECT_EQ(got[c].first, 0u) << where;
            EXPECT_EQ(got[c].first, want[c].first) << where;
            const std::vector<char> shuffled = inflated(want[c].second, bytes);
            ASSERT_FALSE(shuffled.empty()) << where << ": HDF5's own chunk does not inflate";
            EXPECT_TRUE(inflated(got[c].second, bytes) == shuffled)
                << where << ": the chunk does not inflate to HDF5's shuffled bytes";
            EXPECT_EQ(headerLevel(got[c].second), headerLevelOf(level)) << where;
          }
        }
        // Readers see the values, whatever wrote them.
        const ActivationStore store = ActivationStore::open(direct);
        EXPECT_EQ(store.readLayer(shape.layers),
                  ActivationStore::open(reference).readLayer(shape.layers))
            << label(shape);
        std::filesystem::remove(direct);
      }
      std::filesystem::remove(reference);
    }
  }
}

TEST(StoreChunkBytes, H5pyReadsEveryLayerAndItsChunksInflateToH5pysOwn) {
  std::string why;
  const std::string python = testing::findPython(
      {"numpy", "h5py"}, "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON",
      why);
  ASSERT_FALSE(python.empty()) << "cannot check the store with h5py: " << why;
  TempDir dir;
  for (size_t index = 0; index < std::size(kShapes); ++index) {
    const Shape& shape = kShapes[index];
    const std::filesystem::path values = dir / ("shape" + std::to_string(index));
    std::filesystem::create_directories(values);
    for (int64_t layer = 0; layer <= shape.layers; ++layer) {
      const std::vector<float> given = valuesOf(shape, layer);
      std::ofstream(values / ("layer" + std::to_string(layer) + ".f32"), std::ios::binary)
          .write(reinterpret_cast<const char*>(given.data()),
                 static_cast<std::streamsize>(given.size() * sizeof(float)));
    }
    const std::filesystem::path direct = values / "direct.h5", filtered = values / "filtered.h5";
    writeStore(direct, shape, {.threads = 2, .deflateLevel = 1});
    writeStore(filtered, shape, {.threads = 1, .deflateLevel = 1, .directChunks = false});
    const std::string command =
        python + " '" STRATA_SOURCE_DIR "/tests/python/compare_store_chunks.py' '" +
        direct.string() + "' '" + values.string() + "' '" + filtered.string() + "'";
    const int status = std::system(command.c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << command << " failed with status " << status;
  }
}

TEST(StoreChunkBytes, AFloat16OverflowInALaterChunkLeavesTheLayerUnfinished) {
  TempDir dir;
  const Shape shape{1000, 300, 1, StoreDType::Float16};
  const std::filesystem::path file = dir / "overflow.h5";
  auto writer =
      ActivationStoreWriter::create(file, metaOf(shape), tokensOf(shape), false, {.threads = 3});
  writer.writeLayer(0, valuesOf(shape, 0));
  std::vector<float> values = valuesOf(shape, 1);
  values[static_cast<size_t>(950 * shape.hidden + 5)] = 1e6f;  // row 950: the edge chunk
  try {
    writer.writeLayer(1, values);
    ADD_FAILURE() << "a value beyond the float16 range was written";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("row 950"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("layers/1"), std::string::npos) << error.what();
  }
  EXPECT_EQ(writer.missingLayers(), std::vector<int64_t>{1});
  // The writer stays usable: the layer is written again, whole.
  writer.writeLayer(1, valuesOf(shape, 1));
  writer.close();
  const ActivationStore store = ActivationStore::open(file);
  EXPECT_TRUE(store.layerComplete(1));
}

TEST(StoreChunkBytes, ResumeKeepsTheDeflateLevelTheStoreWasCreatedWith) {
  TempDir dir;
  const Shape shape{800, 384, 2, StoreDType::Float16};
  const std::filesystem::path resumed = dir / "resumed.h5", reference = dir / "reference.h5";
  {
    auto writer = ActivationStoreWriter::create(resumed, metaOf(shape), tokensOf(shape), false,
                                                {.deflateLevel = 6});
    writer.writeLayer(0, valuesOf(shape, 0));
    writer.close();
  }
  {
    auto writer = ActivationStoreWriter::resume(resumed, {.threads = 2, .deflateLevel = 1});
    for (const int64_t layer : writer.missingLayers())
      writer.writeLayer(layer, valuesOf(shape, layer));
    writer.close();
  }
  writeStore(reference, shape, {.deflateLevel = 6, .directChunks = false});
  for (int64_t layer = 0; layer <= shape.layers; ++layer) {
    const std::string name = "layers/" + std::to_string(layer);
    const auto got = storedChunks(resumed, name), want = storedChunks(reference, name);
    const size_t bytes = chunkBytes(reference, name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t c = 0; c < want.size(); ++c) {
      EXPECT_TRUE(inflated(got[c].second, bytes) == inflated(want[c].second, bytes)) << name;
      EXPECT_EQ(headerLevel(got[c].second), headerLevelOf(6)) << name << " chunk " << c;
    }
  }
}

TEST(StoreChunkBytes, RefusesADeflateLevelOutsideOneToNine) {
  TempDir dir;
  const Shape shape = kShapes[3];
  for (const int level : {0, 10}) {
    EXPECT_THROW(ActivationStoreWriter::create(dir / "bad.h5", metaOf(shape), tokensOf(shape),
                                               false, {.deflateLevel = level}),
                 ConfigError)
        << level;
    EXPECT_FALSE(std::filesystem::exists(dir / "bad.h5")) << level;
  }
}

TEST(ChunkFilters, ShuffleTransposesBytesAndKeepsTheTail) {
  const std::vector<std::byte> in = {std::byte{1}, std::byte{2}, std::byte{3}, std::byte{4},
                                     std::byte{5}, std::byte{6}, std::byte{7}};
  std::vector<std::byte> out(in.size());
  chunk_filters::shuffle(in, 2, out);
  const std::vector<std::byte> want = {std::byte{1}, std::byte{3}, std::byte{5}, std::byte{2},
                                       std::byte{4}, std::byte{6}, std::byte{7}};
  EXPECT_EQ(out, want);
}

}  // namespace
}  // namespace strata::io
