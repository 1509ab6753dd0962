// The training loop every recipe runs on (see training_run.h and recipe.h): seeded, device-aware,
// gradient accumulation and clipping, AdamW on a warm-up + cosine schedule, bf16 autocast,
// evaluation, atomic checkpoints, exact resume, data parallelism.

#include "engine/training_loop.h"

#include <ATen/autocast_mode.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <sstream>
#include <thread>

#include "common/build_info.h"
#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "common/memory_release.h"
#include "common/provenance.h"
#include "engine/checkpoint_store.h"
#include "engine/distributed.h"
#include "engine/gradient_clipping.h"
#include "engine/metrics_log.h"
#include "engine/pending_step_values.h"
#include "engine/run_folder.h"
#include "engine/run_lifecycle.h"
#include "engine/run_manifest.h"
#include "engine/training_checkpoint.h"
#include "engine/training_device.h"
#include "engine/training_schedule.h"
#include "engine/versions.h"

namespace strata::engine {

namespace {

double unixNow() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

class TrainingLoop {
 public:
  TrainingLoop(const TrainingLoopInputs& in, JobContext& job)
      : m_in(in),
        m_config(in.config),
        m_job(job),
        m_store(RunFolder(in.folder).checkpointsFolder()),
        m_leader(in.distributed.rank == 0) {}

  TrainingSummary run() {
    m_summary.totalSteps = m_config.integer("steps");
    if (m_leader) m_run = std::make_unique<RunLifecycle>(m_in.folder, m_summary.totalSteps);
    try {
      prepare();
      loop();
    } catch (const CancelledError&) {
      if (m_leader) writeStatus(RunState::Stopped);
      throw;
    } catch (const std::exception& e) {
      if (m_leader) writeStatus(RunState::Failed, e.what());
      throw;
    }
    return m_summary;
  }

 private:
  void prepare() {
    // A resume that fails before its checkpoint is loaded (a refused memory plan, a missing
    // corpus) leaves the step the folder records, not 0.
    if (m_in.resume) m_recordedStep = readRunStatus(m_in.folder).step;
    if (m_config.integer("threads") > 0)
      torch::set_num_threads(static_cast<int>(m_config.integer("threads")));
    m_device = trainingDevice(m_config.text("device"));
    m_bf16 = useBf16(m_config.text("precision"), m_device);
    const DistributedSetup& dist = m_in.distributed;
    if (m_config.integer("batch") % dist.worldSize != 0)
      throw ConfigError(
          "run configuration", "batch",
          "must be a multiple of the number of processes (" + std::to_string(dist.worldSize) + ")");
    if (dist.active()) {
      // One GPU per rank (ranks of one machine numbered from 0): NCCL reduces on each rank's own.
      if (m_device.is_cuda()) {
        m_device = torch::Device(
            torch::kCUDA, static_cast<c10::DeviceIndex>(dist.rank % torch::cuda::device_count()));
        // Kernels and allocations that name no index go to this rank's GPU too.
        c10::impl::getDeviceGuardImpl(m_device.type())->setDevice(m_device);
      }
      // A plan (planTraining) stops before the first collective: it joins no group.
      if (!m_in.planOnly) m_group = std::make_unique<DataParallelGroup>(dist, 300, m_device);
    }

    if (m_leader && !m_in.resume) writeRunJson(m_in, {}, m_device.str());
    torch::manual_seed(static_cast<uint64_t>(m_config.integer("seed")));
    m_recipe = m_in.make();
    // On the CPU, the processes of a run on one machine (rank 0 on this host) share its memory;
    // on GPUs each rank has its own device.
    const int processesHere =
        dist.active() && isLoopbackAddress(dist.masterAddress) && !m_device.is_cuda()
            ? dist.worldSize
            : 1;
    m_recipe->build(RecipeSetup{m_config, m_in.folder, m_device, dist.rank, dist.worldSize, m_bf16,
                                processesHere, m_in.planOnly},
                    m_job);
    if (m_in.planOnly)  // the plan throws PlanReached: a recipe that returns never planned
      throw Error("recipe " + m_in.recipe + " built its model without planning its memory");
    for (const auto& group : m_recipe->parameterGroups())
      m_parameters.insert(m_parameters.end(), group.parameters.begin(), group.parameters.end());
    if (m_group) m_group->broadcastParameters(m_parameters);
    buildOptimizer();
    if (m_leader && !m_in.resume) writeRunJson(m_in, m_recipe->description(), m_device.str());

    if (m_in.resume) {
      m_store.removeStale();
      if (m_leader) m_run->removeStaleTemporaries();  // status.json, metrics exports
      if (auto counters =
              loadNewestTrainingCheckpoint(m_store, *m_recipe, *m_optimizer, m_device, m_job)) {
        m_counters = *counters;
        m_job.info("resumed from step " + std::to_string(m_counters.step));
      } else {
        m_job.info("no valid checkpoint in " + m_store.folder().string() + ": starting at step 0");
      }
      m_recordedStep = 0;  // from here on the counters say where the run is
    }
    m_summary.startStep = m_counters.step;
    m_alreadyFinished = m_in.resume && readRunStatus(m_in.folder).state == RunState::Finished &&
                        m_counters.step >= m_config.integer("steps");
    if (m_alreadyFinished) return;
    if (m_leader) {
      // metrics.jsonl and any per-step log a recipe keeps (samples.jsonl) forget the steps the
      // checkpoint does not cover: they will be logged again, identically.
      m_run->openLogs(m_counters.step, StepLogs::EveryJsonl);
      writeStatus(RunState::Running);
    }
  }

