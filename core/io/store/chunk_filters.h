#pragma once
// Internal to core/io: HDF5's shuffle and deflate filters computed outside HDF5, so that the
// chunks of a layer can be compressed on many threads and handed to H5Dwrite_chunk. The bytes
// are the ones HDF5's own pipeline writes (H5Zshuffle.c: a byte transpose; H5Zdeflate.c:
// zlib's compress2 at the dataset's level, into a compressBound buffer), so a store written
// either way holds the same chunk bytes under the same filter pipeline, and every HDF5 reader
// (h5py included) reads it as before. Both run in the one zlib the process loads, HDF5's too.

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "io/store/hdf5_handle.h"

namespace strata::io::chunk_filters {

/** A pipeline of exactly two filters: shuffle of `elementSize`-byte elements, then deflate. */
struct ShuffleDeflate {
  size_t elementSize = 0;
  int level = 0;  // zlib level, 0..9
};

/**
 * The dataset creation property list's pipeline when it is exactly shuffle then deflate, with
 * no filter mandatory-versus-optional surprises; nullopt for any other pipeline (none, other
 * filters, another order), which HDF5 must then apply itself.
 */
std::optional<ShuffleDeflate> shuffleDeflateOf(hid_t dcpl);

/**
 * HDF5's shuffle: byte j of element i goes to out[j·n + i], n = in.size() / elementSize; the
 * bytes that make no whole element are copied unchanged after them. `out` has in.size() bytes.
 */
void shuffle(std::span<const std::byte> in, size_t elementSize, std::span<std::byte> out);

/**
 * zlib's compress2 of `in` at `level` into `out` (resized to the compressed size), as HDF5's
 * deflate filter calls it. Throws Error if zlib fails (it cannot with a compressBound buffer,
 * short of running out of memory).
 */
void deflate(std::span<const std::byte> in, int level, std::vector<std::byte>& out);

}  // namespace strata::io::chunk_filters
