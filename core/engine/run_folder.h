#pragma once
// A run folder as every recipe writes it (DESIGN.md "Files"):
//   run.json          recipe, full resolved config, code version, seed, machine, command
//   status.json       state, step, total steps, pid, host, last update, error (atomic rewrites)
//   run.lock          held by the process training in this folder (released when it dies)
//   metrics.jsonl     one JSON object per logged step (engine/metrics_log.h)
//   events.out.tfevents.*   the same scalars for TensorBoard
//   checkpoints/step-<n>/   (engine/checkpoint_store.h), checkpoints/latest, checkpoints/best
// RunFolder below is the one place these names are spelled: everything that reads or writes a
// run's files (the training loop, the comparisons, the studies, the views, the CLI) asks it for
// them; status and listing are the free functions here. No torch here: the GUI and
// `strata-cli runs` use this header.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/checkpoint_store.h"
#include "engine/run_metrics.h"

namespace strata::engine {

enum class RunState {
  Running,      ///< a live process holds run.lock
  Paused,       ///< running, paused by the user
  Stopped,      ///< stopped cleanly after a checkpoint; `resume` continues it
  Interrupted,  ///< status says running but nobody holds the lock: killed; resumable
  Finished,
  Failed,
  Unknown  ///< no readable status.json (not a run, or created a moment ago)
};
const char* runStateName(RunState state);

struct RunStatus {
  RunState state = RunState::Unknown;
  int64_t step = 0;  ///< last finished optimizer step
  int64_t totalSteps = 0;
  std::string error;   ///< for Failed
  double updated = 0;  ///< unix seconds of the last write
};

struct RunInfo {
  std::filesystem::path folder;
  std::string recipe;   ///< from run.json
  std::string created;  ///< ISO-8601 UTC from run.json
  RunStatus status;
  int64_t lastCheckpoint = -1;  ///< newest checkpoint step on disk, -1 when none
};

/** Writes status.json atomically (the state as recorded; Interrupted is never written). */
void writeRunStatus(const std::filesystem::path& runFolder, const RunStatus& status);
/** Reads status.json and checks run.lock: a Running/Paused status whose lock is free becomes
 *  Interrupted. Unknown when there is no readable status. */
RunStatus readRunStatus(const std::filesystem::path& runFolder);
/** True when the folder holds a run.json. */
bool isRunFolder(const std::filesystem::path& folder);
/** Creates `folder` and its parents; IoError naming it and the system's reason otherwise. */
void createRunFolder(const std::filesystem::path& folder);
/** Reads what the runs list shows. Throws FormatError for an unreadable run.json. */
RunInfo readRunInfo(const std::filesystem::path& runFolder);
/** Every run folder directly inside `root` (and `root` itself if it is one), newest first.
 *  Unreadable ones are skipped. A missing root gives an empty list. */
std::vector<RunInfo> listRuns(const std::filesystem::path& root);

/** One run's folder: the names of its files, its checkpoints and its metrics. Cheap to make
 *  (reads nothing until asked). */
class RunFolder {
 public:
  explicit RunFolder(std::filesystem::path folder) : m_folder(std::move(folder)) {}
  const std::filesystem::path& path() const { return m_folder; }

  std::filesystem::path manifestFile() const { return m_folder / "run.json"; }
  std::filesystem::path statusFile() const { return m_folder / "status.json"; }
  std::filesystem::path lockFile() const { return m_folder / "run.lock"; }
  std::filesystem::path metricsFile() const { return m_folder / "metrics.jsonl"; }
  std::filesystem::path checkpointsFolder() const { return m_folder / "checkpoints"; }

  /** metrics.jsonl, read now (a missing file reads as no records). */
  RunMetrics metrics() const;
  CheckpointStore checkpoints() const { return CheckpointStore(checkpointsFolder()); }

 private:
  std::filesystem::path m_folder;
};

/** Where runs go when no folder is given: $STRATA_RUNS_DIR, else ./runs. */
std::filesystem::path defaultRunsRoot();

}  // namespace strata::engine
