#include "model/backbone/llama2c_checkpoint.h"

#include <ATen/ops/empty.h>

#include <bit>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/mapped_file.h"

namespace strata::model {

namespace {

// llama2.c writes host-order (little-endian) values and reads them back with fread/mmap.
static_assert(std::endian::native == std::endian::little, "llama2.c files are little-endian");

constexpr uint64_t kLegacyHeaderBytes = 7 * sizeof(int32_t);
constexpr uint64_t kVersionedHeaderBytes = 256;  // export.py pads the v1/v2 header to 256

enum class Storage { F32, Q80, Skip };

// One tensor of the file, in file order. Q8_0 tensors are written per layer (`parts` of them),
// each as int8 values followed by one float32 scale per group.
struct Entry {
  at::Tensor Llama2cWeights::*field;  // nullptr for skipped tables
  const char* name;
  std::vector<int64_t> shape;
  Storage storage = Storage::F32;
  int64_t parts = 1;
};

// Multiplication and addition that report overflow instead of wrapping (header sizes come from
// an untrusted file).
struct SizeSum {
  uint64_t value = 0;
  bool overflow = false;
  uint64_t product(std::initializer_list<uint64_t> factors) {
    uint64_t result = 1;
    for (const uint64_t f : factors)
      overflow = overflow || __builtin_mul_overflow(result, f, &result);
    return result;
  }
  void add(uint64_t bytes) { overflow = overflow || __builtin_add_overflow(value, bytes, &value); }
};

int64_t numelOf(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (const int64_t s : shape) n *= s;
  return n;
}

std::string describe(const Llama2cConfig& c) {
  std::string text = c.version == 0 ? "legacy (v0)" : "version " + std::to_string(c.version);
  text += " checkpoint with dim " + std::to_string(c.dim) + ", hidden_dim " +
          std::to_string(c.hiddenDim) + ", " + std::to_string(c.numLayers) + " layers, " +
          std::to_string(c.numHeads) + " heads, " + std::to_string(c.numKeyValueHeads) +
          " kv heads, vocab " + std::to_string(c.vocabSize) +
          (c.sharedClassifier ? " (shared classifier)" : " (unshared classifier)") + ", seq_len " +
          std::to_string(c.seqLen);
  if (c.version == 2) text += ", Q8_0 group size " + std::to_string(c.groupSize);
  return text;
}

template <typename T>
T readAt(std::span<const std::byte> bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof value);
  return value;
}

Llama2cConfig readHeader(std::span<const std::byte> bytes, const std::filesystem::path& file,
                         uint64_t& headerBytes) {
  if (bytes.size() < kLegacyHeaderBytes)
    throw FormatError(file, "is " + std::to_string(bytes.size()) +
                                " bytes, shorter than llama2.c's 28-byte header");
  Llama2cConfig c;
  uint64_t fieldsAt = 0;
  if (readAt<uint32_t>(bytes, 0) == kLlama2cMagic) {
    if (bytes.size() < kVersionedHeaderBytes)
      throw FormatError(file, "starts with the \"ak42\" magic but is " +
                                  std::to_string(bytes.size()) +
                                  " bytes, shorter than the 256-byte versioned header");
    c.version = readAt<int32_t>(bytes, 4);
    if (c.version != 1 && c.version != 2)
      throw FormatError(file,
                        "has export.py version " + std::to_string(c.version) +
                            "; supported are 1 (float32) and 2 (Q8_0)",
                        "version", "field");
    fieldsAt = 8;
    headerBytes = kVersionedHeaderBytes;
  } else {
    headerBytes = kLegacyHeaderBytes;
  }
  const char* names[] = {"dim",        "hidden_dim", "n_layers", "n_heads",
                         "n_kv_heads", "vocab_size", "seq_len"};
  int32_t raw[7];
  for (int i = 0; i < 7; ++i) raw[i] = readAt<int32_t>(bytes, fieldsAt + 4 * i);
  int32_t vocab = raw[5];
  if (c.version == 0) {
    // run.c: "negative vocab size is hacky way of signaling unshared weights".
    c.sharedClassifier = vocab > 0;
    if (vocab < 0 && vocab != std::numeric_limits<int32_t>::min()) vocab = -vocab;
  } else {
    c.sharedClassifier = readAt<uint8_t>(bytes, 36) != 0;
    if (c.version == 2) c.groupSize = readAt<int32_t>(bytes, 37);
  }
  raw[5] = vocab;
  for (int i = 0; i < 7; ++i)
    if (raw[i] <= 0)
      throw FormatError(file, "header field must be positive, found " + std::to_string(raw[i]),
                        names[i], "field");
  c.dim = raw[0];
  c.hiddenDim = raw[1];
  c.numLayers = raw[2];
  c.numHeads = raw[3];
  c.numKeyValueHeads = raw[4];
  c.vocabSize = raw[5];
  c.seqLen = raw[6];
  if (c.dim % c.numHeads != 0 || c.headSize() % 2 != 0)
    throw FormatError(file,
                      "dim " + std::to_string(c.dim) + " is not n_heads " +
                          std::to_string(c.numHeads) + " times an even head size",
                      "n_heads", "field");
  if (c.numKeyValueHeads > c.numHeads || c.numHeads % c.numKeyValueHeads != 0)
    throw FormatError(file,
                      "n_kv_heads " + std::to_string(c.numKeyValueHeads) +
                          " does not divide n_heads " + std::to_string(c.numHeads),
                      "n_kv_heads", "field");
  if (c.version == 2 && c.groupSize <= 0)
    throw FormatError(file,
                      "Q8_0 group size must be positive, found " + std::to_string(c.groupSize),
                      "group_size", "field");
  return c;
}

// The tensors of each layout in file order (export.py legacy_export / version1_export /
// version2_export; run.c memory_map_weights; runq.c for version 2).
std::vector<Entry> layoutOf(const Llama2cConfig& c) {
  using W = Llama2cWeights;
  const int64_t d = c.dim, h = c.hiddenDim, L = c.numLayers, kv = c.kvDim(), V = c.vocabSize;
  const Entry embedding{&W::tokenEmbedding, "token_embedding_table", {V, d}};
  const Entry rmsAtt{&W::rmsAttention, "rms_att_weight", {L, d}};
  const Entry rmsFfn{&W::rmsFfn, "rms_ffn_weight", {L, d}};
  const Entry rmsFinal{&W::rmsFinal, "rms_final_weight", {d}};
  const std::vector<Entry> matrices{{&W::wq, "wq", {L, d, d}},  {&W::wk, "wk", {L, kv, d}},
                                    {&W::wv, "wv", {L, kv, d}}, {&W::wo, "wo", {L, d, d}},
                                    {&W::w1, "w1", {L, h, d}},  {&W::w2, "w2", {L, d, h}},
                                    {&W::w3, "w3", {L, h, d}}};
  const Entry classifier{&W::classifier, "wcls", {V, d}};
  std::vector<Entry> layout;
  if (c.version == 0) {
    layout.push_back(embedding);
    layout.push_back(rmsAtt);
    layout.insert(layout.end(), matrices.begin(), matrices.begin() + 4);
    layout.push_back(rmsFfn);
    layout.insert(layout.end(), matrices.begin() + 4, matrices.end());
    layout.push_back(rmsFinal);
    // freq_cis_real / freq_cis_imag: RoPE tables run.c skips (it recomputes them).
    layout.push_back({nullptr, "freq_cis_real", {c.seqLen, c.headSize() / 2}, Storage::Skip});
    layout.push_back({nullptr, "freq_cis_imag", {c.seqLen, c.headSize() / 2}, Storage::Skip});
  } else {
    layout.push_back(rmsAtt);
    layout.push_back(rmsFfn);
    layout.push_back(rmsFinal);
    layout.push_back(embedding);
    layout.insert(layout.end(), matrices.begin(), matrices.end());
  }
  if (!c.sharedClassifier) layout.push_back(classifier);
  // Version 2 keeps the norms in float32 and quantises every matrix, each layer's separately.
  if (c.version == 2)
    for (Entry& entry : layout)
      if (entry.field != &W::rmsAttention && entry.field != &W::rmsFfn &&
          entry.field != &W::rmsFinal) {
        entry.storage = Storage::Q80;
        entry.parts = entry.shape.size() == 3 ? L : 1;
      }
  return layout;
}

// Bytes of `entry`, or sets sum.overflow. Also checks Q8_0 divisibility.
uint64_t bytesOf(const Entry& entry, const Llama2cConfig& c, SizeSum& sum,
                 const std::filesystem::path& file) {
  uint64_t count = 1;
  for (const int64_t s : entry.shape) count = sum.product({count, static_cast<uint64_t>(s)});
  if (entry.storage != Storage::Q80) return sum.product({count, sizeof(float)});
  const uint64_t perPart = count / static_cast<uint64_t>(entry.parts);
  if (perPart % static_cast<uint64_t>(c.groupSize) != 0)
    throw FormatError(file,
                      "has " + std::to_string(perPart) +
                          " values per tensor, not a multiple of "
                          "the Q8_0 group size " +
                          std::to_string(c.groupSize),
                      entry.name);
  const uint64_t scaleBytes =
      sum.product({count / static_cast<uint64_t>(c.groupSize), sizeof(float)});
  uint64_t total = 0;
  sum.overflow = sum.overflow || __builtin_add_overflow(count, scaleBytes, &total);
  return total;
}

void checkFileSize(const Llama2cConfig& c, const std::vector<Entry>& layout, uint64_t headerBytes,
                   uint64_t found, const std::filesystem::path& file) {
  SizeSum sum;
  sum.add(headerBytes);
  for (const Entry& entry : layout) sum.add(bytesOf(entry, c, sum, file));
  if (sum.overflow)
    throw FormatError(file, "header sizes overflow 64 bits: " + describe(c), "header", "field");
  if (sum.value == found) return;
  std::string problem = "is " + std::to_string(found) + " bytes, expected " +
                        std::to_string(sum.value) + " for a " + describe(c) + " (" +
                        (found < sum.value ? "truncated" : "trailing bytes") + ")";
  const uint64_t classifierBytes =
      static_cast<uint64_t>(c.vocabSize) * static_cast<uint64_t>(c.dim) * sizeof(float);
  if (c.version == 0 && c.sharedClassifier && found == sum.value + classifierBytes)
    problem +=
        "; the extra bytes are exactly an unshared classifier, but vocab_size is "
        "positive, which means shared";
  throw FormatError(file, problem);
}

class Reader {
 public:
  Reader(std::span<const std::byte> bytes, uint64_t offset, const std::filesystem::path& file)
      : m_bytes(bytes), m_offset(offset), m_file(file) {}