  void buildOptimizer() {
    const double decay = m_config.real("weight_decay");
    std::vector<torch::optim::OptimizerParamGroup> groups;
    for (const auto& group : m_recipe->parameterGroups()) {
      auto options = std::make_unique<torch::optim::AdamWOptions>(
          torch::optim::AdamWOptions(m_config.real("lr"))
              .betas({m_config.real("beta1"), m_config.real("beta2")})
              .eps(1e-8)
              .weight_decay(decay * group.weightDecay));
      groups.emplace_back(group.parameters, std::move(options));
    }
    m_optimizer = std::make_unique<torch::optim::AdamW>(
        groups, torch::optim::AdamWOptions(m_config.real("lr")));
  }

  void loop() {
    const int64_t steps = m_config.integer("steps");
    if (m_alreadyFinished) {  // nothing to add: leave its files exactly as they are
      m_job.info("the run already finished its " + std::to_string(steps) + " steps");
      m_summary.lastStep = m_counters.step;
      m_summary.finished = true;
      return;
    }
    const int64_t stopAfter = m_config.integer("stop_after");
    const WarmupCosineSchedule schedule{m_config.real("lr"), m_config.integer("warmup"), steps,
                                        m_config.real("min_lr_ratio")};
    m_recipe->model().train();
    m_activeSince = std::chrono::steady_clock::now();
    const auto runStart = m_activeSince;
    while (m_counters.step < steps) {
      waitWhilePaused();
      if (stopRequested()) {
        if (m_leader && m_counters.step > m_summary.startStep) checkpoint(false);
        throw CancelledError();
      }
      const int64_t s = m_counters.step + 1;
      trainStep(s, schedule.at(s));
      if (m_leader) afterStep(s, schedule.at(s), steps);
      m_job.progress(static_cast<double>(s) / static_cast<double>(steps),
                     "step " + std::to_string(s) + "/" + std::to_string(steps));
      if (s == stopAfter && s < steps) {
        if (m_leader) {
          if (!checkpointedAt(s)) checkpoint(false);
          writeStatus(RunState::Stopped);
        }
        m_summary.lastStep = s;
        return;
      }
    }
    m_summary.lastStep = m_counters.step;
    m_summary.finished = true;
    m_summary.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    if (m_leader) {
      if (m_evaluatedAt != m_counters.step) evaluate(m_counters.step);
      if (!checkpointedAt(m_counters.step)) checkpoint(m_bestAt == m_counters.step);
      m_recipe->finish(m_in.folder, m_job);
      writeStatus(RunState::Finished);
    }
  }

