#pragma once
// Scratch memory the CPU backend reuses from one computeProxies call to the next (a bootstrap
// makes 20 of them). Large buffers are 2 MiB-aligned and advised for transparent huge pages:
// on the virtual machines we measured, first-touch faults on fresh 4 KiB pages cost ~100 µs
// each (1.7 s for 64 MiB), more than the products written into them.

#include <cstddef>

namespace strata::geometry::cpu {

/** One growable buffer; contents are not kept when it grows. Not copyable. */
class HugeBuffer {
 public:
  HugeBuffer() = default;
  ~HugeBuffer();
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;

  /** At least `count` elements of T, uninitialised (or as left by the previous use). */
  template <typename T>
  T* take(size_t count) {
    return static_cast<T*>(reserve(count * sizeof(T)));
  }

 private:
  void* reserve(size_t bytes);
  void* m_data = nullptr;
  size_t m_bytes = 0;
};

/** Every large buffer of one backend. A backend (and so its workspace) serves one call at a time.
 */
struct Workspace {
  HugeBuffer normalised;  // N×d float32: the normalised rows of positive weight
  HugeBuffer scaled;      // block×d float32: √w-scaled rows for a weighted Σ
  HugeBuffer lower;       // d×d float32: ssyrk output, then m_mono's rounded Cholesky factor
  HugeBuffer sigma;       // d×d double: Σ, then the Cholesky factor of Σ + εI
  HugeBuffer anchors;     // M×d float32: normalised anchor rows
  HugeBuffer products;    // M×block float32: anchor · candidate products
  HugeBuffer directions;  // d×P float32: the directions u, then L⁻¹u
};

}  // namespace strata::geometry::cpu
