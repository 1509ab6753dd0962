#pragma once
// A GGUF file as a source of weights, read where it lies: every tensor under its Hugging Face
// name (gguf_model_plan.h), dequantised to float32 only when asked and only the rows asked for,
// with llama.cpp's conversion undone on the way (q/k rows un-permuted, Gemma's 1 + w norms
// offset back). Nothing is copied to disk and nothing is held: a loader converts one tensor
// (or a chunk of its rows) at a time into its compute dtype, so an 8B Q4 model needs its
// mapped file and one block, not a float32 copy of itself.
//
// A model folder "of" a GGUF file (ggufModelFolder) holds the config, tokenizer and
// strata_gguf_source.json, but no safetensors: ggufWeightSource(folder) names the file its
// weights come from, and every weight reader goes there.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_model_plan.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::io {

/** One tensor of the model as a loader sees it. */
struct GgufWeight {
  std::string name;                      ///< Hugging Face name
  const GgufTensorInfo* info = nullptr;  ///< the stored tensor
  GgufTensorPlan plan;                   ///< what is undone on reading
  std::vector<int64_t> shape;            ///< row-major, as the Hugging Face tensor
  int64_t rows = 1;                      ///< shape[0] (1 for a vector)
  int64_t columns = 0;                   ///< elements per row
};

/**
 * Thread-safety: immutable after open(); every const method may run concurrently.
 * Ownership: shared by the loaders that read from it; the mapping lives as long as it does.
 */
class GgufWeights {
 public:
  /**
   * Maps and plans `ggufFile` (metadata and tensor infos only: fast). Throws like GgufFile and
   * planGgufModel: IoError, FormatError naming the tensor or key, ConfigError for an
   * architecture Strata does not know.
   */
  static std::shared_ptr<const GgufWeights> open(const std::filesystem::path& ggufFile);

  const GgufFile& file() const { return m_file; }
  const GgufModelPlan& plan() const { return m_plan; }
  const std::filesystem::path& path() const { return m_file.path(); }

  /** The tensor called `name` (Hugging Face name), or nullptr. */
  const GgufWeight* find(std::string_view name) const;
  /** The tensor called `name`; FormatError naming the file and the tensor when absent. */
  const GgufWeight& weight(std::string_view name) const;
  /** Every tensor, in the plan's order. */
  const std::vector<GgufWeight>& weights() const { return m_weights; }

  /** Elements of every tensor the model uses. */
  int64_t parameterCount() const;
  /** Bytes of every tensor the model uses, as stored (quantised). */
  uint64_t storedBytes() const;
  /** Element count per stored type name ("Q4_0" -> elements), for summaries. */
  std::map<std::string, int64_t> elementsByType() const;

  /**
   * Writes rows [first, first + count) of `weight`, dequantised and fixed, into `out`
   * (count × columns floats), bit for bit what the whole tensor's dequantisation gives for
   * those rows. Work is split over `threads` OpenMP threads. Throws FormatError naming the
   * tensor (unsupported type, rows that do not hold whole blocks); std::out_of_range for
   * rows outside the tensor.
   */
  void readRows(const GgufWeight& weight, int64_t first, int64_t count, std::span<float> out,
                int threads = 1) const;

  /** Drops `weight`'s mapped pages from the resident set (see MappedFile::release). */
  void release(const GgufWeight& weight) const { m_file.releaseTensorData(*weight.info); }

  /**
   * Reads every used tensor's block scales (every value of F32/F16/BF16 tensors) and throws
   * FormatError naming the first tensor that holds a non-finite one: a file damaged in its
   * data region is refused before anything is computed or written from it. Touches each
   * page once and releases it; progress and cancellation through `job` when given.
   */
  void checkData(JobContext* job = nullptr) const;

 private:
  explicit GgufWeights(const std::filesystem::path& file);

  GgufFile m_file;
  GgufModelPlan m_plan;
  std::vector<GgufWeight> m_weights;
  std::map<std::string, std::size_t, std::less<>> m_index;
};

/**
 * Rows of `weight` to convert at once so that a piece holds about `elements` floats: whole
 * heads of rotary pairs for un-permuted tensors (readRows' fast path), at least one row.
 */
int64_t ggufRowsPerPiece(const GgufWeight& weight, int64_t elements = int64_t{4} << 20);

/** The stored row that row `row` of `weight` (in Hugging Face order) comes from: itself, or
 *  for q/k rows its place in llama.cpp's interleaved order. */
int64_t ggufStoredRow(const GgufWeight& weight, int64_t row);

/** The file name of the record that marks a model folder whose weights stay in a GGUF file. */
inline constexpr const char* kGgufSourceRecord = "strata_gguf_source.json";

/**
 * The GGUF file whose weights `folder` reads in place, or nullopt for an ordinary folder (one
 * with safetensors, an imported GGUF included). Throws FormatError naming the record when it
 * is unreadable, and IoError when the file it names is gone or has changed since the folder
 * was made (size or modification time).
 */
std::optional<std::filesystem::path> ggufWeightSource(const std::filesystem::path& folder);

}  // namespace strata::io
