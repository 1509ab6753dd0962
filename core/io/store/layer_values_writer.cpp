#include "io/store/layer_values_writer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include "common/error.h"
#include "io/store/activation_store_layout.h"
#include "io/store/chunk_filters.h"
#include "io/store/float16.h"
#include "io/store/row_chunk_writer.h"

namespace strata::io {

namespace {

namespace layout = store_layout;

// Chunks are written as the file stores them: little-endian IEEE values, the layout of memory.
static_assert(std::endian::native == std::endian::little, "stores are written little-endian");

/**
 * Rows [first, first + count) of `values` in the stored element type, into `out`. Float16 is
 * rounded here so that HDF5 does no slow soft conversion. Runs on the compressing threads,
 * concurrently for different rows.
 */
void encodeRows(std::span<const float> values, int64_t first, int64_t count,
                const LayerShape& shape, std::span<std::byte> out,
                const std::filesystem::path& file, const std::string& name) {
  const int64_t d = shape.hiddenSize;
  const std::span<const float> rows = values.subspan(first * d, count * d);
  if (shape.dtype == StoreDType::Float32) {
    std::memcpy(out.data(), rows.data(), rows.size_bytes());
    return;
  }
  static_assert(sizeof(uint16_t) == 2);
  const int64_t beyond = toFloat16(rows, reinterpret_cast<uint16_t*>(out.data()));
  if (beyond >= 0)
    throw FormatError(file,
                      "value " + std::to_string(rows[size_t(beyond)]) + " at row " +
                          std::to_string(first + beyond / d) +
                          " is outside the float16 range (±65504); write this model's store "
                          "as float32",
                      name, "dataset");
}

// HDF5 filters the chunks itself, on this thread, block by block of whole chunks (so that it
// never reads back and re-compresses a half-written chunk).
void writeThroughFilters(hid_t dataset, int64_t chunkRows, const LayerShape& shape,
                         const RowEncoder& encode, const std::filesystem::path& file,
                         const std::string& name) {
  const int64_t d = shape.hiddenSize;
  const int64_t blockRows = layout::transferRowsFor(d, chunkRows);
  const bool toHalf = shape.dtype == StoreDType::Float16;
  const hdf5::Datatype half = toHalf ? hdf5::halfType() : hdf5::Datatype();
  std::vector<std::byte> staging;
  for (int64_t done = 0; done < shape.rows; done += blockRows) {
    const int64_t rows = std::min(blockRows, shape.rows - done);
    const hsize_t memDims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(d)};
    const hdf5::Dataspace memSpace(H5Screate_simple(2, memDims, nullptr));
    const hdf5::Dataspace fileSpace = layout::selectRows(dataset, done, rows, d);
    staging.resize(static_cast<size_t>(rows * d) * layout::elementSize(shape.dtype));
    encode(done, rows, staging);
    if (!fileSpace || H5Dwrite(dataset, toHalf ? half.get() : H5T_NATIVE_FLOAT, memSpace.get(),
                               fileSpace.get(), H5P_DEFAULT, staging.data()) < 0) {
      throw IoError(file, "cannot write dataset /" + name + hdf5::detailSuffix());
    }
  }
}

// Whether HDF5 would pad an edge chunk with zero bytes and filter it like the others: the
// default fill value, and edge chunks not exempted from the filters (H5Pset_chunk_opts).
bool filtersZeroPaddedEdgeChunks(hid_t dcpl) {
  H5D_fill_value_t fill = H5D_FILL_VALUE_ERROR;
  unsigned options = 0;
  return H5Pfill_value_defined(dcpl, &fill) >= 0 && fill == H5D_FILL_VALUE_DEFAULT &&
         H5Pget_chunk_opts(dcpl, &options) >= 0 && options == 0;
}

}  // namespace

int writeThreadsFor(const StoreWriteOptions& options) {
  if (options.threads > 0) return options.threads;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void writeLayerValues(hid_t dataset, std::span<const float> values, const LayerShape& shape,
                      const StoreWriteOptions& options, const std::filesystem::path& file,
                      const std::string& name) {
  const hdf5::PropertyList dcpl(H5Dget_create_plist(dataset));
  hsize_t chunk[2] = {1, 1};
  if (!dcpl || H5Pget_layout(dcpl.get()) != H5D_CHUNKED ||
      H5Pget_chunk(dcpl.get(), 2, chunk) != 2) {
    throw IoError(file, "cannot read the chunk shape of dataset /" + name + hdf5::detailSuffix());
  }
  auto encode = [&](int64_t first, int64_t count, std::span<std::byte> out) {
    encodeRows(values, first, count, shape, out, file, name);
  };
  const size_t elementSize = layout::elementSize(shape.dtype);
  const auto filters = chunk_filters::shuffleDeflateOf(dcpl.get());
  if (options.directChunks && filters && filters->elementSize == elementSize &&
      chunk[1] == static_cast<hsize_t>(shape.hiddenSize) &&
      filtersZeroPaddedEdgeChunks(dcpl.get())) {
    writeRowChunks(dataset,
                   {.rows = shape.rows,
                    .chunkRows = static_cast<int64_t>(chunk[0]),
                    .rowBytes = static_cast<size_t>(shape.hiddenSize) * elementSize},
                   *filters, writeThreadsFor(options), encode, file, name);
  } else {
    writeThroughFilters(dataset, static_cast<int64_t>(chunk[0]), shape, encode, file, name);
  }
}

}  // namespace strata::io
