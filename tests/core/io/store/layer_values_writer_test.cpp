// Which layer datasets get direct chunk writes: only a pipeline of exactly shuffle then deflate
// with HDF5's default edge-chunk handling (what Strata creates) is reproduced outside HDF5; any
// other dataset, as a store made by another tool may have, is left to HDF5's own filters.
// Either way every stored chunk must be what HDF5's H5Dwrite stores for the same values: the
// same bytes where HDF5 filters, and where Strata deflates (libdeflate, not HDF5's zlib) a zlib
// stream that inflates to the same shuffled bytes.

#include "io/store/layer_values_writer.h"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <zlib.h>

#include <functional>
#include <string>
#include <vector>

#include "io/store/chunk_filters.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

// 300 rows in chunks of 128: the third chunk is an edge chunk of 44 rows.
constexpr int64_t kRows = 300, kHidden = 64, kChunkRows = 128;

/** A float32 [kRows, kHidden] dataset chunked by kChunkRows rows, its creation property list
 *  given `settings` (filters, fill value, chunk options). */
hid_t createLayer(hid_t file, const std::string& name, const std::function<void(hid_t)>& settings) {
  const hsize_t dims[2] = {kRows, kHidden}, chunk[2] = {kChunkRows, kHidden};
  const hid_t space = H5Screate_simple(2, dims, nullptr), dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_chunk(dcpl, 2, chunk);
  settings(dcpl);
  const hid_t dataset =
      H5Dcreate2(file, name.c_str(), H5T_IEEE_F32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  H5Sclose(space);
  return dataset;
}

/** Every stored chunk of `dataset`: filter mask and bytes. */
std::vector<std::pair<uint32_t, std::vector<char>>> storedChunks(hid_t dataset) {
  std::vector<std::pair<uint32_t, std::vector<char>>> chunks;
  for (hsize_t row = 0; row < kRows; row += kChunkRows) {
    const hsize_t offset[2] = {row, 0};
    hsize_t bytes = 0;
    H5Dget_chunk_storage_size(dataset, offset, &bytes);
    std::pair<uint32_t, std::vector<char>> chunk{0, std::vector<char>(bytes)};
    H5Dread_chunk(dataset, H5P_DEFAULT, offset, &chunk.first, chunk.second.data());
    chunks.push_back(std::move(chunk));
  }
  return chunks;
}

/** A chunk as HDF5's filters see it before deflate: inflated when deflate ran on it (filter
 *  mask 0 under a shuffle + deflate pipeline, a whole chunk's zlib stream), else its stored
 *  bytes (an edge chunk that HDF5 was told not to filter is stored as it is, mask 0 too). */
std::vector<char> contents(const std::pair<uint32_t, std::vector<char>>& chunk, bool deflated) {
  if (!deflated || chunk.first != 0) return chunk.second;
  std::vector<char> out(size_t(kChunkRows * kHidden) * sizeof(float));
  uLongf length = out.size();
  if (uncompress(reinterpret_cast<Bytef*>(out.data()), &length,
                 reinterpret_cast<const Bytef*>(chunk.second.data()),
                 chunk.second.size()) != Z_OK ||
      length != out.size())
    return chunk.second;
  return out;
}

TEST(LayerValuesWriter, EveryPipelineStoresWhatHdf5WouldAndOnlyShuffleDeflateIsDirect) {
  TempDir dir;
  const hid_t file =
      H5Fcreate((dir / "layers.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  std::vector<float> values(kRows * kHidden);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 977) * 0.25f;
  const float seven = 7.0f;

  struct Case {
    std::string name;
    std::function<void(hid_t)> settings;
    bool reproducible;  // shuffleDeflateOf recognises the pipeline
  };
  const std::vector<Case> cases = {
      {"shuffle_deflate", [](hid_t p) { H5Pset_shuffle(p), H5Pset_deflate(p, 3); }, true},
      {"deflate_only", [](hid_t p) { H5Pset_deflate(p, 3); }, false},
      {"deflate_shuffle", [](hid_t p) { H5Pset_deflate(p, 3), H5Pset_shuffle(p); }, false},
      {"with_checksum",
       [](hid_t p) { H5Pset_shuffle(p), H5Pset_deflate(p, 3), H5Pset_fletcher32(p); }, false},
      {"unfiltered", [](hid_t) {}, false},
      // The pipeline matches, but HDF5 would pad the edge chunk with 7s, or not filter it.
      {"fill_value_seven",
       [&](hid_t p) {
         H5Pset_shuffle(p), H5Pset_deflate(p, 3), H5Pset_fill_value(p, H5T_NATIVE_FLOAT, &seven);
       },
       true},
      {"unfiltered_edge_chunks",
       [](hid_t p) {
         H5Pset_shuffle(p), H5Pset_deflate(p, 3);
         H5Pset_chunk_opts(p, H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS);
       },
       true}};
  for (const Case& c : cases) {
    const hid_t dataset = createLayer(file, c.name, c.settings);
    const hid_t reference = createLayer(file, c.name + "_by_hdf5", c.settings);
    ASSERT_GE(dataset, 0) << c.name;
    const hid_t dcpl = H5Dget_create_plist(dataset);
    EXPECT_EQ(chunk_filters::shuffleDeflateOf(dcpl).has_value(), c.reproducible) << c.name;
    H5Pclose(dcpl);

    writeLayerValues(dataset, values, {kRows, kHidden, StoreDType::Float32}, {.threads = 2},
                     dir / "layers.h5", c.name);
    ASSERT_GE(H5Dwrite(reference, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()),
              0);
    const auto got = storedChunks(dataset), want = storedChunks(reference);
    ASSERT_EQ(got.size(), want.size()) << c.name;
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(got[k].first, want[k].first) << c.name << " chunk " << k;
      EXPECT_TRUE(contents(got[k], c.reproducible) == contents(want[k], c.reproducible))
          << c.name << " chunk " << k;
    }
    std::vector<float> back(values.size());
    ASSERT_GE(H5Dread(dataset, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()), 0);
    EXPECT_EQ(back, values) << c.name;
    H5Dclose(reference);
    H5Dclose(dataset);
  }
  H5Fclose(file);
}

}  // namespace
}  // namespace strata::io
