// The checkpoints/ folder of a run (see checkpoint_store.h).

#include "engine/checkpoint_store.h"

#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "io/atomic_file.h"
#include "io/corpus/corpus_hash.h"

namespace strata::engine {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

std::string folderName(int64_t step) { return "step-" + std::to_string(step); }

/** Removes a checkpoint folder without ever leaving a half-deleted "step-N" behind: it is
 *  first renamed (atomically) to a hidden name that removeStale() sweeps up after a crash. */
void discardFolder(const fs::path& folder) {
  if (!fs::exists(folder)) return;
  std::string name = ".";  // appended piecewise: GCC 12 gives a false -Wrestrict on a + chain
  name.append(folder.filename().string()).append(".trash-").append(std::to_string(::getpid()));
  const fs::path trash = folder.parent_path() / name;
  fs::remove_all(trash);
  fs::rename(folder, trash);
  fs::remove_all(trash);
}

std::optional<int64_t> stepOfPointer(const fs::path& pointer) {
  try {
    std::string name = readWholeFile(pointer);
    while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
    if (!name.starts_with("step-")) return std::nullopt;
    return std::stoll(name.substr(5));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

CheckpointStore::CheckpointStore(fs::path folder) : m_folder(std::move(folder)) {}

void CheckpointStore::removeStale() const {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(m_folder, ec))
    if (entry.path().filename().string().starts_with(".step-")) fs::remove_all(entry.path());
  io::removeStaleTemporaries(m_folder);  // of the latest / best pointers
}

fs::path CheckpointStore::begin(int64_t step) const {
  fs::create_directories(m_folder);
  std::string name = ".";
  name.append(folderName(step)).append(".tmp-").append(std::to_string(::getpid()));
  const fs::path temp = m_folder / name;
  fs::remove_all(temp);
  fs::create_directory(temp);
  return temp;
}

void CheckpointStore::commit(const fs::path& temp, int64_t step,
                             const std::vector<std::string>& files, bool isBest,
                             int64_t keepLast) const {
  try {
    Json entries = Json::object();
    for (const std::string& name : files) {
      io::fsyncFile(temp / name);
      const std::string bytes = readWholeFile(temp / name);
      entries[name] = {{"bytes", bytes.size()}, {"sha256", io::sha256Hex(bytes)}};
    }
    io::writeTextAtomically(temp / "manifest.json",
                            Json{{"step", step}, {"files", entries}}.dump(2) + "\n");
    io::fsyncDirectory(temp);
    const fs::path final = m_folder / folderName(step);
    discardFolder(final);
    fs::rename(temp, final);
    io::fsyncDirectory(m_folder);
  } catch (...) {
    std::error_code ec;
    fs::remove_all(temp, ec);
    throw;
  }
  io::writeTextAtomically(m_folder / "latest", folderName(step) + "\n");
  if (isBest) io::writeTextAtomically(m_folder / "best", folderName(step) + "\n");

  const std::optional<int64_t> best = bestStep();
  const auto all = checkpoints();
  for (size_t i = static_cast<size_t>(std::max<int64_t>(keepLast, 1)); i < all.size(); ++i)
    if (!best || all[i].first != *best) discardFolder(all[i].second);
}

std::vector<std::pair<int64_t, fs::path>> CheckpointStore::checkpoints() const {
  std::vector<std::pair<int64_t, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(m_folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_directory() || !name.starts_with("step-")) continue;
    try {
      size_t used = 0;
      const int64_t step = std::stoll(name.substr(5), &used);
      if (used == name.size() - 5) found.emplace_back(step, entry.path());
    } catch (const std::exception&) {
    }
  }
  std::sort(found.rbegin(), found.rend());
  return found;
}

bool CheckpointStore::verify(const fs::path& folder) {
  try {
    if (!fs::is_regular_file(folder / "manifest.json")) return false;
    const Json manifest = Json::parse(readWholeFile(folder / "manifest.json"));
    for (const auto& [name, entry] : manifest.at("files").items()) {
      const fs::path file = folder / name;
      if (!fs::is_regular_file(file) || fs::file_size(file) != entry.at("bytes").get<uint64_t>())
        return false;
      if (io::sha256Hex(readWholeFile(file)) != entry.at("sha256").get<std::string>()) return false;
    }
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

std::optional<std::pair<int64_t, fs::path>> CheckpointStore::bestOrNewestValid() const {
  std::vector<std::pair<int64_t, fs::path>> candidates = checkpoints();
  if (const auto best = bestStep())  // the best first, then newest to oldest
    std::stable_partition(candidates.begin(), candidates.end(),
                          [&](const auto& c) { return c.first == *best; });
  for (const auto& candidate : candidates)
    if (verify(candidate.second)) return candidate;
  return std::nullopt;
}

std::pair<int64_t, fs::path> CheckpointStore::chosen(std::optional<int64_t> step) const {
  if (step) {
    const fs::path folder = m_folder / folderName(*step);
    if (!verify(folder)) throw IoError(folder, "is not a valid checkpoint");
    return {*step, folder};
  }
  const auto checkpoint = bestOrNewestValid();
  if (!checkpoint) throw FormatError(m_folder, "has no valid checkpoint");
  return *checkpoint;
}

std::optional<int64_t> CheckpointStore::bestStep() const {
  const auto step = stepOfPointer(m_folder / "best");
  if (!step || !fs::is_directory(m_folder / folderName(*step))) return std::nullopt;
  return step;
}

}  // namespace strata::engine
