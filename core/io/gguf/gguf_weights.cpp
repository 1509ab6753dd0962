#include "io/gguf/gguf_weights.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_dequantize_blocks.h"
#include "io/gguf/gguf_types.h"

namespace strata::io {

namespace fs = std::filesystem;

namespace {

/** Rows of one head's rotary pairs: the span inside which llama.cpp permuted q/k rows. */
int64_t permutedSpan(const GgufWeight& w) {
  return w.plan.fix == GgufTensorFix::UnpermuteRotaryRows ? w.rows / w.plan.heads : 1;
}

/** The stored row that output row `row` comes from (GgufTensorFix::UnpermuteRotaryRows: output
 *  row h·2·half + j·half + i is stored at h·2·half + 2·i + j). */
int64_t sourceRow(const GgufWeight& w, int64_t row) {
  if (w.plan.fix != GgufTensorFix::UnpermuteRotaryRows) return row;
  const int64_t span = permutedSpan(w), half = span / 2;
  const int64_t head = row / span, rest = row % span;
  const int64_t j = rest / half, i = rest % half;
  return head * span + 2 * i + j;
}

/** Byte offsets of the float16 scales inside one block of `type` (empty: check every value). */
std::vector<int> scaleOffsets(GgmlType type) {
  switch (type) {
    case GgmlType::Q4_0:
    case GgmlType::Q5_0:
    case GgmlType::Q8_0:
      return {0};
    case GgmlType::Q4_1:
    case GgmlType::Q5_1:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
      return {0, 2};
    case GgmlType::Q2_K:
      return {80, 82};
    case GgmlType::Q3_K:
      return {108};
    case GgmlType::Q6_K:
      return {208};
    default:
      return {};
  }
}

/** Index of the first block (or element) of `data` whose scale (or value) is not finite. */
int64_t firstNonFinite(const GgmlTypeTraits& traits, std::span<const std::byte> data) {
  using namespace gguf_blocks;
  const std::byte* p = data.data();
  switch (traits.type) {
    case GgmlType::F32:
      for (std::size_t i = 0; i < data.size() / 4; ++i) {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        if (!std::isfinite(v)) return static_cast<int64_t>(i);
      }
      return -1;
    case GgmlType::F16:
      for (std::size_t i = 0; i < data.size() / 2; ++i)
        if ((loadU16(p + 2 * i) & 0x7C00u) == 0x7C00u) return static_cast<int64_t>(i);
      return -1;
    case GgmlType::BF16:
      for (std::size_t i = 0; i < data.size() / 2; ++i)
        if ((loadU16(p + 2 * i) & 0x7F80u) == 0x7F80u) return static_cast<int64_t>(i);
      return -1;
    default:
      break;
  }
  const std::vector<int> offsets = scaleOffsets(traits.type);
  const auto blocks = static_cast<int64_t>(data.size()) / traits.typeSize;
  for (int64_t b = 0; b < blocks; ++b)
    for (int offset : offsets)
      if ((loadU16(p + b * traits.typeSize + offset) & 0x7C00u) == 0x7C00u) return b;
  return -1;
}

}  // namespace

GgufWeights::GgufWeights(const fs::path& file) : m_file(file), m_plan(planGgufModel(m_file)) {
  m_weights.reserve(m_plan.tensors.size());
  for (const GgufTensorPlan& p : m_plan.tensors) {
    GgufWeight w;
    w.name = p.hfName;
    w.info = m_file.findTensor(p.ggufName);
    w.plan = p;
    w.shape = w.info->shape;
    w.rows = w.shape.size() >= 2 ? w.shape[0] : 1;
    w.columns = w.rows > 0 ? w.info->elementCount / w.rows : 0;
    if (p.fix == GgufTensorFix::UnpermuteRotaryRows && (p.heads <= 0 || w.rows % (2 * p.heads)))
      throw FormatError(path(),
                        "its " + std::to_string(w.rows) + " rows do not split into " +
                            std::to_string(p.heads) + " heads of rotary pairs",
                        p.ggufName);
    const auto traits = ggmlTypeTraits(w.info->typeId);
    if (w.rows > 1 && traits && w.columns % traits->blockSize != 0)
      throw FormatError(path(),
                        "its rows of " + std::to_string(w.columns) +
                            " elements do not hold whole " + traits->name + " blocks",
                        p.ggufName);
    m_index.emplace(w.name, m_weights.size());
    m_weights.push_back(std::move(w));
  }
}

std::shared_ptr<const GgufWeights> GgufWeights::open(const fs::path& ggufFile) {
  return std::shared_ptr<const GgufWeights>(new GgufWeights(ggufFile));
}

const GgufWeight* GgufWeights::find(std::string_view name) const {
  const auto it = m_index.find(name);
  return it == m_index.end() ? nullptr : &m_weights[it->second];
}

const GgufWeight& GgufWeights::weight(std::string_view name) const {
  const GgufWeight* w = find(name);
  if (!w) throw FormatError(path(), "the model has no such tensor", std::string(name));
  return *w;
}

int64_t GgufWeights::parameterCount() const {
  int64_t total = 0;
  for (const GgufWeight& w : m_weights) total += w.info->elementCount;
  return total;
}

uint64_t GgufWeights::storedBytes() const {
  uint64_t total = 0;
  for (const GgufWeight& w : m_weights) total += w.info->byteSize;
  return total;
}

std::map<std::string, int64_t> GgufWeights::elementsByType() const {
  std::map<std::string, int64_t> result;
  for (const GgufWeight& w : m_weights)
    result[ggmlTypeName(w.info->typeId)] += w.info->elementCount;
  return result;
}

void GgufWeights::readRows(const GgufWeight& w, int64_t first, int64_t count, std::span<float> out,
                           int threads) const {
  if (first < 0 || count < 0 || first + count > w.rows)
    throw std::out_of_range("rows " + std::to_string(first) + " + " + std::to_string(count) +
                            " of " + w.name + " (" + std::to_string(w.rows) + " rows)");
  if (static_cast<int64_t>(out.size()) != count * w.columns)
    throw std::invalid_argument("readRows: the output holds " + std::to_string(out.size()) +
                                " floats, not " + std::to_string(count * w.columns));
  const std::span<const std::byte> data = m_file.tensorData(*w.info);
  const uint64_t rowBytes = w.info->byteSize / static_cast<uint64_t>(w.rows);
  const auto rowsAt = [&](int64_t stored, int64_t n, float* target) {
    dequantizeGgml(w.info->typeId, data.subspan(stored * rowBytes, n * rowBytes),
                   {target, static_cast<std::size_t>(n * w.columns)}, path(), w.plan.ggufName,
                   threads);
  };
  const int64_t span = permutedSpan(w);
  if (span == 1) {
    rowsAt(first, count, out.data());
  } else if (first % span == 0 && count % span == 0) {
    // Whole heads: dequantise them as stored, then put each row where transformers has it.
    std::vector<float> stored(out.size());
    rowsAt(first, count, stored.data());
    const auto rowLength = static_cast<std::size_t>(w.columns);
    for (int64_t r = 0; r < count; ++r)
      std::memcpy(&out[r * rowLength], &stored[(sourceRow(w, first + r) - first) * rowLength],
                  rowLength * sizeof(float));
  } else {
    for (int64_t r = 0; r < count; ++r) rowsAt(sourceRow(w, first + r), 1, &out[r * w.columns]);
  }
  if (w.plan.fix == GgufTensorFix::SubtractOne)
    for (float& v : out) v -= 1.0f;  // float32, as transformers' `weights - 1`
}

void GgufWeights::checkData(JobContext* job) const {
  for (std::size_t i = 0; i < m_weights.size(); ++i) {
    const GgufWeight& w = m_weights[i];
    if (job) {
      job->checkCancelled();
      job->progress(static_cast<double>(i) / static_cast<double>(m_weights.size()),
                    "checking the GGUF file's tensors");
    }
    const auto traits = ggmlTypeTraits(w.info->typeId);
    if (!traits || !traits->dequantizable)
      throw FormatError(path(),
                        "tensor type " + ggmlTypeName(w.info->typeId) +
                            " is not supported; Strata dequantises " + dequantizableGgmlTypes(),
                        w.plan.ggufName);
    const int64_t bad = firstNonFinite(*traits, m_file.tensorData(*w.info));
    release(w);
    if (bad >= 0)
      throw FormatError(path(),
                        std::string(traits->blockSize == 1 ? "value " : "block ") +
                            std::to_string(bad) + " holds a non-finite " +
                            (traits->blockSize == 1 ? "number" : "scale") +
                            " (the file is damaged in this tensor's data)",
                        w.plan.ggufName);
  }
}

int64_t ggufStoredRow(const GgufWeight& w, int64_t row) { return sourceRow(w, row); }

int64_t ggufRowsPerPiece(const GgufWeight& w, int64_t elements) {
  const int64_t span = permutedSpan(w);
  const int64_t rows = std::max<int64_t>(1, elements / std::max<int64_t>(w.columns, 1));
  return std::max(span, rows / span * span);
}

std::optional<fs::path> ggufWeightSource(const fs::path& folder) {
  const fs::path record = folder / kGgufSourceRecord;
  std::error_code error;
  if (!fs::is_regular_file(record, error) || fs::exists(folder / "model.safetensors", error) ||
      fs::exists(folder / "model.safetensors.index.json", error))
    return std::nullopt;  // an imported folder keeps the record for provenance only
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readWholeFile(record));
  } catch (const nlohmann::json::exception& e) {
    throw FormatError(record, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("weights", std::string()) != "in place" ||
      !j.contains("gguf_file") || !j["gguf_file"].is_string())
    return std::nullopt;
  const fs::path file = j["gguf_file"].get<std::string>();
  struct stat info {};
  if (::stat(file.c_str(), &info) != 0)
    throw IoError(file, "the GGUF file this model reads its weights from is gone (" +
                            lastSystemError() + "); open it again");
  const std::string stamp =
      std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec);
  if (j.value("size", uint64_t{0}) != static_cast<uint64_t>(info.st_size) ||
      j.value("modified", std::string()) != stamp)
    throw IoError(
        file, "has changed since " + folder.string() + " was made from it; open the file again");
  return file;
}

}  // namespace strata::io
