// Validation, dispatch and threading of GGUF dequantisation, and the kernels of the plain types
// and the 32-element block types. The K-quants are in gguf_dequantize_k.cpp.
//
// Every kernel mirrors one dequantize_blocks of gguf-py 0.19.0 (gguf/quants.py): the same
// float32 operations in the same order, so the results are bit-identical. The element layout
// follows its reshapes: in a 32-element block, elements 0-15 are the low nibbles of bytes 0-15
// and elements 16-31 the high nibbles.

#include "io/gguf/gguf_dequantize.h"

#include <algorithm>

#include "common/error.h"
#include "io/gguf/gguf_dequantize_blocks.h"
#include "io/gguf/gguf_types.h"

namespace strata::io {

namespace gguf_blocks {

void dequantizeF32(const std::byte* in, int64_t count, float* out) {
  std::memcpy(out, in, static_cast<std::size_t>(count) * sizeof(float));
}

void dequantizeF16(const std::byte* in, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i) out[i] = loadHalf(in + 2 * i);
}

// gguf-py: (int16 -> int32) << 16 viewed as float32, i.e. the 16 bits become the upper half.
void dequantizeBF16(const std::byte* in, int64_t count, float* out) {
  for (int64_t i = 0; i < count; ++i)
    out[i] = std::bit_cast<float>(static_cast<uint32_t>(loadU16(in + 2 * i)) << 16);
}

// Block: f16 d, 32 x int8. gguf-py: x * d.
void dequantizeQ8_0(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 34, out += 32) {
    const float d = loadHalf(in);
    for (int j = 0; j < 32; ++j)
      out[j] = static_cast<float>(static_cast<int8_t>(byteAt(in + 2, j))) * d;
  }
}

// Block: f16 d, 16 bytes of nibbles. gguf-py: d * (q - 8).
void dequantizeQ4_0(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 18, out += 32) {
    const float d = loadHalf(in);
    const std::byte* qs = in + 2;
    for (int j = 0; j < 16; ++j) {
      out[j] = d * static_cast<float>((byteAt(qs, j) & 0x0F) - 8);
      out[j + 16] = d * static_cast<float>((byteAt(qs, j) >> 4) - 8);
    }
  }
}

// Block: f16 d, f16 m, 16 bytes of nibbles. gguf-py: (d * q) + m, two roundings.
void dequantizeQ4_1(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 20, out += 32) {
    const float d = loadHalf(in);
    const float m = loadHalf(in + 2);
    const std::byte* qs = in + 4;
    for (int j = 0; j < 16; ++j) {
      out[j] = d * static_cast<float>(byteAt(qs, j) & 0x0F) + m;
      out[j + 16] = d * static_cast<float>(byteAt(qs, j) >> 4) + m;
    }
  }
}

// Block: f16 d, u32 qh (bit j is element j's fifth bit), 16 bytes of nibbles. gguf-py: d * (q -
// 16).
void dequantizeQ5_0(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 22, out += 32) {
    const float d = loadHalf(in);
    const uint32_t qh = loadU32(in + 2);
    const std::byte* qs = in + 6;
    for (int j = 0; j < 16; ++j) {
      const int low = (byteAt(qs, j) & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int high = (byteAt(qs, j) >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      out[j] = d * static_cast<float>(low - 16);
      out[j + 16] = d * static_cast<float>(high - 16);
    }
  }
}

// Block: f16 d, f16 m, u32 qh, 16 bytes of nibbles. gguf-py: (d * q) + m.
void dequantizeQ5_1(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 24, out += 32) {
    const float d = loadHalf(in);
    const float m = loadHalf(in + 2);
    const uint32_t qh = loadU32(in + 4);
    const std::byte* qs = in + 8;
    for (int j = 0; j < 16; ++j) {
      const int low = (byteAt(qs, j) & 0x0F) | static_cast<int>(((qh >> j) & 1u) << 4);
      const int high = (byteAt(qs, j) >> 4) | static_cast<int>(((qh >> (j + 16)) & 1u) << 4);
      out[j] = d * static_cast<float>(low) + m;
      out[j + 16] = d * static_cast<float>(high) + m;
    }
  }
}

}  // namespace gguf_blocks

namespace {

gguf_blocks::Kernel kernelFor(GgmlType type) {
  using namespace gguf_blocks;
  switch (type) {
    case GgmlType::F32:
      return dequantizeF32;
    case GgmlType::F16:
      return dequantizeF16;
    case GgmlType::BF16:
      return dequantizeBF16;
    case GgmlType::Q8_0:
      return dequantizeQ8_0;
    case GgmlType::Q4_0:
      return dequantizeQ4_0;
    case GgmlType::Q4_1:
      return dequantizeQ4_1;
    case GgmlType::Q5_0:
      return dequantizeQ5_0;
    case GgmlType::Q5_1:
      return dequantizeQ5_1;
    case GgmlType::Q2_K:
      return dequantizeQ2_K;
    case GgmlType::Q3_K:
      return dequantizeQ3_K;
    case GgmlType::Q4_K:
      return dequantizeQ4_K;
    case GgmlType::Q5_K:
      return dequantizeQ5_K;
    case GgmlType::Q6_K:
      return dequantizeQ6_K;
    default:
      return nullptr;
  }
}

// Elements per unit of work: 256 KB of output, large enough that scheduling costs nothing and
// small enough that a few hundred MB split evenly over any thread count.
constexpr int64_t kChunkElements = 64 * 1024;

}  // namespace

void dequantizeGgml(uint32_t typeId, std::span<const std::byte> data, std::span<float> out,
                    const std::filesystem::path& file, const std::string& tensorName, int threads) {
  const auto traits = ggmlTypeTraits(typeId);
  const gguf_blocks::Kernel kernel =
      traits && traits->dequantizable ? kernelFor(traits->type) : nullptr;
  if (!kernel)
    throw FormatError(file,
                      "tensor type " + ggmlTypeName(typeId) +
                          " is not supported; Strata dequantises " + dequantizableGgmlTypes(),
                      tensorName);

  const auto elements = static_cast<int64_t>(out.size());
  if (elements % traits->blockSize != 0)
    throw FormatError(file,
                      std::to_string(elements) + " elements of " + traits->name +
                          " are not a whole number of " + std::to_string(traits->blockSize) +
                          "-element blocks",
                      tensorName);
  const int64_t blocks = elements / traits->blockSize;
  if (static_cast<uint64_t>(data.size()) != static_cast<uint64_t>(blocks * traits->typeSize))
    throw FormatError(file,
                      std::to_string(elements) + " elements of " + traits->name + " take " +
                          std::to_string(blocks * traits->typeSize) + " bytes, not " +
                          std::to_string(data.size()),
                      tensorName);

  const int64_t blocksPerChunk = std::max<int64_t>(1, kChunkElements / traits->blockSize);
  const int64_t chunks = (blocks + blocksPerChunk - 1) / blocksPerChunk;
  const int workers =
      static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(chunks, 1)));
  const std::byte* in = data.data();
  float* result = out.data();
  if (workers == 1) {
    kernel(in, blocks, result);
    return;
  }
  const int64_t typeSize = traits->typeSize;
  const int64_t blockSize = traits->blockSize;
  // Blocks are independent, so any split gives the same bits.
#pragma omp parallel for num_threads(workers) schedule(static)
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    const int64_t first = chunk * blocksPerChunk;
    const int64_t count = std::min(blocksPerChunk, blocks - first);
    kernel(in + first * typeSize, count, result + first * blockSize);
  }
}

}  // namespace strata::io
