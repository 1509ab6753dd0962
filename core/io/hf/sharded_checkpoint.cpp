#include "io/hf/sharded_checkpoint.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/text_file.h"
#include "io/strict_json.h"

namespace strata::io {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kSingleName = "model.safetensors";
constexpr const char* kIndexName = "model.safetensors.index.json";

// Parses the index. A tensor listed twice in weight_map (possibly with two shards) must be an
// error, not silently one of the two (see strict_json.h).
json readIndex(const fs::path& index) {
  return parseJsonRejectingDuplicates(
      readWholeFile(index), index, "not valid JSON: ", [&](const DuplicateKey& duplicate) {
        if (duplicate.parents.size() == 1 && duplicate.parents.front() == "weight_map")
          throw FormatError(index, "listed twice in weight_map", duplicate.key);
      });
}

// A shard name comes from a downloaded file; it must not reach outside the model folder.
void checkBareName(const std::string& shard, const fs::path& index, const std::string& tensor) {
  if (shard.empty() || shard.find_first_of(std::string("/\\\0", 3)) != std::string::npos ||
      shard.find("..") != std::string::npos)
    throw FormatError(index,
                      "shard name \"" + shard +
                          "\" is not a bare file name in the model folder (no '/', '\\' "
                          "or '..')",
                      tensor);
}

}  // namespace

struct WeightFiles::OpenShards {
  std::mutex mutex;
  std::vector<std::weak_ptr<const SafetensorsFile>> mapped;  // parallel to m_files
};

WeightFiles::WeightFiles() : m_open(std::make_unique<OpenShards>()) {}
WeightFiles::WeightFiles(WeightFiles&&) noexcept = default;
WeightFiles& WeightFiles::operator=(WeightFiles&&) noexcept = default;
WeightFiles::~WeightFiles() = default;

WeightFiles WeightFiles::open(const fs::path& folder) {
  if (!fs::is_directory(folder)) throw IoError(folder, "no such folder");
  WeightFiles weights;
  weights.m_folder = folder;
  const bool haveSingle = fs::exists(folder / kSingleName);
  const bool haveIndex = fs::exists(folder / kIndexName);
  if (haveSingle) {
    if (haveIndex)
      weights.m_warnings.push_back(std::string("both ") + kSingleName + " and " + kIndexName +
                                   " exist; using " + kSingleName);
    weights.openSingle(folder / kSingleName);
  } else if (haveIndex) {
    weights.openIndex(folder / kIndexName);
  } else {
    std::string problem =
        std::string("no weights found: looked for ") + kSingleName + " and " + kIndexName;
    if (fs::exists(folder / "pytorch_model.bin"))
      problem += "; pytorch_model.bin is not read by Strata (convert it to safetensors)";
    throw FormatError(folder, problem);
  }
  weights.m_open->mapped.resize(weights.m_files.size());

  for (const auto& item : fs::directory_iterator(folder)) {
    if (item.path().extension() != ".safetensors") continue;
    if (std::find(weights.m_files.begin(), weights.m_files.end(), item.path()) ==
        weights.m_files.end())
      weights.m_warnings.push_back(item.path().filename().string() +
                                   " is not one of the model's weight files and is ignored");
  }
  return weights;
}

void WeightFiles::addShard(const fs::path& file, SafetensorsHeaderInfo header) {
  m_files.push_back(file);
  m_headers.push_back(std::move(header.tensors));
}

void WeightFiles::openSingle(const fs::path& file) {
  addShard(file, readSafetensorsHeader(file));
  for (const TensorEntry& entry : m_headers.front()) {
    m_tensors.emplace(entry.name, Location{0, entry});
    m_totalBytes += entry.byteSize();
  }
}

