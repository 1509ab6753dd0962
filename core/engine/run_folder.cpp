// Run folders: status, listing (see run_folder.h).

#include "engine/run_folder.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "engine/run_manifest.h"
#include "io/atomic_file.h"
#include "io/writer_lock.h"

namespace strata::engine {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

constexpr std::pair<RunState, const char*> kStateNames[] = {
    {RunState::Running, "running"},   {RunState::Paused, "paused"},
    {RunState::Stopped, "stopped"},   {RunState::Interrupted, "interrupted"},
    {RunState::Finished, "finished"}, {RunState::Failed, "failed"},
    {RunState::Unknown, "unknown"}};

RunState stateNamed(const std::string& name) {
  for (const auto& [state, text] : kStateNames)
    if (name == text) return state;
  return RunState::Unknown;
}

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/** The newest step-<n> folder's n, -1 when none (validity is the checkpoint store's business). */
int64_t newestCheckpointStep(const fs::path& runFolder) {
  int64_t newest = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(RunFolder(runFolder).checkpointsFolder(), ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("step-")) continue;
    try {
      newest = std::max<int64_t>(newest, std::stoll(name.substr(5)));
    } catch (const std::exception&) {
    }
  }
  return newest;
}

}  // namespace

const char* runStateName(RunState state) {
  for (const auto& [s, text] : kStateNames)
    if (s == state) return text;
  return "unknown";
}

void writeRunStatus(const fs::path& runFolder, const RunStatus& status) {
  Json json = {{"state", runStateName(status.state)},
               {"step", status.step},
               {"total_steps", status.totalSteps},
               {"updated", unixNow()}};
  if (!status.error.empty()) json["error"] = status.error;
  const std::string text = json.dump(2) + "\n";
  const fs::path file = RunFolder(runFolder).statusFile();
  io::writeFileAtomically(file, [&](int fd) { io::writeAll(fd, text.data(), text.size(), file); });
}

RunStatus readRunStatus(const fs::path& runFolder) {
  RunStatus status;
  try {
    const Json json = Json::parse(readWholeFile(RunFolder(runFolder).statusFile()));
    status.state = stateNamed(json.value("state", std::string()));
    status.step = json.value("step", int64_t{0});
    status.totalSteps = json.value("total_steps", int64_t{0});
    status.error = json.value("error", std::string());
    status.updated = json.value("updated", 0.0);
  } catch (const std::exception&) {
    return RunStatus{};
  }
  const bool live = status.state == RunState::Running || status.state == RunState::Paused;
  if (live && !io::heldByAnotherWriter(RunFolder(runFolder).lockFile()))
    status.state = RunState::Interrupted;
  return status;
}

bool isRunFolder(const fs::path& folder) { return fs::is_regular_file(runManifestFile(folder)); }

RunInfo readRunInfo(const fs::path& runFolder) {
  RunInfo info;
  info.folder = runFolder;
  const RunManifest run = readRunManifest(runFolder);
  info.recipe = run.recipe;
  info.created = run.created;
  info.status = readRunStatus(runFolder);
  info.lastCheckpoint = newestCheckpointStep(runFolder);
  return info;
}

std::vector<RunInfo> listRuns(const fs::path& root) {
  std::vector<RunInfo> runs;
  const auto add = [&](const fs::path& folder) {
    if (!isRunFolder(folder)) return;
    try {
      runs.push_back(readRunInfo(folder));
    } catch (const Error&) {
    }
  };
  add(root);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory()) add(entry.path());
  std::sort(runs.begin(), runs.end(), [](const RunInfo& a, const RunInfo& b) {
    return a.created != b.created ? a.created > b.created : a.folder < b.folder;
  });
  return runs;
}

RunMetrics RunFolder::metrics() const {
  return RunMetrics(metricsFile(), readMetricsLog(metricsFile()));
}

fs::path defaultRunsRoot() {
  if (const char* env = std::getenv("STRATA_RUNS_DIR"); env && *env) return env;
  return "runs";
}

void createRunFolder(const std::filesystem::path& folder) {
  std::error_code error;
  std::filesystem::create_directories(folder, error);
  if (error) throw IoError(folder, "cannot create the run folder (" + error.message() + ")");
}

}  // namespace strata::engine
