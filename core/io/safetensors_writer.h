#pragma once
// Writing safetensors files, torch-free. safetensors_torch.h wraps this for at::Tensor.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "io/dtype.h"
#include "io/safetensors_file.h"

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
  std::set<std::string, std::less<>> m_names;
  uint64_t m_dataSize = 0;
};

}  // namespace strata::io