void WeightFiles::openIndex(const fs::path& index) {
  m_sharded = true;
  const json root = readIndex(index);
  if (!root.is_object()) throw FormatError(index, "not a JSON object");
  const auto weightMap = root.find("weight_map");
  if (weightMap == root.end() || !weightMap->is_object())
    throw FormatError(index, "missing, or not an object of tensor -> shard file", "weight_map",
                      "key");
  if (weightMap->empty()) throw FormatError(index, "lists no tensors", "weight_map", "key");

  std::map<std::string, std::string> shardOfTensor;
  std::set<std::string> shardNames;  // sorted: files() is in name order
  for (const auto& [tensor, shard] : weightMap->items()) {
    if (!shard.is_string())
      throw FormatError(index, "shard name is not a string: " + shard.dump(), tensor);
    checkBareName(shard.get<std::string>(), index, tensor);
    shardOfTensor[tensor] = shard.get<std::string>();
    shardNames.insert(shard.get<std::string>());
  }

  std::map<std::string, std::size_t> fileOfName;
  for (const std::string& name : shardNames) {
    if (!fs::is_regular_file(m_folder / name))
      throw FormatError(index, "listed in weight_map but missing from the folder", name, "shard");
    fileOfName[name] = m_files.size();
    addShard(m_folder / name, readSafetensorsHeader(m_folder / name));
  }

  // Which file really holds each tensor; a tensor in two files is ambiguous.
  std::map<std::string, std::pair<std::size_t, const TensorEntry*>> heldBy;
  for (std::size_t file = 0; file < m_files.size(); ++file)
    for (const TensorEntry& entry : m_headers[file]) {
      const auto [it, fresh] = heldBy.emplace(entry.name, std::pair{file, &entry});
      if (!fresh)
        throw FormatError(index,
                          "held by two shards, '" + m_files[it->second.first].filename().string() +
                              "' and '" + m_files[file].filename().string() + "'",
                          entry.name);
    }

  for (const auto& [tensor, shard] : shardOfTensor) {
    const std::size_t file = fileOfName.at(shard);
    const auto held = heldBy.find(tensor);
    if (held == heldBy.end() || held->second.first != file)
      throw FormatError(
          index, "weight_map puts it in '" + shard + "', but that shard does not hold it", tensor);
    m_tensors.emplace(tensor, Location{file, *held->second.second});
    m_totalBytes += held->second.second->byteSize();
  }

  std::map<std::size_t, std::vector<std::string>> unlisted;
  for (const auto& [tensor, where] : heldBy)
    if (!shardOfTensor.contains(tensor)) unlisted[where.first].push_back(tensor);
  for (const auto& [file, names] : unlisted) {
    std::string line = m_files[file].filename().string() + " holds " +
                       std::to_string(names.size()) + " tensor(s) the index does not list:";
    for (std::size_t i = 0; i < names.size() && i < 5; ++i) line += " " + names[i];
    m_warnings.push_back(names.size() > 5 ? line + " ..." : line);
  }

  const auto metadata = root.find("metadata");
  if (metadata != root.end() && metadata->is_object() && metadata->contains("total_size")) {
    const json& total = (*metadata)["total_size"];
    if (!total.is_number_unsigned() || total.get<uint64_t>() != m_totalBytes)
      m_warnings.push_back(std::string(kIndexName) + ": total_size " + total.dump() +
                           " differs from the tensors' " + std::to_string(m_totalBytes) + " bytes");
  }
}

std::vector<std::string> WeightFiles::tensorNames() const {
  std::vector<std::string> names;
  names.reserve(m_tensors.size());
  std::transform(m_tensors.begin(), m_tensors.end(), std::back_inserter(names),
                 [](const auto& item) { return item.first; });
  return names;
}

const TensorEntry* WeightFiles::find(std::string_view name) const {
  const auto found = m_tensors.find(name);
  return found == m_tensors.end() ? nullptr : &found->second.entry;
}

const TensorEntry& WeightFiles::entry(std::string_view name) const {
  if (const TensorEntry* found = find(name)) return *found;
  throw FormatError(m_folder, "no such tensor in the model's weights", std::string(name));
}

const fs::path& WeightFiles::shardOf(std::string_view name) const {
  const auto found = m_tensors.find(name);
  if (found == m_tensors.end())
    throw FormatError(m_folder, "no such tensor in the model's weights", std::string(name));
  return m_files[found->second.file];
}

std::shared_ptr<const SafetensorsFile> WeightFiles::shard(const fs::path& file) const {
  std::size_t index = 0;
  while (index < m_files.size() && m_files[index] != file &&
         !(file == file.filename() && m_files[index].filename() == file))
    ++index;
  if (index == m_files.size())
    throw FormatError(m_folder, "not one of the model's weight files", file.string(), "file");

  std::lock_guard lock(m_open->mutex);
  if (auto mapped = m_open->mapped[index].lock()) return mapped;
  auto mapped = SafetensorsFile::open(m_files[index]);
  if (mapped->tensors() != m_headers[index])
    throw FormatError(m_files[index], "changed on disk since the model folder was opened");
  m_open->mapped[index] = mapped;
  return mapped;
}

}  // namespace strata::io
