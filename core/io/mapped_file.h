#pragma once
// A whole file mapped read-only into memory. safetensors tensors are viewed in place from such
// a mapping, so a model's weights are paged in by the kernel on first touch and never copied.

#include <cstddef>
#include <filesystem>
#include <span>

namespace strata::io {

/**
 * Read-only, private memory mapping of an entire file. Move-only; the mapping lives until the
 * object is destroyed. An empty file is legal and gives an empty span (mmap cannot map zero
 * bytes, so nothing is mapped).
 *
 * The bytes are mapped PROT_READ: writing through them is a segmentation fault, by design —
 * the file on disk must never change behind a reader's back, nor a reader's view of it.
 * Thread-safety: bytes() may be read from any number of threads.
 */
class MappedFile {
 public:
  /** Maps `file`. Throws IoError naming the file if it cannot be opened, stat'ed or mapped. */
  explicit MappedFile(const std::filesystem::path& file);
  ~MappedFile();

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /** The whole file's contents. */
  std::span<const std::byte> bytes() const { return {m_data, m_size}; }
  const std::filesystem::path& path() const { return m_path; }

  /**
   * Tells the kernel that the pages wholly inside `range` (a part of bytes()) are not needed
   * now: they leave this process's resident set and are read from the file again if touched.
   * Advice only — the contents never change. Streaming loaders call it once a tensor has been
   * converted, so a mapped multi-gigabyte file does not accumulate in the resident set.
   */
  void release(std::span<const std::byte> range) const noexcept;

 private:
  void unmap() noexcept;

  std::filesystem::path m_path;
  const std::byte* m_data = nullptr;
  std::size_t m_size = 0;
};

}  // namespace strata::io
