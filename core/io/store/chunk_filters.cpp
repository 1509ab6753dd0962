#include "io/store/chunk_filters.h"

#include <libdeflate.h>

#include <cstring>
#include <memory>
#include <string>

#include "common/error.h"

namespace strata::io::chunk_filters {

std::optional<ShuffleDeflate> shuffleDeflateOf(hid_t dcpl) {
  if (H5Pget_nfilters(dcpl) != 2) return std::nullopt;
  ShuffleDeflate pipeline;
  for (unsigned index = 0; index < 2; ++index) {
    unsigned flags = 0, values[4] = {};
    size_t count = 4;
    const H5Z_filter_t filter =
        H5Pget_filter2(dcpl, index, &flags, &count, values, 0, nullptr, nullptr);
    // HDF5 stores shuffle's element size in its one client value when the dataset is created
    // (the filter's set_local callback); without it the bytes could not be reproduced.
    if (index == 0 && filter == H5Z_FILTER_SHUFFLE && count >= 1 && values[0] > 0) {
      pipeline.elementSize = values[0];
    } else if (index == 1 && filter == H5Z_FILTER_DEFLATE && count >= 1 && values[0] >= 1 &&
               values[0] <= 9) {
      pipeline.level = static_cast<int>(values[0]);
    } else {
      hdf5::takeErrorDetail();
      return std::nullopt;
    }
  }
  return pipeline;
}

void shuffle(std::span<const std::byte> in, size_t elementSize, std::span<std::byte> out) {
  const size_t n = elementSize == 0 ? 0 : in.size() / elementSize;
  // H5Zshuffle.c leaves 1-byte elements and buffers of at most one element as they are.
  if (elementSize <= 1 || n <= 1) {
    std::memcpy(out.data(), in.data(), in.size());
    return;
  }
  for (size_t byte = 0; byte < elementSize; ++byte) {
    const std::byte* from = in.data() + byte;
    std::byte* to = out.data() + byte * n;
    for (size_t i = 0; i < n; ++i) to[i] = from[i * elementSize];
  }
  const size_t whole = n * elementSize;
  std::memcpy(out.data() + whole, in.data() + whole, in.size() - whole);
}

namespace {

struct CompressorDeleter {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};

/** This thread's compressor at `level` (one kept per thread: allocating one costs more than a
 *  small chunk's compression). */
libdeflate_compressor* compressorFor(int level) {
  thread_local int kept = 0;
  thread_local std::unique_ptr<libdeflate_compressor, CompressorDeleter> compressor;
  if (!compressor || kept != level) {
    compressor.reset(libdeflate_alloc_compressor(level));
    if (!compressor)
      throw Error("libdeflate cannot make a compressor at level " + std::to_string(level));
    kept = level;
  }
  return compressor.get();
}

}  // namespace

void deflate(std::span<const std::byte> in, int level, std::vector<std::byte>& out) {
  if (level < 1 || level > 9)
    throw Error("deflate level " + std::to_string(level) + " is outside 1..9");
  libdeflate_compressor* compressor = compressorFor(level);
  out.resize(libdeflate_zlib_compress_bound(compressor, in.size()));
  const size_t size =
      libdeflate_zlib_compress(compressor, in.data(), in.size(), out.data(), out.size());
  if (size == 0)
    throw Error("libdeflate could not compress a chunk of " + std::to_string(in.size()) +
                " bytes within its own bound");
  out.resize(size);
}

}  // namespace strata::io::chunk_filters
