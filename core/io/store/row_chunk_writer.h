#pragma once
// Internal to core/io: writes a 2-D dataset chunked by whole rows ([chunkRows, d] chunks) whose
// pipeline is shuffle + deflate, compressing its chunks on a pool of threads and writing each
// with H5Dwrite_chunk (direct chunk write) from the calling thread, in row order.
//
// Why: deflate is what capture waits for (one 512 KiB chunk takes ~10-20 ms of zlib), and
// HDF5 compresses chunks one after another on the thread that calls H5Dwrite. Compressing
// them here, with exactly HDF5's filters (chunk_filters.h), keeps the file what a filtered
// H5Dwrite makes: same chunk bytes, filter mask 0, same pipeline in the dataset.
//
// Threading: HDF5 is called only by the calling thread (NOTES.md: one thread per file); the
// workers only encode rows into bytes and compress them. Memory is bounded: workers run at
// most a window of 2 × threads chunks ahead of the chunk being written.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "io/store/chunk_filters.h"
#include "io/store/hdf5_handle.h"

namespace strata::io {

/** The row geometry of one direct write: `rows` × `rowBytes` in chunks of `chunkRows` rows. */
struct RowChunks {
  int64_t rows = 0;
  int64_t chunkRows = 0;
  size_t rowBytes = 0;  ///< d × element size: one stored row, in the file's element type
};

/**
 * Fills out[0 .. count·rowBytes) with rows [firstRow, firstRow + count) in the file's element
 * type. Called from the worker threads, concurrently for different rows; may throw.
 */
using RowEncoder = std::function<void(int64_t firstRow, int64_t count, std::span<std::byte> out)>;

/**
 * Writes every chunk of `dataset` from `encode`. An edge chunk (rows not a multiple of
 * chunkRows) is padded with zero bytes to the full chunk size before filtering, as HDF5 pads
 * it with the default fill value. `threads` (at least 1) compress; the calling thread writes.
 * The first error in row order (an encoder's exception, or IoError naming `file` and `name`
 * when HDF5 refuses a chunk) is rethrown after every worker has stopped; chunks before it may
 * already be in the file.
 */
void writeRowChunks(hid_t dataset, const RowChunks& geometry,
                    const chunk_filters::ShuffleDeflate& filters, int threads,
                    const RowEncoder& encode, const std::filesystem::path& file,
                    const std::string& name);

}  // namespace strata::io
