#pragma once
// Internal to core/io: HDF5's shuffle and deflate filters computed outside HDF5, so that the
// chunks of a layer can be compressed on many threads and handed to H5Dwrite_chunk. Shuffle's
// bytes are the ones HDF5 writes (H5Zshuffle.c: a byte transpose). Deflate writes what HDF5's
// deflate filter reads, a zlib stream (RFC 1950) at the dataset's level, but with libdeflate
// rather than zlib's compress2 (H5Zdeflate.c): on float16 hidden states it compressed 2.3×
// faster at level 1 into 6 % fewer bytes (docs/benchmarks.md, "Store write path"), and deflate
// was a third of a bf16 capture's CPU time. Every HDF5 reader (h5py included) inflates the
// chunks to the same shuffled bytes as HDF5's own pipeline would have written.

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
 * `in` as one zlib stream at `level` (1..9, libdeflate's levels, which match zlib's header
 * level bits), into `out` (resized to the compressed size). Throws Error if libdeflate cannot
 * (it cannot with its own bound, short of running out of memory) or the level is outside 1..9.
 */
void deflate(std::span<const std::byte> in, int level, std::vector<std::byte>& out);

}  // namespace strata::io::chunk_filters
