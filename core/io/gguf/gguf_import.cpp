#include "io/gguf/gguf_import.h"

#include <omp.h>
#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/install_paths.h"
#include "io/gguf/gguf_tokenizer.h"
#include "io/gguf/gguf_types.h"
#include "io/gguf/gguf_weights.h"
#include "io/hf/folder_install.h"
#include "io/hf/hf_config.h"
#include "io/hf/safetensors_writer.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

/** float32 to bfloat16 bits, round to nearest even (as LibTorch and transformers convert). */
uint16_t toBFloat16(float value) {
  const auto bits = std::bit_cast<uint32_t>(value);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0)
    return static_cast<uint16_t>((bits >> 16) | 0x0040u);  // NaN stays a (quiet) NaN
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

/** The dtype a tensor of ggml type `typeId` is written as. */
DType storedDType(uint32_t typeId, DType forQuantised) {
  switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::F32:
      return DType::F32;
    case GgmlType::F16:
      return DType::F16;
    case GgmlType::BF16:
      return DType::BF16;
    default:
      return forQuantised;
  }
}

/** Emits `w` converted to `dtype`, piece by piece. */
void produceTensor(const GgufWeights& gguf, const GgufWeight& w, DType dtype, int threads,
                   const SafetensorsWriter::Emit& emit) {
  const int64_t step = ggufRowsPerPiece(w);
  std::vector<float> values;
  std::vector<uint16_t> halves;
  for (int64_t first = 0; first < w.rows; first += step) {
    const int64_t count = std::min(step, w.rows - first);
    values.resize(static_cast<std::size_t>(count * w.columns));
    gguf.readRows(w, first, count, values, threads);
    if (dtype == DType::F32) {
      emit(std::as_bytes(std::span<const float>(values)));
      continue;
    }
    halves.resize(values.size());
    if (dtype == DType::BF16)
      std::transform(values.begin(), values.end(), halves.begin(), toBFloat16);
    else
      std::transform(values.begin(), values.end(), halves.begin(), [](float v) {
        return std::bit_cast<uint16_t>(static_cast<_Float16>(v));  // round to nearest even
      });
    emit(std::as_bytes(std::span<const uint16_t>(halves)));
  }
  gguf.release(w);
}

std::string dtypeConfigName(DType dtype) {
  return dtype == DType::BF16 ? "bfloat16" : dtype == DType::F16 ? "float16" : "float32";
}

std::string withTorchDType(const std::string& configJson, DType dtype) {
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(configJson);
  config["torch_dtype"] = dtypeConfigName(dtype);
  return config.dump(2) + "\n";
}

std::string modifiedStamp(const fs::path& file) {
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0)
    throw IoError(file, "cannot read the file: " + lastSystemError());
  return std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
}

/** "Q4_1" -> tensors of that type in the file (every tensor, used or not). */
std::map<std::string, int64_t> tensorTypeCounts(const GgufFile& gguf) {
  std::map<std::string, int64_t> types;
  for (const GgufTensorInfo& t : gguf.tensors()) ++types[ggmlTypeName(t.typeId)];
  return types;
}

nlohmann::ordered_json sourceRecord(const fs::path& file, const GgufWeights& gguf,
                                    const std::vector<std::string>& warnings) {
  const GgufFile& g = gguf.file();
  nlohmann::ordered_json j;
  j["gguf_file"] = fs::absolute(file).lexically_normal().string();
  j["size"] = g.fileSize();
  j["modified"] = modifiedStamp(file);
  j["gguf_version"] = g.version();
  j["architecture"] = gguf.plan().architecture;
  j["tensor_types"] = tensorTypeCounts(g);
  if (g.has("general.name") && g.find("general.name")->type == GgufValueType::String)
    j["name"] = g.string("general.name");
  j["warnings"] = warnings;
  return j;
}

void writeMetadataFiles(const fs::path& dir, const GgufWeights& gguf, const std::string& config) {
  const GgufTokenizerFiles tokenizer = ggufTokenizerFiles(gguf.file());
  writeTextFile(dir / "config.json", config);
  writeTextFile(dir / "generation_config.json", gguf.plan().generationConfigJson);
  writeTextFile(dir / "tokenizer.json", tokenizer.tokenizerJson);
  writeTextFile(dir / "tokenizer_config.json", tokenizer.tokenizerConfigJson);
}

/** Consecutive tensors grouped into shards of at most `limit` bytes (a larger one alone). */
std::vector<std::vector<std::size_t>> shardGroups(const std::vector<uint64_t>& bytes,
                                                  uint64_t limit) {
  std::vector<std::vector<std::size_t>> groups(1);
  uint64_t size = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (!groups.back().empty() && size + bytes[i] > limit) {
      groups.emplace_back();
      size = 0;
    }
    groups.back().push_back(i);
    size += bytes[i];
  }
  return groups;
}

std::string shardName(std::size_t index, std::size_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index + 1, count);
  return name;
}

}  // namespace

