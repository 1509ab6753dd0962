#pragma once
// The weights of a Hugging Face model folder: one `model.safetensors`, or shards listed by
// `model.safetensors.index.json`. Opening reads only headers; shards are mapped on demand so
// that a loader can go shard by shard without the whole model mapped at once.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/hf/safetensors_file.h"

namespace strata::io {

/**
 * The validated set of safetensors files holding a model's weights.
 *
 * Rules (NOTES.md "safetensors"): shard names are bare file names; every listed shard exists;
 * every tensor of the weight_map is held by the shard it names; no tensor is held by two
 * shards. A tensor held by a shard but absent from the weight_map, an unreferenced
 * *.safetensors file, a wrong total_size, or both a single file and an index present are
 * warnings (Hugging Face loads such folders), collected in warnings(). When both a single
 * file and an index exist, `model.safetensors` is used, as transformers does.
 *
 * Thread-safety: every method may be called from several threads. Move-only.
 */
class WeightFiles {
 public:
  /**
   * Reads the folder's index (if any) and every weight file's header. Throws FormatError
   * naming the index, the shard or the tensor at fault, FormatError naming the folder when no
   * weights are found, IoError when a file cannot be read.
   */
  static WeightFiles open(const std::filesystem::path& folder);

  WeightFiles(WeightFiles&&) noexcept;
  WeightFiles& operator=(WeightFiles&&) noexcept;
  ~WeightFiles();

  const std::filesystem::path& folder() const { return m_folder; }
  /** True when the weights come from model.safetensors.index.json. */
  bool sharded() const { return m_sharded; }
  /** The weight files (full paths), sorted by name. */
  const std::vector<std::filesystem::path>& files() const { return m_files; }
  /** Every tensor of the model, sorted by name. */
  std::vector<std::string> tensorNames() const;
  /** The tensor called `name`, or nullptr. */
  const TensorEntry* find(std::string_view name) const;
  /** The tensor called `name`; FormatError naming the folder and the tensor if absent. */
  const TensorEntry& entry(std::string_view name) const;
  /** The file holding tensor `name` (FormatError if absent). */
  const std::filesystem::path& shardOf(std::string_view name) const;
  /** Sum of the byte sizes of every tensor. */
  uint64_t totalBytes() const { return m_totalBytes; }
  /** Oddities that do not stop loading, one readable line each. */
  const std::vector<std::string>& warnings() const { return m_warnings; }

  /**
   * The mapped weight file `file` (one of files(), or its bare name). Mapped on first use;
   * while a caller holds the result, later calls return the same mapping; once every holder
   * has dropped it, the mapping is released (load shard by shard: hold one, load its
   * tensors, drop it). Throws FormatError if the file changed on disk since open().
   */
  std::shared_ptr<const SafetensorsFile> shard(const std::filesystem::path& file) const;

 private:
  struct Location {
    std::size_t file = 0;  // index into m_files
    TensorEntry entry;
  };
  struct OpenShards;

  WeightFiles();
  void addShard(const std::filesystem::path& file, SafetensorsHeaderInfo header);
  void openSingle(const std::filesystem::path& file);
  void openIndex(const std::filesystem::path& index);

  std::filesystem::path m_folder;
  bool m_sharded = false;
  std::vector<std::filesystem::path> m_files;
  std::vector<std::vector<TensorEntry>> m_headers;  // per file, to detect changes on disk
  std::map<std::string, Location, std::less<>> m_tensors;
  uint64_t m_totalBytes = 0;
  std::vector<std::string> m_warnings;
  std::unique_ptr<OpenShards> m_open;
};

}  // namespace strata::io
