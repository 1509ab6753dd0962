// Plugin recipes as training runs (see plugin_training.h): the host a recipe's run() talks to,
// and the run folder around the call.

#include "engine/plugin_training.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <mutex>
#include <optional>
#include <thread>

#include "common/build_info.h"
#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "common/memory_budget.h"
#include "common/provenance.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/run_folder.h"
#include "engine/run_lifecycle.h"
#include "engine/run_manifest.h"
#include "engine/training_memory.h"
#include "plugin/plugin_loader.h"

namespace strata::engine {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

/** "plugin recipe tuned_lens (plugin tuned_lens 1.0, /usr/lib/strata/plugins/x.so)". */
std::string describe(const plugin::RecipeEntry& recipe) {
  return "plugin recipe " + recipe.name + " (plugin " + recipe.pluginName +
         (recipe.pluginVersion.empty() ? "" : " " + recipe.pluginVersion) + ", " +
         recipe.file.string() + ")";
}

bool plainName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* c = name; *c; ++c)
    if (!(std::isalnum(static_cast<unsigned char>(*c)) || *c == '_' || *c == '-' || *c == '.'))
      return false;
  return true;
}

/** A declared integer setting "steps", when the recipe has one: the run's total in status.json. */
int64_t declaredSteps(const ResolvedConfig& config) {
  if (!config.has("steps")) return 0;
  try {
    size_t used = 0;
    const std::string& text = config.text("steps");
    const long long steps = std::stoll(text, &used);
    return used == text.size() && steps > 0 ? steps : 0;
  } catch (const std::exception&) {
    return 0;
  }
}

/**
 * One call of run() with its host. The callbacks arrive on the job's thread (or on threads the
 * recipe joins before it returns): a mutex serialises them anyway. They never throw into the
 * plugin: a failure to record is kept in m_hostError, cancelled() then answers 1, and run()'s
 * caller reports it once the recipe has returned.
 */
class PluginRun {
 public:
  PluginRun(const plugin::RecipeEntry& recipe, fs::path folder, bool resume, int64_t totalSteps,
            JobContext& job, TrainingControl control, bool planOnly = false)
      : m_recipe(recipe),
        m_folder(std::move(folder)),
        m_resume(resume),
        m_job(job),
        m_control(std::move(control)),
        m_run(m_folder, totalSteps) {
    m_summary.totalSteps = totalSteps;
    m_planOnly = planOnly;
  }

  /** `manifest`: written once the lock is held (a new run); null on resume. */
  TrainingSummary run(const std::string& settings, const RunManifest* manifest) {
    if (m_resume) {
      m_run.removeStaleTemporaries();
      m_summary.startStep = m_summary.lastStep = readRunStatus(m_folder).step;
    } else {
      writeRunManifest(m_folder, *manifest);
      m_run.openLogs(0, StepLogs::MetricsOnly);  // a stale log in a folder that held no run
    }
    writeStatus(RunState::Running);
    m_job.info((m_resume ? "resuming " : "running ") + describe(m_recipe));
    if (!m_recipe.plansMemory && m_planOnly)
      throw Error(describe(m_recipe) + " was built for plugin ABI 1 and cannot plan its memory");
    if (!m_recipe.plansMemory)
      m_job.warning("plugin " + m_recipe.pluginName +
                    " was built for plugin ABI 1, which cannot plan a run's memory: a run that "
                    "does not fit is not refused beforehand (rebuild it against this Strata's "
                    "strata_plugin.h and call plan_memory)");
    m_job.progress(0.0, m_recipe.name);

    const StrataRecipeHost host{this, &PluginRun::onProgress, &PluginRun::onMetric,
                                &PluginRun::onCancelled, &PluginRun::onPlanMemory};
    char error[4096] = {};
    int code = 0;
    std::string thrown;
    const auto start = Clock::now();
    try {
      code = m_recipe.run(settings.c_str(), m_folder.c_str(), &host, error, sizeof error);
    } catch (const std::exception& e) {
      thrown = e.what();
    } catch (...) {
      thrown = "an exception that is not a std::exception";
    }
    error[sizeof error - 1] = '\0';
    m_summary.seconds = std::chrono::duration<double>(Clock::now() - start).count();

    std::unique_lock guard(m_mutex);
    record([&] { flush(); });
    if (m_planOnly) {  // stopped at its plan, or before it (cancelled() said stop)
      if (m_preview) throw PlanReached(*m_preview);
      throw Error(describe(m_recipe) + " did not plan its memory before its first step" +
                  (!thrown.empty()         ? ": " + thrown
                   : code != 0 && error[0] ? std::string(": ") + error
                                           : ""));
    }
    std::string failure;
    // Stopped by its plan's refusal: Strata's refusal for memory, not the recipe's failure.
    if (!m_memoryRefusal.empty() && (code != 0 || !thrown.empty())) {
      writeStatus(RunState::Failed, m_memoryRefusal);
      throw MemoryError(m_memoryRefusal);
    }
    if (!thrown.empty())
      failure = describe(m_recipe) + " threw (the plugin ABI forbids exceptions): " + thrown;
    else if (code != 0)
      failure = describe(m_recipe) + " failed (code " + std::to_string(code) +
                "): " + (error[0] ? error : "it gave no message");
    else if (!m_hostError.empty())
      failure = "Strata could not record the run of " + describe(m_recipe) + ": " + m_hostError;
    if (!failure.empty()) {
      if (!m_hostError.empty() && code != 0) failure += " (after: " + m_hostError + ")";
      writeStatus(RunState::Failed, failure);
      throw Error(failure);
    }
    if (m_cancelSeen) {
      writeStatus(RunState::Stopped);
      throw CancelledError();
    }
    m_summary.finished = true;
    writeStatus(RunState::Finished);
    return m_summary;
  }