  void trainStep(int64_t s, double lr) {
    for (auto& group : m_optimizer->param_groups())
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
    m_optimizer->zero_grad();
    const int64_t accum = m_config.integer("grad_accum");
    const int64_t share = m_config.integer("batch") / m_in.distributed.worldSize;
    // The step's loss and metrics stay on the device (float64: the sums of values read one by
    // one); m_pending reads them at the next logging step or checkpoint.
    torch::Tensor loss;
    std::map<std::string, torch::Tensor> extras;
    const auto addMean = [accum](torch::Tensor& sum, const torch::Tensor& value) {
      const torch::Tensor part = value.detach().to(torch::kDouble) / static_cast<double>(accum);
      sum = sum.defined() ? sum + part : part;
    };
    for (int64_t micro = 0; micro < accum; ++micro) {
      const BatchSlice slice{s, micro, m_in.distributed.rank * share, share};
      MicroBatchResult result;
      {
        const AutocastScope autocast(m_bf16, m_device);
        result = m_recipe->microBatchLoss(slice);
      }
      (result.loss / static_cast<double>(accum)).backward();
      addMean(loss, result.loss);
      m_counters.intervalTokens += result.tokens * m_in.distributed.worldSize;
      for (const auto& [name, value] : result.metrics) addMean(extras[name], value);
    }
    if (m_group) {
      m_group->averageGradients(m_parameters);
      loss = torch::tensor(m_group->average(loss.item<double>()), torch::kDouble);
    }
    const double clip = m_config.real("grad_clip");
    if (clip > 0) {
      const torch::Tensor norm = clipGradientNorm(m_parameters, clip);
      extras["grad_norm"] = norm.defined() ? norm : torch::zeros({}, torch::kDouble);
    }
    m_optimizer->step();
    m_counters.step = s;
    m_pending.add(s, loss, std::move(extras));
    // Ranks check the loss together, every step: one leaving alone would hang the others.
    if (m_group) m_pending.flushInto(m_counters);
  }

  void afterStep(int64_t s, double lr, int64_t steps) {
    const int64_t logEvery = m_config.integer("log_every");
    if (s == 1 || s % logEvery == 0 || s == steps) logInterval(s, lr, steps);
    const int64_t checkpointEvery = m_config.integer("checkpoint_every");
    const int64_t evalEvery = m_config.integer("eval_every");
    const bool atCheckpoint = checkpointEvery > 0 && s % checkpointEvery == 0 && s < steps;
    bool best = false;
    if ((evalEvery > 0 && s % evalEvery == 0) || atCheckpoint) best = evaluate(s);
    if (atCheckpoint || best)
      checkpoint(best);
    else if (s % 10 == 0)
      writeStatus(RunState::Running);
  }

  void logInterval(int64_t s, double lr, int64_t steps) {
    m_pending.flushInto(m_counters);
    countTrainingTime();
    const double seconds = m_counters.intervalSeconds;
    const double n = static_cast<double>(std::max<int64_t>(1, m_counters.intervalSteps));
    MetricsRecord record{s, unixNow(), {}};
    const double loss = m_counters.intervalLoss / n;
    record.values.emplace_back("loss", loss);
    record.values.emplace_back("lr", lr);
    record.values.emplace_back(
        "tokens_per_s", static_cast<double>(m_counters.intervalTokens) / std::max(seconds, 1e-9));
    record.values.emplace_back(kTrainSecondsMetric, m_counters.trainSeconds);
    for (const auto& [name, sum] : m_counters.intervalMetrics)
      record.values.emplace_back(name, sum / n);
    write(record);
    m_job.info("step " + std::to_string(s) + "/" + std::to_string(steps) + " loss " +
               formatFixed(loss, 4) + " lr " + formatFixed(lr * 1e3, 4) + "e-3 " +
               std::to_string(std::llround(record.value("tokens_per_s"))) + " tok/s");
    m_counters.intervalLoss = 0;
    m_counters.intervalSteps = 0;
    m_counters.intervalTokens = 0;
    m_counters.intervalSeconds = 0;
    m_counters.intervalMetrics.clear();
  }

  /** Adds the time since training last went on to the interval's and the run's seconds: before
   *  they are logged or checkpointed, and when a pause begins (a pause is not training). */
  void countTrainingTime() {
    const auto now = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(now - m_activeSince).count();
    m_counters.intervalSeconds += seconds;
    m_counters.trainSeconds += seconds;
    m_activeSince = now;
  }

