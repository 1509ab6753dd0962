#pragma once
// GGUF blocks dequantised by LibTorch operations on whatever device holds them: a streamed GGUF
// crosses PCIe at its quantised size (an 8B Q4_0 block is 123 MB instead of 872 MB in float32)
// and is expanded on the GPU. Each type repeats the float32 operations of its host kernel
// (io/gguf/gguf_dequantize.h, itself bit for bit gguf-py's) in the same order, one elementwise
// operation at a time, so the result is the same bits on every device: tests compare the two on
// the CPU for every tensor of the real GGUF files.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace strata::model {

/** True for the ggml types dequantizeOnDevice handles: F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0,
 *  Q4_K, Q5_K, Q6_K (the rest are dequantised on the host). */
bool dequantizableOnDevice(uint32_t typeId);

/**
 * `blocks`: the stored bytes of `elements` values of ggml type `typeId`, as a contiguous uint8
 * tensor on any device. Returns them dequantised, float32 [elements], on the same device.
 * Throws std::invalid_argument for a type dequantizableOnDevice refuses or a byte count that
 * is not whole blocks.
 */
at::Tensor dequantizeOnDevice(uint32_t typeId, const at::Tensor& blocks, int64_t elements);

}  // namespace strata::model
