#pragma once
// The content hash of a corpus, stored as the activation store's corpus_hash attribute so a
// store can be matched to the text it was captured from. SHA-256 (FIPS 180-4) because the
// value can then be checked with standard tools:
//   a file:   sha256 of its bytes            == `sha256sum corpus.txt`
//   a folder: sha256 of the manifest          == `cd folder && sha256sum a.txt sub/b.txt |
//   sha256sum`
//             "<hex>  <relative path>\n" per .txt file, in reading order (sha256sum's format)
// The hash covers the bytes only: how they are cut into documents (split rule, JSONL field)
// is part of the sampling policy, not of the corpus.

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "io/corpus/corpus.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::io {

/** Incremental SHA-256. update() any number of times, then hexDigest() once. */
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  /** The 64 lower-case hex digits of the digest; the object is spent afterwards. */
  std::string hexDigest();

 private:
  void compress(const uint8_t* block);

  std::array<uint32_t, 8> m_state;
  std::array<uint8_t, 64> m_block{};
  size_t m_blockUsed = 0;
  uint64_t m_totalBytes = 0;
};

/** SHA-256 of `bytes` as 64 lower-case hex digits. */
std::string sha256Hex(std::string_view bytes);

/** "sha256:<hex>" of the corpus at `path` as described above (options.format and
 *  options.recursive choose the files). Streams the files; reports progress to `job` and
 *  checks its cancellation when given. IoError when a file cannot be read. */
std::string corpusHash(const std::filesystem::path& path, const CorpusOptions& options = {},
                       JobContext* job = nullptr);

}  // namespace strata::io