  /** Evaluates at step s; true when its val_loss is the best so far. */
  bool evaluate(int64_t s) {
    m_evaluatedAt = s;
    Metrics metrics;
    {
      torch::NoGradGuard noGrad;
      m_recipe->model().eval();
      metrics = m_recipe->evaluate(s);
      m_recipe->model().train();
    }
    MetricsRecord record{s, unixNow(), {}};
    std::string line =
        "step " + std::to_string(s) + "/" + std::to_string(m_config.integer("steps"));
    for (const auto& [name, value] : metrics) {
      const std::string key = name.starts_with("val_") ? name : "val_" + name;
      record.values.emplace_back(key, value);
      line += " " + key + " " + formatFixed(value, 4);
    }
    write(record);
    m_job.info(line);
    const auto val = metrics.find("val_loss");
    if (val == metrics.end() || !(val->second < m_counters.bestValLoss)) return false;
    m_counters.bestValLoss = val->second;
    m_counters.bestStep = s;
    m_bestAt = s;
    return true;
  }

  void checkpoint(bool best) {
    m_pending.flushInto(m_counters);  // the interval in progress is part of the checkpoint
    countTrainingTime();
    // A step's freed activations stay in malloc's heap; the checkpoint's serialised copies
    // (engine/training_checkpoint.h) would come on top of them: 1.2 GiB above the steps' own
    // peak on a 0.15 B pretrain (docs/training.md, "Memory").
    releaseFreedMemory();
    saveTrainingCheckpoint(m_store, m_counters, *m_recipe, *m_optimizer, m_device, best,
                           m_config.integer("keep_last"));
    m_lastCheckpoint = m_counters.step;
    writeStatus(RunState::Running);
  }
  bool checkpointedAt(int64_t s) const { return m_lastCheckpoint == s; }

  void write(const MetricsRecord& record) {
    m_run->record(record);
    for (const auto& [name, value] : record.values) m_summary.lastMetrics[name] = value;
  }

  void writeStatus(RunState state, const std::string& error = {}) {
    m_run->setStep(std::max(m_counters.step, m_recordedStep));
    m_run->writeStatus(state, error);
  }

  /** Every rank stops together (a lone rank leaving would hang the others' all-reduce). */
  bool stopRequested() {
    const bool local = m_job.cancelled();
    return m_group ? m_group->average(local ? 1.0 : 0.0) > 0 : local;
  }

  /** A pause is a single process's (ranks would have to pause together): only the leader. */
  void waitWhilePaused() {
    if (!m_in.control.paused() || m_group) return;
    countTrainingTime();
    m_run->setStep(m_counters.step);
    if (m_run->waitWhilePaused(m_in.control, m_job))
      m_activeSince = std::chrono::steady_clock::now();
  }

  const TrainingLoopInputs& m_in;
  const ResolvedConfig& m_config;
  JobContext& m_job;
  CheckpointStore m_store;
  bool m_leader;
  std::unique_ptr<RunLifecycle> m_run;  ///< the leader's: lock, status, logs, pause
  torch::Device m_device{torch::kCPU};
  bool m_bf16 = false;
  bool m_alreadyFinished = false;
  int64_t m_recordedStep = 0;  ///< the folder's step until a resumed run has loaded its own
  std::unique_ptr<DataParallelGroup> m_group;
  std::unique_ptr<Recipe> m_recipe;
  std::vector<torch::Tensor> m_parameters;
  std::unique_ptr<torch::optim::AdamW> m_optimizer;
  LoopCounters m_counters;
  PendingStepValues m_pending;
  TrainingSummary m_summary;
  int64_t m_evaluatedAt = -1, m_lastCheckpoint = -1, m_bestAt = -1;
  std::chrono::steady_clock::time_point m_activeSince;  ///< when training last went on
};

}  // namespace

void writeRunJson(const TrainingLoopInputs& in, const std::map<std::string, std::string>& facts,
                  const std::string& device) {
  RunManifest run;
  run.recipe = in.recipe;
  run.created = utcNow();
  run.command = in.command;
  run.codeVersion = build::kVersion;
  run.seed = in.config.integer("seed");
  run.machine = {hostName(), int64_t(std::thread::hardware_concurrency()), device,
                 in.distributed.worldSize, libraryVersions().libtorch};
  run.configJson = configToJson(in.schema, in.config);
  run.description = facts;
  writeRunManifest(in.folder, run);
}

TrainingSummary runTrainingLoop(const TrainingLoopInputs& inputs, JobContext& job) {
  return TrainingLoop(inputs, job).run();
}

}  // namespace strata::engine