 private:
  static void onProgress(void* context, double fraction, const char* stage) {
    auto& self = *static_cast<PluginRun*>(context);
    std::lock_guard guard(self.m_mutex);
    self.record([&] {
      self.flush();
      const double shown =
          std::isfinite(fraction) && fraction >= 0 ? std::min(fraction, 1.0) : -1.0;
      self.m_job.progress(shown, stage ? stage : self.m_recipe.name);
    });
  }

  static void onMetric(void* context, int64_t step, const char* name, double value) {
    auto& self = *static_cast<PluginRun*>(context);
    std::lock_guard guard(self.m_mutex);
    self.record([&] {
      const std::string key = name ? name : "";
      if (!plainName(name) || key == "step" || key == "wall_time")
        throw Error("it reported a metric named \"" + key +
                    "\" (names are [A-Za-z0-9_.-], and \"step\" and \"wall_time\" are reserved)");
      if (self.m_pending && self.m_pending->step != step) self.flush();
      if (!self.m_pending) self.m_pending = MetricsRecord{step, unixNow(), {}};
      auto& values = self.m_pending->values;
      const auto same = std::find_if(values.begin(), values.end(),
                                     [&](const auto& entry) { return entry.first == key; });
      if (same != values.end())
        same->second = value;
      else
        values.emplace_back(key, value);
    });
  }

  static int onCancelled(void* context) {
    auto& self = *static_cast<PluginRun*>(context);
    std::unique_lock guard(self.m_mutex);
    self.record([&] { self.flush(); });
    // The recipe is blocked in this call while paused: nothing else of it calls in meanwhile.
    self.record([&] {
      self.m_run.setStep(self.m_summary.lastStep);
      self.m_run.waitWhilePaused(self.m_control, self.m_job, &guard);
    });
    if (self.m_job.cancelled()) self.m_cancelSeen = true;
    // Planning only: a recipe asking before it planned is told to stop.
    return self.m_job.cancelled() || !self.m_hostError.empty() || self.m_planOnly ? 1 : 0;
  }

  static int onPlanMemory(void* context, int64_t bytes, const char* parts, const char* advice,
                          char* error, size_t errorSize) {
    auto& self = *static_cast<PluginRun*>(context);
    std::lock_guard guard(self.m_mutex);
    std::string refusal;
    self.record([&] {
      self.flush();
      const TrainingPlanPreview preview = planPluginRecipeMemory(
          self.m_recipe.name, bytes, parts ? parts : "", advice ? advice : "", &self.m_job);
      refusal = preview.refusal;
      if (self.m_planOnly) {  // planTraining: the plan is all it wanted; stop the recipe
        self.m_preview = preview;
        refusal = "the run's memory was planned; nothing more to do";
      }
    });
    if (!self.m_hostError.empty())
      refusal = self.m_hostError;  // e.g. a bad override
    else if (!refusal.empty() && !self.m_planOnly)
      self.m_memoryRefusal = refusal;
    if (refusal.empty()) return 0;
    if (error != nullptr && errorSize > 0) {
      const size_t n = std::min(refusal.size(), errorSize - 1);
      refusal.copy(error, n);
      error[n] = '\0';
    }
    return 1;
  }

