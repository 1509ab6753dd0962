#pragma once
// Writing a whole folder atomically (a model imported from llama.cpp or llama2.c files):
// everything goes into a temporary sibling folder, which is fsync'ed and renamed into place, so
// a reader sees the old folder or the complete new one, never a half-written one.

#include <filesystem>
#include <string>

namespace strata::io {

/** "OUT/" and "a/../OUT" name the folder OUT: absolute, normal, without a trailing slash. */
std::filesystem::path installTargetPath(const std::filesystem::path& out);

/**
 * Whether `target` may be written: absent, an empty folder, or (with `force`) any folder.
 * Throws IoError when it is a file, strata::Error (mentioning --force) when it is a non-empty
 * folder and `force` is off. Call it before slow work, so a refusal comes at once.
 */
void checkInstallTarget(const std::filesystem::path& target, bool force);

/** A fresh sibling folder `.<name>.tmp-<pid>-<n>`, removed with its contents unless installed. */
class StagingFolder {
 public:
  /** Creates the folder (and `target`'s parent when missing). Throws IoError. */
  explicit StagingFolder(const std::filesystem::path& target);
  ~StagingFolder();
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;

  const std::filesystem::path& path() const { return m_path; }

  /**
   * fsyncs the staged folder and moves it to `target`: rename(2) onto a missing or empty
   * folder; with `force` a non-empty one is swapped out with renameat2(RENAME_EXCHANGE) (or
   * moved aside first where the file system lacks it) and its old contents removed. The
   * parent is fsync'ed after the rename. Throws IoError; `target` is then as it was.
   */
  void install(const std::filesystem::path& target, bool force);

 private:
  std::filesystem::path m_path;
  bool m_installed = false;
};

/** Writes `text` to `file` atomically (writeFileAtomically). */
void writeTextFile(const std::filesystem::path& file, const std::string& text);

}  // namespace strata::io
