#include "geometry/cpu/workspace.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace strata::geometry::cpu {

namespace {
constexpr size_t kHugePage = size_t(2) << 20;
}

HugeBuffer::~HugeBuffer() { std::free(m_data); }

void* HugeBuffer::reserve(size_t bytes) {
  if (bytes <= m_bytes && m_data != nullptr) return m_data;
  std::free(m_data);
  m_data = nullptr;
  m_bytes = 0;
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  if (::posix_memalign(&m_data, kHugePage, rounded == 0 ? kHugePage : rounded) != 0) {
    m_data = nullptr;
    throw std::bad_alloc();
  }
  // Advice only: where transparent huge pages are off this changes nothing.
  ::madvise(m_data, rounded, MADV_HUGEPAGE);
  m_bytes = rounded;
  return m_data;
}

}  // namespace strata::geometry::cpu