  /** Runs `work`, keeping the first exception as the host's error (never thrown into C).
   *  After an error nothing more is recorded: the run will be marked failed. */
  template <typename Work>
  void record(Work&& work) noexcept {
    if (!m_hostError.empty()) return;
    try {
      work();
    } catch (const std::exception& e) {
      if (m_hostError.empty()) m_hostError = e.what();
    } catch (...) {
      if (m_hostError.empty()) m_hostError = "unknown error";
    }
  }

  /** Writes the pending line. The first line of a resumed run first drops what the log holds
   *  from that step on: the recipe is repeating those steps from its checkpoint. */
  void flush() {
    if (!m_pending) return;
    const MetricsRecord line = std::move(*m_pending);
    m_pending.reset();
    if (!m_run.logsOpen()) {  // resumed: the logs are cut where the recipe continues
      m_run.openLogs(line.step - 1, StepLogs::MetricsOnly);
      m_summary.startStep = m_summary.lastStep = std::min(m_summary.lastStep, line.step - 1);
    }
    m_run.record(line);
    for (const auto& [name, value] : line.values) m_summary.lastMetrics[name] = value;
    m_summary.lastStep = std::max(m_summary.lastStep, line.step);

    const auto now = Clock::now();
    if (now - m_lastInfo >= std::chrono::seconds(1)) {  // a readable log, not one line a step
      m_lastInfo = now;
      std::string text = "step " + std::to_string(line.step);
      for (size_t i = 0; i < line.values.size() && i < 6; ++i)
        text += " " + line.values[i].first + " " + formatFixed(line.values[i].second, 4);
      m_job.info(text);
    }
    if (now - m_lastStatus >= std::chrono::seconds(2)) writeStatus(RunState::Running);
  }

  void writeStatus(RunState state, const std::string& error = {}) {
    m_lastStatus = Clock::now();
    m_run.setStep(m_summary.lastStep);
    m_run.writeStatus(state, error);
  }

  const plugin::RecipeEntry& m_recipe;
  fs::path m_folder;
  bool m_resume;
  JobContext& m_job;
  TrainingControl m_control;
  std::mutex m_mutex;
  RunLifecycle m_run;  ///< the lock (held from construction), status, logs and pause
  std::optional<MetricsRecord> m_pending;
  std::string m_hostError;
  std::string m_memoryRefusal;  ///< plan_memory's refusal: the run stops as refused for memory
  bool m_planOnly = false;      ///< planTraining: stop at plan_memory and report its preview
  std::optional<TrainingPlanPreview> m_preview;
  bool m_cancelSeen = false;
  TrainingSummary m_summary;
  Clock::time_point m_lastInfo{}, m_lastStatus{};
};

void requireOneProcess(const DistributedSetup& distributed, const std::string& recipe) {
  if (distributed.active())
    throw ConfigError("--nproc / --world-size", "recipe",
                      "plugin recipe " + recipe + " runs in one process; leave out --nproc");
}

}  // namespace

ConfigSchema pluginRecipeSchema(const plugin::RecipeEntry& recipe) {
  ConfigSchema schema{recipe.name,
                      recipe.description + " (plugin " + recipe.pluginName + " " +
                          recipe.pluginVersion + ", " + recipe.file.filename().string() + ")",
                      {}};
  for (const auto& s : recipe.settings)
    schema.settings.push_back(
        makeSetting(s.name, SettingType::Text, s.defaultValue, s.description, "plugin"));
  return schema;
}

std::string pluginSettingsText(const plugin::RecipeEntry& recipe, const ResolvedConfig& config) {
  std::string text;
  for (const auto& s : recipe.settings) {
    const std::string& value = config.text(s.name);
    if (value.find_first_of("\r\n") != std::string::npos)
      throw ConfigError("the " + recipe.name + " run configuration", s.name,
                        "must not contain a line break");
    text.append(s.name).append("=").append(value).append("\n");
  }
  return text;
}

