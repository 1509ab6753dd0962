#pragma once
// Crash-safe file replacement: readers see either the old file or the complete new one, never
// a half-written one. Used for safetensors, index.json, run.json and checkpoint manifests.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>

namespace strata::io {

/**
 * Writes `target` atomically. `writeContents` receives a descriptor open for writing on a
 * fresh temporary file `.<name>.tmp-<pid>-<n>` in the target's folder (same file system, so
 * the rename is atomic); the temporary is then fsync'ed, renamed over `target`, and the folder
 * fsync'ed so the rename itself survives a power cut.
 *
 * On any failure — an exception from `writeContents` included, which is rethrown unchanged —
 * the temporary is removed and `target` is left untouched. The folder must exist. The new file
 * gets mode 0666 minus the umask (an existing target's mode is not carried over).
 * Throws IoError naming `target` when the system refuses an operation.
 */
void writeFileAtomically(const std::filesystem::path& target,
                         const std::function<void(int fd)>& writeContents);

/** writeFileAtomically with `text` as the contents. */
void writeTextAtomically(const std::filesystem::path& target, const std::string& text);

/** fsyncs a regular file already written by someone else (torch::save). IoError on failure. */
void fsyncFile(const std::filesystem::path& path);

/**
 * Removes the temporaries (`.<name>.tmp-<pid>-<n>`) that writers killed mid-write left in
 * `folder`. Only for a folder this process alone writes (a run folder whose lock it holds):
 * a live writer's temporary would go too.
 */
void removeStaleTemporaries(const std::filesystem::path& folder);

/**
 * Writes all `size` bytes to `fd`, retrying partial writes and EINTR. A full disk (ENOSPC,
 * EDQUOT) and every other failure throw IoError naming `forErrors`.
 */
void writeAll(int fd, const void* data, std::size_t size, const std::filesystem::path& forErrors);

/** fsyncs a folder so that entries just created or renamed in it are durable. IoError on failure.
 */
void fsyncDirectory(const std::filesystem::path& folder);

}  // namespace strata::io
