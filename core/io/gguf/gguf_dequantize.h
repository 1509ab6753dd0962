#pragma once
// Turning GGUF tensor data (ggml's block-quantised types) into float32. The reference is
// gguf-py 0.19.0's gguf.quants.dequantize: the result is bit-for-bit what it computes, because
// each kernel performs the same float32 operations in the same order (f16 scales widened to
// float32 first, `d * q - dm` as a product then a difference).
// tests/core/io/gguf_dequantize_test.cpp holds every type against vectors gguf-py writes.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace strata::io {

/**
 * Dequantises `out.size()` elements of ggml type `typeId` stored in `data` into float32.
 * out.size() must be a multiple of the type's block size and data.size() exactly
 * out.size() / blockSize * typeSize; otherwise, or for a type that is not dequantizable
 * (gguf_types.h), throws FormatError(file, problem, tensorName) naming the type, e.g.
 * "tensor type IQ2_XS is not supported; Strata dequantises F32, F16, ...".
 *
 * Work is split by blocks over `threads` OpenMP threads; the result does not depend on the
 * thread count. `data` may be unaligned (a memory-mapped file); `out` must not overlap it.
 */
void dequantizeGgml(uint32_t typeId, std::span<const std::byte> data, std::span<float> out,
                    const std::filesystem::path& file, const std::string& tensorName,
                    int threads = 1);

}  // namespace strata::io
