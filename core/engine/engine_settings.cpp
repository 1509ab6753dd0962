// The training loop's own settings (see engine_settings.h).

#include "engine/engine_settings.h"

namespace strata::engine {

namespace {

SettingSpec integer(std::string key, int64_t value, double minimum, std::string description,
                    std::string group) {
  return makeSetting(std::move(key), SettingType::Integer, value, std::move(description),
                     std::move(group), minimum);
}

SettingSpec real(std::string key, double value, double minimum, double maximum,
                 std::string description, std::string group) {
  return makeSetting(std::move(key), SettingType::Real, value, std::move(description),
                     std::move(group), minimum, maximum);
}

}  // namespace

std::vector<SettingSpec> engineSettings() {
  return {
      integer("steps", 1000, 1, "optimizer steps in the whole run", "schedule"),
      integer("batch", 16, 1, "sequences per micro-batch (over all processes together)",
              "schedule"),
      integer("grad_accum", 1, 1, "micro-batches accumulated per optimizer step", "schedule"),
      real("lr", 1e-3, 0, 10, "peak learning rate", "optimizer"),
      integer("warmup", 100, 0, "linear warm-up steps before the cosine decay", "schedule"),
      real("min_lr_ratio", 0.1, 0, 1, "final learning rate as a fraction of the peak", "schedule"),
      real("weight_decay", 0.1, 0, 10, "AdamW decoupled weight decay (matrices only)", "optimizer"),
      real("beta1", 0.9, 0, 0.999999, "AdamW β1", "optimizer"),
      real("beta2", 0.95, 0, 0.999999, "AdamW β2", "optimizer"),
      real("grad_clip", 1.0, 0, 1e6, "clip the global gradient norm to this (0 = no clipping)",
           "optimizer"),
      integer("seed", 0, 0, "seed of the weights, the data order and every random draw", "run"),
      integer("log_every", 10, 1, "steps between metrics lines (mean of the interval)", "run"),
      integer("eval_every", 0, 0, "steps between evaluations (0 = at checkpoints only)", "run"),
      integer("checkpoint_every", 0, 0, "steps between checkpoints (0 = only at the end)", "run"),
      integer("keep_last", 3, 1, "checkpoints kept besides the best one", "run"),
      integer("stop_after", 0, 0, "stop cleanly after this step, as if interrupted (0 = never)",
              "run"),
      makeChoice("device", "auto", {"auto", "cpu", "cuda"},
                 "where to train (auto = CUDA when present)", "device"),
      makeChoice("precision", "fp32", {"fp32", "bf16", "auto"},
                 "bf16 autocast for the forward pass; auto = bf16 on a GPU that has it", "device"),
      integer("threads", 0, 0, "LibTorch CPU threads (0 = LibTorch's choice)", "device"),
  };
}

bool settingMayChangeOnResume(const std::string& key) {
  for (const char* free : {"steps", "log_every", "eval_every", "checkpoint_every", "keep_last",
                           "stop_after", "device", "threads"})
    if (key == free) return true;
  return false;
}

}  // namespace strata::engine
