#pragma once
// Writing safetensors files, torch-free. safetensors_torch.h wraps this for at::Tensor.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "io/dtype.h"
#include "io/hf/safetensors_file.h"

namespace strata::io {

/**
 * Collects tensors and writes them as one safetensors file. The header is padded with spaces
 * to a multiple of 8 bytes (so the data section starts 8-aligned), `__metadata__` holds
 * {"format": "pt"} unless overridden, and tensors are laid out back to back in insertion
 * order. Tensors are NOT realigned: a tensor that follows one whose size is not a multiple of
 * its element size lands unaligned (readers copy such tensors; tensorView does).
 *
 * Not thread-safe; build it on one thread.
 */
class SafetensorsWriter {
 public:
  /** Sets one `__metadata__` entry (replacing an earlier value for `key`). */
  void setMetadata(std::string key, std::string value);

  /**
   * Adds a tensor. `data` is REFERENCED, not copied (weights can be many gigabytes): it must
   * stay valid and unchanged until write() returns. Its size must equal numel(shape) ×
   * dtypeSize(dtype). Throws FormatError naming the tensor for a duplicate name, the reserved
   * name "__metadata__", a negative dimension or a size mismatch.
   */
  void add(std::string name, DType dtype, std::vector<int64_t> shape,
           std::span<const std::byte> data);

  /** Hands the bytes of one tensor to the file, in order, in pieces of any size. */
  using Emit = std::function<void(std::span<const std::byte>)>;
  /** Produces a tensor's bytes at write time by calling `emit` until they are all given. */
  using Producer = std::function<void(const Emit& emit)>;

  /**
   * Adds a tensor whose bytes `produce` makes while write() runs, so a writer of many
   * gigabytes holds one piece at a time (an imported GGUF, dequantised tensor by tensor).
   * Checks as add() does; write() throws FormatError naming the tensor when the producer
   * emits more or fewer bytes than the shape and dtype need.
   */
  void addProduced(std::string name, DType dtype, std::vector<int64_t> shape, Producer produce);

  /** Entries as they will be written (offsets relative to the data section), insertion order. */
  const std::vector<TensorEntry>& entries() const { return m_entries; }
  /** Bytes of tensor data added so far. */
  uint64_t dataSize() const { return m_dataSize; }

  /**
   * Writes the file atomically (see writeFileAtomically): on failure `target` is untouched
   * and no temporary is left. Throws IoError (missing or read-only folder, disk full) or
   * FormatError (a name or metadata string that is not valid UTF-8).
   */
  void write(const std::filesystem::path& target) const;

 private:
  std::map<std::string, std::string> m_metadata{{"format", "pt"}};
  std::vector<TensorEntry> m_entries;
  std::vector<std::span<const std::byte>> m_data;  // parallel to m_entries
  std::vector<Producer> m_producers;               // parallel; empty for referenced data
  std::set<std::string, std::less<>> m_names;
  uint64_t m_dataSize = 0;

  /** Checks `name` and `shape` (reserved, duplicate, negative, overflowing); the byte size. */
  uint64_t checkEntry(const std::string& name, DType dtype,
                      const std::vector<int64_t>& shape) const;
  void record(std::string name, DType dtype, std::vector<int64_t> shape, uint64_t bytes);
};

}  // namespace strata::io