TrainingSummary startPluginTraining(const plugin::RecipeEntry& recipe,
                                    const TrainingRequest& request, JobContext& job) {
  const ConfigSchema schema = pluginRecipeSchema(recipe);
  validateConfig(schema, request.config, "the " + recipe.name + " run configuration");
  requireOneProcess(request.distributed, recipe.name);
  const std::string settings = pluginSettingsText(recipe, request.config);
  if (isRunFolder(request.runFolder))
    throw IoError(request.runFolder, "already holds a run (resume it with `strata-cli resume " +
                                         request.runFolder.string() + "`, or choose a new folder)");
  createRunFolder(request.runFolder);
  RunManifest run;
  run.recipe = recipe.name;
  run.created = utcNow();
  run.command = request.command;
  run.codeVersion = build::kVersion;
  run.plugin = RunPluginOrigin{recipe.pluginName, recipe.pluginVersion, recipe.file.string()};
  run.machine.host = hostName();
  run.machine.cpus = std::thread::hardware_concurrency();
  run.configJson = configToJson(schema, request.config);
  return PluginRun(recipe, request.runFolder, false, declaredSteps(request.config), job,
                   request.control, request.planOnly)
      .run(settings, &run);
}

namespace {

/** resumePluginTraining with run.json already read (the catalog's resume has read it). */
TrainingSummary resumeRun(const plugin::RecipeEntry& recipe, const RunManifest& run,
                          const ResumeRequest& request, JobContext& job) {
  const fs::path& runFolder = request.runFolder;
  const std::vector<std::string>& overrides = request.overrides;
  const fs::path& runJson = run.file;
  const RunPluginOrigin origin = run.plugin.value_or(RunPluginOrigin{"?", "", "?"});
  if (!overrides.empty())
    throw ConfigError("--set " + overrides.front(), "set",
                      "a plugin recipe resumes with the settings it started with");
  requireOneProcess(request.distributed, recipe.name);
  if (origin.version != recipe.pluginVersion)
    job.warning("the run was started with plugin " + recipe.pluginName + " " + origin.version +
                "; resuming it with version " + recipe.pluginVersion);

  const ConfigSchema schema = pluginRecipeSchema(recipe);
  ResolvedConfig config(schema);
  applyConfigJson(schema, run.config(), runJson, config);
  const std::string settings = pluginSettingsText(recipe, config);

  const RunStatus status = readRunStatus(runFolder);
  if (status.state == RunState::Finished) {
    job.info("the run already finished (step " + std::to_string(status.step) + ")");
    TrainingSummary summary;
    summary.startStep = summary.lastStep = status.step;
    summary.totalSteps = status.totalSteps;
    summary.finished = true;
    return summary;
  }
  return PluginRun(recipe, runFolder, true, declaredSteps(config), job, request.control)
      .run(settings, nullptr);
}

/** A plugin's recipe in the catalog: startPluginTraining and resumeRun. The entry belongs to
 *  installedPlugins(), which lives as long as the process. */
class PluginRunner final : public RecipeRunner {
 public:
  explicit PluginRunner(const plugin::RecipeEntry& recipe) : m_recipe(recipe) {}
  ConfigSchema schema() const override { return pluginRecipeSchema(m_recipe); }
  TrainingSummary start(const TrainingRequest& request, JobContext& job) const override {
    return startPluginTraining(m_recipe, request, job);
  }
  TrainingSummary resume(const RunManifest& run, const ResumeRequest& request,
                         JobContext& job) const override {
    return resumeRun(m_recipe, run, request, job);
  }
  RecipeFactory trainingLoopFactory() const override {
    throw ConfigError("recipe", m_recipe.name,
                      "runs its own loop (a plugin's recipe), not in the training loop");
  }

 private:
  const plugin::RecipeEntry& m_recipe;
};

}  // namespace

TrainingSummary resumePluginTraining(const plugin::RecipeEntry& recipe, const fs::path& runFolder,
                                     JobContext& job, const DistributedSetup& distributed,
                                     const TrainingControl& control,
                                     const std::vector<std::string>& overrides) {
  return resumeRun(recipe, readRunManifest(runFolder), {runFolder, distributed, control, overrides},
                   job);
}

CatalogRecipe pluginCatalogRecipe(const plugin::RecipeEntry& recipe) {
  return {recipe.name, pluginRecipeSchema(recipe).description,
          std::make_shared<PluginRunner>(recipe)};
}

}  // namespace strata::engine
