#pragma once
// Reading safetensors files (https://github.com/huggingface/safetensors): an 8-byte
// little-endian header length N, N bytes of JSON, then the tensors' bytes back to back. This
// header is torch-free; safetensors_torch.h turns entries into at::Tensor views.
//
// Validation follows the reference parser (see NOTES.md "safetensors"): every rule it applies
// is applied here, and each failure is a FormatError naming the file and, where one is at
// fault, the tensor.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/dtype.h"
#include "io/mapped_file.h"

namespace strata::io {

/** One tensor as the header describes it. Offsets are relative to the data section. */
struct TensorEntry {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;  ///< empty for a rank-0 (scalar) tensor
  uint64_t begin = 0;          ///< first byte, relative to the data section
  uint64_t end = 0;            ///< one past the last byte

  /** Product of the shape (1 for rank 0, 0 when a dimension is 0). */
  int64_t numel() const;
  uint64_t byteSize() const { return end - begin; }
  bool operator==(const TensorEntry&) const = default;
};

/** A validated header, read without touching the tensor data. */
struct SafetensorsHeaderInfo {
  std::filesystem::path path;
  uint64_t fileSize = 0;
  uint64_t headerLength = 0;                    ///< N: bytes of JSON, padding included
  std::map<std::string, std::string> metadata;  ///< "__metadata__", empty if absent
  std::vector<TensorEntry> tensors;             ///< sorted by offset

  uint64_t dataOffset() const { return 8 + headerLength; }
  uint64_t dataSize() const { return fileSize - dataOffset(); }
};

/**
 * Reads and validates only the header of `file` (two preads: 8 bytes, then N), so inspecting
 * a 100 GB model costs a few kilobytes of I/O. Applies exactly the validation open() applies;
 * the file size stands in for the data. Throws FormatError (malformed) or IoError (unreadable).
 */
SafetensorsHeaderInfo readSafetensorsHeader(const std::filesystem::path& file);

/**
 * A validated safetensors file whose bytes are memory-mapped (or held, for fromBytes).
 * Immutable once built and therefore safe to share across threads; it is handed out as
 * shared_ptr<const> because tensor views keep it alive (see tensorView in safetensors_torch.h).
 */
class SafetensorsFile {
 public:
  /** Maps and validates `file`. Throws FormatError or IoError naming it. */
  static std::shared_ptr<const SafetensorsFile> open(const std::filesystem::path& file);
  /** Validates a file held in memory (tests, fuzzing); `nameForErrors` appears in messages. */
  static std::shared_ptr<const SafetensorsFile> fromBytes(std::vector<std::byte> bytes,
                                                          std::filesystem::path nameForErrors);

  const std::filesystem::path& path() const { return m_header.path; }
  const std::map<std::string, std::string>& metadata() const { return m_header.metadata; }
  /** Every tensor, sorted by offset (the order of their bytes in the file). */
  const std::vector<TensorEntry>& tensors() const { return m_header.tensors; }
  /** The tensor called `name`, or nullptr. */
  const TensorEntry* find(std::string_view name) const;
  /** The tensor called `name`; FormatError naming the file and tensor if there is none. */
  const TensorEntry& at(std::string_view name) const;
  /** The bytes of `entry`, which must come from this file (std::out_of_range otherwise). */
  std::span<const std::byte> bytes(const TensorEntry& entry) const;
  /** The whole data section. */
  std::span<const std::byte> data() const { return m_data; }

 private:
  SafetensorsFile() = default;
  void index();

  std::optional<MappedFile> m_mapping;  // set by open()
  std::vector<std::byte> m_owned;       // set by fromBytes()
  SafetensorsHeaderInfo m_header;
  std::span<const std::byte> m_data;
  std::map<std::string, std::size_t, std::less<>> m_byName;  // name -> index in tensors()
};

/**
 * Names of the floating-point tensors (F64, F32, F16, BF16) holding a NaN or an infinity.
 * The format does not forbid them, but a checkpoint with them is almost always broken, so
 * Strata warns. Reads every float tensor's bytes: cost is one pass over the data.
 */
std::vector<std::string> findNonFiniteTensors(const SafetensorsFile& file);

}  // namespace strata::io
