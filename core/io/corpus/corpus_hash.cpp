#include "io/corpus/corpus_hash.h"

#include <cstdio>
#include <fstream>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "io/corpus/corpus_readers.h"

namespace strata::io {

namespace {

// FIPS 180-4, section 4.2.2: the first 32 bits of the fractional parts of the cube roots of
// the first 64 primes.
constexpr std::array<uint32_t, 64> kRound{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

/** Streams `file` into `hash`; calls `onChunk(bytes)` after each chunk. */
template <typename OnChunk>
void hashFile(const std::filesystem::path& file, Sha256& hash, OnChunk&& onChunk) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot open the file: " + lastSystemError());
  std::vector<char> buffer(size_t{1} << 20);
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (in.bad()) throw IoError(file, "reading failed: " + lastSystemError());
    hash.update({buffer.data(), got});
    onChunk(static_cast<int64_t>(got));
  }
}

}  // namespace

Sha256::Sha256()
    : m_state{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
              0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {}

void Sha256::compress(const uint8_t* block) {
  std::array<uint32_t, 64> w{};
  for (size_t i = 0; i < 16; ++i)
    w[i] = (uint32_t{block[4 * i]} << 24) | (uint32_t{block[4 * i + 1]} << 16) |
           (uint32_t{block[4 * i + 2]} << 8) | uint32_t{block[4 * i + 3]};
  for (size_t i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  auto [a, b, c, d, e, f, g, h] = m_state;
  for (size_t i = 0; i < 64; ++i) {
    const uint32_t t1 =
        h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kRound[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  const std::array<uint32_t, 8> add{a, b, c, d, e, f, g, h};
  for (size_t i = 0; i < 8; ++i) m_state[i] += add[i];
}

void Sha256::update(std::string_view bytes) {
  m_totalBytes += bytes.size();
  // Whole blocks straight from the input when nothing is buffered.
  while (m_blockUsed == 0 && bytes.size() >= m_block.size()) {
    compress(reinterpret_cast<const uint8_t*>(bytes.data()));
    bytes.remove_prefix(m_block.size());
  }
  for (const char byte : bytes) {
    m_block[m_blockUsed++] = static_cast<uint8_t>(byte);
    if (m_blockUsed == m_block.size()) {
      compress(m_block.data());
      m_blockUsed = 0;
    }
  }
}

std::string Sha256::hexDigest() {
  // Padding: 0x80, zeros up to 56 mod 64, then the message length in bits, big-endian.
  const uint64_t bits = m_totalBytes * 8;
  update(std::string_view("\x80", 1));
  while (m_blockUsed != 56) update(std::string_view("\0", 1));
  std::array<char, 8> length{};
  for (size_t i = 0; i < 8; ++i) length[i] = static_cast<char>(bits >> (56 - 8 * i));
  update({length.data(), length.size()});
  std::string hex;
  hex.reserve(64);
  for (const uint32_t word : m_state) {
    std::array<char, 9> digits{};
    std::snprintf(digits.data(), digits.size(), "%08x", word);
    hex.append(digits.data(), 8);
  }
  return hex;
}

std::string sha256Hex(std::string_view bytes) {
  Sha256 hash;
  hash.update(bytes);
  return hash.hexDigest();
}

std::string corpusHash(const std::filesystem::path& path, const CorpusOptions& options,
                       JobContext* job) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) throw IoError(path, "no such file or folder");
  const bool folder = detectCorpusFormat(path, options.format) == CorpusFormat::TextFolder;
  const std::vector<std::filesystem::path> files =
      folder ? listTextFiles(path, options.recursive) : std::vector<std::filesystem::path>{{}};
  if (folder && files.empty()) throw FormatError(path, "no .txt files in the folder");

  int64_t totalBytes = 0;
  for (const auto& file : files) {
    const auto size = std::filesystem::file_size(file.empty() ? path : path / file, error);
    if (!error) totalBytes += static_cast<int64_t>(size);
  }
  int64_t doneBytes = 0;
  auto onChunk = [&](int64_t bytes) {
    doneBytes += bytes;
    if (job == nullptr) return;
    job->checkCancelled();
    job->progress(totalBytes > 0 ? static_cast<double>(doneBytes) / totalBytes : 1.0,
                  "hashing the corpus");
  };

  if (!folder) {
    Sha256 hash;
    hashFile(path, hash, onChunk);
    return "sha256:" + hash.hexDigest();
  }
  Sha256 manifest;
  for (const auto& file : files) {
    Sha256 hash;
    hashFile(path / file, hash, onChunk);
    manifest.update(hash.hexDigest() + "  " + file.generic_string() + "\n");
  }
  return "sha256:" + manifest.hexDigest();
}

}  // namespace strata::io
