#pragma once
// The checkpoints/ folder of a run. A checkpoint is a folder step-<n>/ of files plus
// manifest.json (size and SHA-256 of each); it is written under a temporary name, fsync'ed,
// renamed into place and the parent fsync'ed, so after a crash a step-<n>/ either verifies or
// was never there. `latest` and `best` name the newest and the best-by-validation checkpoint;
// only the last keep_last and the best are kept. Loading verifies, newest first, and falls
// back to the previous good one. No torch here: the training loop writes the files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace strata::engine {

class CheckpointStore {
 public:
  explicit CheckpointStore(std::filesystem::path folder);
  const std::filesystem::path& folder() const { return m_folder; }

  /** Removes temporary folders and pointer files a crash left behind (call before writing). */
  void removeStale() const;
  /** An empty temporary folder to write step `step`'s files into. */
  std::filesystem::path begin(int64_t step) const;
  /**
   * Seals `temp`: writes the manifest of `files` (names inside temp), fsyncs, renames it to
   * step-<n>, updates `latest` (and `best` when `isBest`), then deletes all but the newest
   * `keepLast` and the best. Throws IoError (temp is then removed).
   */
  void commit(const std::filesystem::path& temp, int64_t step,
              const std::vector<std::string>& files, bool isBest, int64_t keepLast) const;

  /** step-<n> folders on disk, newest first, unverified. */
  std::vector<std::pair<int64_t, std::filesystem::path>> checkpoints() const;
  /** True when `folder`/manifest.json lists files that all have their size and hash. */
  static bool verify(const std::filesystem::path& folder);
  /** The checkpoint to load a trained model from: the best if it verifies, else the newest
   *  that does; nullopt when none does. */
  std::optional<std::pair<int64_t, std::filesystem::path>> bestOrNewestValid() const;
  /** Checkpoint step-<step> when a step is given (IoError when it is missing or does not
   *  verify), else bestOrNewestValid() (FormatError naming the folder when none verifies). */
  std::pair<int64_t, std::filesystem::path> chosen(std::optional<int64_t> step) const;
  /** The step `best` names, when it names one that still exists. */
  std::optional<int64_t> bestStep() const;

 private:
  std::filesystem::path m_folder;
};

}  // namespace strata::engine