  const std::byte* take(uint64_t count, const char* name) {
    // checkFileSize made this impossible; kept so that no path reads past the mapping.
    if (count > m_bytes.size() - m_offset)
      throw FormatError(m_file, "ends inside this tensor", name);
    const std::byte* at = m_bytes.data() + m_offset;
    m_offset += count;
    return at;
  }

  at::Tensor floats(const Entry& entry) {
    at::Tensor result = at::empty(entry.shape, at::kFloat);
    const uint64_t bytes = static_cast<uint64_t>(result.numel()) * sizeof(float);
    std::memcpy(result.data_ptr<float>(), take(bytes, entry.name), bytes);
    return result;
  }

  // Q8_0 (export.py quantize_q80): value = int8 · scale of its group of `groupSize`.
  at::Tensor dequantised(const Entry& entry, int64_t groupSize) {
    at::Tensor result = at::empty(entry.shape, at::kFloat);
    float* out = result.data_ptr<float>();
    const int64_t perPart = result.numel() / entry.parts;
    const int64_t groups = perPart / groupSize;
    std::vector<float> scales(static_cast<size_t>(groups));
    for (int64_t part = 0; part < entry.parts; ++part) {
      const auto* values = reinterpret_cast<const int8_t*>(take(perPart, entry.name));
      std::memcpy(scales.data(), take(groups * sizeof(float), entry.name), groups * sizeof(float));
      for (int64_t g = 0; g < groups; ++g)
        for (int64_t i = g * groupSize; i < (g + 1) * groupSize; ++i)
          out[i] = static_cast<float>(values[i]) * scales[g];
      out += perPart;
    }
    return result;
  }

  uint64_t offset() const { return m_offset; }

 private:
  std::span<const std::byte> m_bytes;
  uint64_t m_offset;
  const std::filesystem::path& m_file;
};

}  // namespace

Llama2cCheckpoint readLlama2cCheckpoint(const std::filesystem::path& file) {
  const io::MappedFile mapped(file);
  const std::span<const std::byte> bytes = mapped.bytes();
  Llama2cCheckpoint checkpoint;
  uint64_t headerBytes = 0;
  checkpoint.config = readHeader(bytes, file, headerBytes);
  const Llama2cConfig& c = checkpoint.config;
  const std::vector<Entry> layout = layoutOf(c);
  checkFileSize(c, layout, headerBytes, bytes.size(), file);

  Reader reader(bytes, headerBytes, file);
  for (const Entry& entry : layout) {
    if (entry.storage == Storage::Skip) {
      reader.take(static_cast<uint64_t>(numelOf(entry.shape)) * sizeof(float), entry.name);
      continue;
    }
    checkpoint.weights.*entry.field = entry.storage == Storage::Q80
                                          ? reader.dequantised(entry, c.groupSize)
                                          : reader.floats(entry);
  }
  return checkpoint;
}

}  // namespace strata::model
