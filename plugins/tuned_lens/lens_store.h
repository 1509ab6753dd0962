#pragma once
// Reading a Strata activation store with the HDF5 C API (the plugin may not link strata_core).
// The layout (docs/file-formats.md, core/io/store/activation_store.h): /meta attributes hidden_size
// and num_layers (int64), /tokens/doc int32 [N], /layers/<l> float16 or float32 [N, d] for
// l = 0..L, /layers_complete uint8 [L+1]. Errors are std::runtime_error naming the file and item.
// Not thread-safe: one reader, one thread.

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

namespace tuned_lens {

class LensStore {
 public:
  /** Opens `path` read-only (SWMR-read first, like Strata's reader, then plain). */
  explicit LensStore(const std::string& path);
  ~LensStore();
  LensStore(const LensStore&) = delete;
  LensStore& operator=(const LensStore&) = delete;

  int64_t numLayers() const { return m_numLayers; }  // L: layers 0..L are stored
  int64_t hiddenSize() const { return m_hidden; }    // d
  int64_t numTokens() const { return m_tokens; }     // N
  /** /tokens/doc: the document of every stored token. */
  std::vector<int32_t> documents() const;
  /** Layer `layer` as a d×N matrix, one column per token (float16 widened exactly). Throws
   *  when the layer is missing or not marked complete. */
  Eigen::MatrixXf layer(int64_t layer) const;

 private:
  std::string m_path;
  int64_t m_file = -1;  // hid_t
  int64_t m_numLayers = 0, m_hidden = 0, m_tokens = 0;
  std::vector<uint8_t> m_complete;
};

}  // namespace tuned_lens
