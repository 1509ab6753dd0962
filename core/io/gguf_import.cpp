#include "io/gguf_import.h"

#include <omp.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/install_paths.h"
#include "io/folder_install.h"
#include "io/gguf_dequantize.h"
#include "io/gguf_file.h"
#include "io/gguf_model_plan.h"
#include "io/gguf_tokenizer.h"
#include "io/safetensors_writer.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

/** Undoes llama.cpp's q/k row permutation (see GgufTensorFix::UnpermuteRotaryRows). */
std::vector<float> unpermuteRotaryRows(const std::vector<float>& w, int64_t rows, int64_t cols,
                                       int64_t heads) {
  const int64_t half = rows / heads / 2;
  std::vector<float> out(w.size());
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t i = 0; i < half; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        const int64_t from = h * 2 * half + i * 2 + j, to = h * 2 * half + j * half + i;
        std::memcpy(&out[to * cols], &w[from * cols], cols * sizeof(float));
      }
  return out;
}

std::vector<float> loadTensor(const GgufFile& gguf, const GgufTensorPlan& plan, int threads) {
  const GgufTensorInfo& t = *gguf.findTensor(plan.ggufName);
  std::vector<float> values(t.elementCount);
  dequantizeGgml(t.typeId, gguf.tensorData(t), values, gguf.path(), t.name, threads);
  switch (plan.fix) {
    case GgufTensorFix::None:
      break;
    case GgufTensorFix::UnpermuteRotaryRows: {
      const int64_t rows = t.shape[0];
      if (rows % (2 * plan.heads) != 0)
        throw FormatError(gguf.path(),
                          "its " + std::to_string(rows) + " rows do not split into " +
                              std::to_string(plan.heads) + " heads of rotary pairs",
                          t.name);
      values = unpermuteRotaryRows(values, rows, t.elementCount / rows, plan.heads);
      break;
    }
    case GgufTensorFix::SubtractOne:
      for (float& v : values) v -= 1.0f;  // float32, as transformers' `weights - 1`
      break;
  }
  return values;
}

std::string sourceJson(const fs::path& file, const GgufFile& gguf, const GgufImportResult& result) {
  nlohmann::ordered_json j;
  j["gguf_file"] = fs::absolute(file).lexically_normal().string();
  j["size"] = gguf.fileSize();
  j["gguf_version"] = gguf.version();
  j["architecture"] = result.architecture;
  j["tensor_types"] = result.tensorTypes;
  if (gguf.has("general.name") && gguf.find("general.name")->type == GgufValueType::String)
    j["name"] = gguf.string("general.name");
  j["warnings"] = result.warnings;
  return j.dump(2) + "\n";
}

}  // namespace

GgufImportResult importGguf(const fs::path& ggufFile, const fs::path& outFolder,
                            const GgufImportOptions& options, JobContext* job) {
  const fs::path target = installTargetPath(outFolder);
  checkInstallTarget(target, options.force);  // refuse before the slow part
  const int threads = options.threads > 0 ? options.threads : omp_get_max_threads();

  const GgufFile gguf(ggufFile);
  const GgufModelPlan plan = planGgufModel(gguf);
  const GgufTokenizerFiles tokenizer = ggufTokenizerFiles(gguf);

  GgufImportResult result;
  result.folder = target;
  result.architecture = plan.architecture;
  result.warnings = plan.warnings;
  for (const GgufTensorInfo& t : gguf.tensors()) ++result.tensorTypes[ggmlTypeName(t.typeId)];

  // Every tensor stays in memory until the file is written (SafetensorsWriter references it):
  // the float32 model once, plus the mapped file.
  std::vector<std::vector<float>> values;
  values.reserve(plan.tensors.size());
  SafetensorsWriter writer;
  writer.setMetadata("source", "gguf");
  for (std::size_t i = 0; i < plan.tensors.size(); ++i) {
    if (job) {
      job->checkCancelled();
      job->progress(static_cast<double>(i) / plan.tensors.size(), "dequantising tensors");
    }
    const GgufTensorPlan& p = plan.tensors[i];
    values.push_back(loadTensor(gguf, p, threads));
    const std::vector<float>& v = values.back();
    writer.add(p.hfName, DType::F32, gguf.findTensor(p.ggufName)->shape,
               std::as_bytes(std::span<const float>(v)));
    result.parameterCount += static_cast<int64_t>(v.size());
  }

  if (job) job->progress(1.0, "writing the model folder");
  StagingFolder staging(target);
  const fs::path& dir = staging.path();
  writeTextFile(dir / "config.json", plan.configJson);
  writeTextFile(dir / "generation_config.json", plan.generationConfigJson);
  writer.write(dir / "model.safetensors");
  writeTextFile(dir / "tokenizer.json", tokenizer.tokenizerJson);
  writeTextFile(dir / "tokenizer_config.json", tokenizer.tokenizerConfigJson);
  writeTextFile(dir / "strata_gguf_source.json", sourceJson(ggufFile, gguf, result));
  if (job) job->checkCancelled();
  staging.install(target, options.force);
  return result;
}

fs::path ggufImportFolder(const fs::path& ggufFile) {
  struct stat info {};
  std::error_code error;
  const fs::path canonical = fs::canonical(ggufFile, error);
  if (error || ::stat(canonical.c_str(), &info) != 0)
    throw IoError(ggufFile,
                  "cannot read the file: " + (error ? error.message() : lastSystemError()));
  // FNV-1a 64 over the identity: a moved, replaced or rewritten file is imported afresh.
  const std::string identity = canonical.string() + "\n" + std::to_string(info.st_size) + "\n" +
                               std::to_string(info.st_mtim.tv_sec) + "." +
                               std::to_string(info.st_mtim.tv_nsec);
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : identity) hash = (hash ^ c) * 1099511628211ull;
  char key[17];
  std::snprintf(key, sizeof key, "%016llx", static_cast<unsigned long long>(hash));
  return userDataFolder() / "gguf" / (canonical.stem().string() + "-" + key);
}

bool isGgufModelFile(const fs::path& path) {
  std::error_code error;
  return fs::is_regular_file(path, error) && looksLikeGguf(path);
}

fs::path resolveModelFolder(const fs::path& path, JobContext* job) {
  if (!isGgufModelFile(path)) return path;
  const fs::path folder = ggufImportFolder(path);
  std::error_code error;
  if (fs::exists(folder / "config.json", error)) return folder;
  if (job) job->info("importing " + path.string() + " into " + folder.string());
  try {
    importGguf(path, folder, {}, job);
  } catch (const Error&) {
    // Another process may have finished the same import first: its folder is as good.
    if (fs::exists(folder / "config.json", error)) return folder;
    throw;
  }
  return folder;
}

}  // namespace strata::io
