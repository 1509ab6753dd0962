#include "io/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

#include "common/error.h"

namespace strata::io {

namespace {

// Closes the descriptor on every path out of the constructor; the mapping outlives it.
struct ScopedFd {
  int fd = -1;
  ~ScopedFd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

MappedFile::MappedFile(const std::filesystem::path& file) : m_path(file) {
  ScopedFd handle{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (handle.fd < 0) throw IoError(file, "cannot open for reading: " + lastSystemError());

  struct stat info {};
  if (::fstat(handle.fd, &info) != 0) throw IoError(file, "cannot stat: " + lastSystemError());
  if (!S_ISREG(info.st_mode)) throw IoError(file, "not a regular file");
  if (info.st_size == 0) return;  // nothing to map; bytes() is empty

  m_size = static_cast<std::size_t>(info.st_size);
  void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, handle.fd, 0);
  if (address == MAP_FAILED) {
    m_size = 0;
    throw IoError(file, "cannot map into memory: " + lastSystemError());
  }
  m_data = static_cast<const std::byte*>(address);
}

MappedFile::~MappedFile() { unmap(); }

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_path(std::move(other.m_path)),
      m_data(std::exchange(other.m_data, nullptr)),
      m_size(std::exchange(other.m_size, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    m_path = std::move(other.m_path);
    m_data = std::exchange(other.m_data, nullptr);
    m_size = std::exchange(other.m_size, 0);
  }
  return *this;
}

void MappedFile::release(std::span<const std::byte> range) const noexcept {
  if (range.empty() || m_data == nullptr) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(range.data());
  const uintptr_t first = (begin + page - 1) / page * page;
  const uintptr_t last = (begin + range.size()) / page * page;
  if (last > first)
    ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);  // advice: no error
}

void MappedFile::unmap() noexcept {
  if (m_data != nullptr) ::munmap(const_cast<std::byte*>(m_data), m_size);
  m_data = nullptr;
  m_size = 0;
}

}  // namespace strata::io
