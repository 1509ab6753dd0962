#pragma once
// The bridge between safetensors files and LibTorch tensors: zero-copy views into a mapped
// file, and writing tensors (single file or Hugging Face-style shards).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/dtype.h"
#include "io/hf/safetensors_file.h"

namespace strata::model {

/** The LibTorch scalar type of a safetensors dtype (BOOL → kBool, U8 → kByte, ...). */
at::ScalarType scalarTypeOf(io::DType dtype);
/** The safetensors dtype of a LibTorch scalar type, or nullopt (complex, qint, uint16+, ...). */
std::optional<io::DType> dtypeOf(at::ScalarType type);

/**
 * A CPU tensor over `entry`'s bytes inside `file`, without copying: the tensor's deleter holds
 * a reference to `file`, so the mapping stays alive as long as the tensor (or any view of it)
 * does, even after every other reference to the file is dropped.
 *
 * READ-ONLY: the bytes live in a PROT_READ mapping and LibTorch 1.13 has no read-only tensor
 * flag, so an in-place operation on the result (add_, copy_ into it, an optimizer step)
 * crashes with SIGSEGV. Call .clone() (or .to(dtype)) before modifying; loading a model's
 * parameters copies into them anyway.
 *
 * When the bytes are not aligned to the element size (a writer laid an odd-sized tensor
 * before this one), the result is an owned, writable copy instead, because ATen kernels
 * assume aligned elements. Zero-element tensors are always owned.
 */
at::Tensor tensorView(const std::shared_ptr<const io::SafetensorsFile>& file,
                      const io::TensorEntry& entry);

/** One named tensor to write. */
using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

/**
 * Writes `tensors` (any device, layout or stride: written as contiguous CPU copies) to one
 * safetensors file, atomically, in the given order. `metadata` is added to {"format": "pt"}.
 * Throws FormatError naming the tensor for an undefined tensor or a scalar type safetensors
 * (as Strata supports it) cannot hold, and IoError when the file cannot be written.
 */
void writeSafetensors(const std::filesystem::path& target, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata = {});

/**
 * Writes `tensors` as Hugging Face shards into the existing `folder`: consecutive tensors are
 * grouped into `model-0000i-of-0000N.safetensors` files of at most `maxShardBytes` of data (a
 * larger tensor gets a shard of its own), then `model.safetensors.index.json` maps each tensor
 * to its shard. Always writes the sharded form, even for N = 1. Every file is written
 * atomically and the index last, so an interrupted export leaves no index that points at a
 * missing shard. Shards of an earlier export with another N are not removed. Returns the
 * shard paths in order.
 */
std::vector<std::filesystem::path> writeShardedSafetensors(
    const std::filesystem::path& folder, const NamedTensors& tensors, uint64_t maxShardBytes,
    const std::map<std::string, std::string>& metadata = {});

}  // namespace strata::model
