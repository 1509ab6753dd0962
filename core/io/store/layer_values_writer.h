#pragma once
// Internal to core/io: the values of one layer into its dataset, in the store's element type.
// Direct chunk writes compressed on a pool of threads (row_chunk_writer.h) wherever the
// dataset's layout allows them, HDF5's own filtering otherwise; both give the same file.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "io/store/activation_store.h"
#include "io/store/hdf5_handle.h"

namespace strata::io {

/** The shape and element type of a layer dataset: rows × hiddenSize values of `dtype`. */
struct LayerShape {
  int64_t rows = 0;
  int64_t hiddenSize = 0;
  StoreDType dtype = StoreDType::Float16;
};

/**
 * Writes rows × hiddenSize row-major `values` (float32) into the whole of `dataset`. Float16
 * is rounded to nearest even; a finite value beyond its range is a FormatError naming the row,
 * `file` and `name` ("layers/7"), and an HDF5 failure an IoError. Direct chunk writes are used
 * when options.directChunks is set and the dataset is chunked by whole rows with exactly
 * shuffle + deflate, the default fill value and filtered edge chunks (every layer Strata
 * creates); otherwise H5Dwrite filters on this thread.
 * Calls HDF5 from the calling thread only.
 */
void writeLayerValues(hid_t dataset, std::span<const float> values, const LayerShape& shape,
                      const StoreWriteOptions& options, const std::filesystem::path& file,
                      const std::string& name);

}  // namespace strata::io