GgufImportResult importGguf(const fs::path& ggufFile, const fs::path& outFolder,
                            const GgufImportOptions& options, JobContext* job) {
  const fs::path target = installTargetPath(outFolder);
  checkInstallTarget(target, options.force);  // refuse before the slow part
  if (options.dtype != DType::F32 && options.dtype != DType::BF16 && options.dtype != DType::F16)
    throw ConfigError({}, "dtype", "must be f32, bf16 or f16");
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();

  const auto gguf = GgufWeights::open(ggufFile);
  GgufImportResult result;
  result.folder = target;
  result.architecture = gguf->plan().architecture;
  result.warnings = gguf->plan().warnings;
  result.tensorTypes = tensorTypeCounts(gguf->file());
  result.parameterCount = gguf->parameterCount();

  const std::vector<GgufWeight>& weights = gguf->weights();
  std::vector<DType> dtypes;
  std::vector<uint64_t> bytes;
  for (const GgufWeight& w : weights) {
    dtypes.push_back(storedDType(w.info->typeId, options.dtype));
    bytes.push_back(static_cast<uint64_t>(w.info->elementCount) * dtypeSize(dtypes.back()));
    ++result.storedTypes[std::string(dtypeName(dtypes.back()))];
  }
  const auto groups = shardGroups(bytes, std::max<uint64_t>(options.maxShardBytes, 1));

  StagingFolder staging(target);
  const fs::path& dir = staging.path();
  writeMetadataFiles(dir, *gguf, withTorchDType(gguf->plan().configJson, options.dtype));
  writeTextFile(dir / kGgufSourceRecord,
                sourceRecord(ggufFile, *gguf, result.warnings).dump(2) + "\n");

  std::size_t done = 0;
  nlohmann::ordered_json weightMap = nlohmann::ordered_json::object();
  uint64_t totalSize = 0;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const std::string file = groups.size() == 1 ? "model.safetensors" : shardName(g, groups.size());
    SafetensorsWriter writer;
    writer.setMetadata("source", "gguf");
    for (std::size_t i : groups[g]) {
      const GgufWeight& w = weights[i];
      const DType dtype = dtypes[i];
      writer.addProduced(w.name, dtype, w.shape, [&, dtype](const SafetensorsWriter::Emit& emit) {
        if (job) {
          job->checkCancelled();
          job->progress(static_cast<double>(done) / static_cast<double>(weights.size()),
                        "converting tensors");
        }
        produceTensor(*gguf, w, dtype, threads, emit);
        ++done;
      });
      weightMap[w.name] = file;
      totalSize += bytes[i];
    }
    writer.write(dir / file);
    result.weightFiles.push_back(target / file);
  }
  if (groups.size() > 1) {
    nlohmann::ordered_json index;
    index["metadata"] = {{"total_size", totalSize}};
    index["weight_map"] = weightMap;
    writeTextFile(dir / "model.safetensors.index.json", index.dump(2) + "\n");
  }
  if (job) {
    job->checkCancelled();
    job->progress(1.0, "installing the folder");
  }
  staging.install(target, options.force);
  return result;
}

fs::path ggufModelFolder(const fs::path& ggufFile) {
  struct stat info {};
  std::error_code error;
  const fs::path canonical = fs::canonical(ggufFile, error);
  if (error || ::stat(canonical.c_str(), &info) != 0)
    throw IoError(ggufFile,
                  "cannot read the file: " + (error ? error.message() : lastSystemError()));
  // FNV-1a 64 over the identity: a moved, replaced or rewritten file gets a fresh folder. The
  // "in place" tag keeps these folders apart from the float32 imports earlier versions made.
  const std::string identity =
      "in place\n" + canonical.string() + "\n" + std::to_string(info.st_size) + "\n" +
      std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : identity) hash = (hash ^ c) * 1099511628211ull;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash));
  return userDataFolder() / "gguf" / (canonical.stem().string() + "-" + key);
}

std::vector<std::string> writeGgufModelFolder(const fs::path& ggufFile, const fs::path& folder) {
  const auto gguf = GgufWeights::open(ggufFile);
  const fs::path target = installTargetPath(folder);
  StagingFolder staging(target);
  writeMetadataFiles(staging.path(), *gguf, gguf->plan().configJson);
  nlohmann::ordered_json record = sourceRecord(ggufFile, *gguf, gguf->plan().warnings);
  record["weights"] = "in place";
  writeTextFile(staging.path() / kGgufSourceRecord, record.dump(2) + "\n");
  staging.install(target, /*force=*/true);
  return gguf->plan().warnings;
}

bool isGgufModelFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && looksLikeGguf(path);
}

fs::path resolveModelFolder(const fs::path& path, JobContext* job) {
  if (!isGgufModelFile(path)) return path;
  const fs::path folder = ggufModelFolder(path);
  std::error_code error;
  if (fs::exists(folder / "config.json", error)) return folder;
  if (job) job->progress(-1.0, "reading " + path.filename().string());
  try {
    writeGgufModelFolder(path, folder);
  } catch (const Error&) {
    // Another process may have made the same folder first: its folder is as good.
    if (fs::exists(folder / "config.json", error)) return folder;
    throw;
  }
  return folder;
}

int64_t modelLayerCount(const fs::path& path, JobContext* job) {
  return readModelConfig(resolveModelFolder(path, job) / "config.json").numLayers;
}

}  // namespace strata::io
