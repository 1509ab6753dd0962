#include "io/hf/model_fingerprint.h"

#include <algorithm>
#include <fstream>
#include <vector>

#include "common/error.h"
#include "io/corpus/corpus_hash.h"
#include "io/hf/model_folder.h"
#include "io/store/activation_store.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kBlockBytes = 4096;
constexpr uint64_t kInnerBlocks = 64;

std::ifstream openForReading(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot open for reading");
  return in;
}

void hashWholeFile(const fs::path& file, Sha256& hash) {
  std::ifstream in = openForReading(file);
  std::vector<char> buffer(1 << 16);
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    hash.update({buffer.data(), static_cast<size_t>(in.gcount())});
}

void hashSampledBlocks(const fs::path& file, uint64_t size, Sha256& hash) {
  std::ifstream in = openForReading(file);
  std::vector<char> block(kBlockBytes);
  const uint64_t lastStart = size - kBlockBytes;
  for (uint64_t i = 0; i <= kInnerBlocks + 1; ++i) {
    const uint64_t start = lastStart * i / (kInnerBlocks + 1);  // 0 … lastStart, evenly
    in.seekg(static_cast<std::streamoff>(start));
    if (!in.read(block.data(), static_cast<std::streamsize>(block.size())))
      throw IoError(file, "cannot read " + std::to_string(kBlockBytes) + " bytes at offset " +
                              std::to_string(start));
    hash.update({block.data(), block.size()});
  }
}

}  // namespace

std::string modelFingerprint(const fs::path& modelFolder) {
  const ModelSummary summary = inspectModelWeights(modelFolder);
  Sha256 hash;
  hashWholeFile(modelFolder / "config.json", hash);
  for (const fs::path& file : summary.weightFiles) {
    const uint64_t size = fs::file_size(file);
    hash.update(file.filename().string() + '\n' + std::to_string(size) + '\n');
    if (size <= (kInnerBlocks + 2) * kBlockBytes) {
      hashWholeFile(file, hash);
    } else {
      hashSampledBlocks(file, size, hash);
    }
  }
  return hash.hexDigest();
}

void requireStoreOfModel(const fs::path& store, const StoreMeta& meta, const fs::path& modelFolder,
                         const std::string& fingerprint, int64_t hiddenSize, int64_t numLayers) {
  const std::string origin = "was captured from another model (" + meta.modelId + ", " +
                             meta.architecture + ", d = " + std::to_string(meta.hiddenSize) + ", " +
                             std::to_string(meta.numLayers) + " layers)";
  if (meta.hiddenSize != hiddenSize || meta.numLayers != numLayers)
    throw FormatError(store, origin + ", not " + modelFolder.string() +
                                 " (d = " + std::to_string(hiddenSize) + ", " +
                                 std::to_string(numLayers) + " layers)");
  if (!meta.modelFingerprint.empty() && meta.modelFingerprint != fingerprint)
    throw FormatError(store, origin + ": its weights differ from those in " + modelFolder.string() +
                                 " (model fingerprints " + meta.modelFingerprint.substr(0, 12) +
                                 "… and " + fingerprint.substr(0, 12) + "…)");
}

}  // namespace strata::io
