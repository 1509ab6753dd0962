#pragma once
// The pretrain recipe: a plain causal-LM training run of a small Llama from scratch on a local
// corpus, written out as a normal Hugging Face folder. This is how Strata's default backbone
// is made (scripts/make-default-model.sh).
//
// Run folder (OUT):
//   metrics.jsonl             one JSON object per logged step ({"step","loss","lr",
//                             "tokens_per_s"}; evaluations add "val_loss")
//   checkpoints/step-<n>/     model.pt, optimizer.pt (torch::save), rng.pt, state.json,
//                             manifest.json (sizes + sha256); written in a temp folder,
//                             fsync'ed, renamed; checkpoints/latest names the newest
//   config.json, model.safetensors, tokenizer.json, tokenizer_config.json,
//   training.json, README.md  the Hugging Face folder, written at the end
//
// Determinism: weights are initialised from torch::manual_seed(seed); the training windows of
// step s are a pure function of (seed, s) (SplitMix64), so a resumed run sees exactly the
// data an uninterrupted run would, and on the CPU ends with identical weights.
// No torch types in this header: the CLI includes it.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "io/corpus.h"

namespace strata {

class JobContext;

struct PretrainConfig {
  std::filesystem::path corpus;
  CorpusOptions corpusOptions;
  std::filesystem::path output;
  /** "byte" (256 byte symbols + <|bos|> 256, <|eos|> 257) or a tokenizer folder/file to copy. */
  std::string tokenizer = "byte";

  int64_t steps = 1000;
  int64_t batch = 16;
  int64_t seqLen = 128;
  double lr = 1e-3;             ///< peak learning rate
  int64_t warmup = 100;         ///< linear warm-up steps, then cosine decay to minLrRatio·lr
  double minLrRatio = 0.1;
  double weightDecay = 0.1;     ///< AdamW decay, on matrices only (not norms)
  double gradClip = 1.0;        ///< global gradient-norm clip
  double valFraction = 0.05;    ///< held-out tail of the token stream

  int64_t dim = 128;
  int64_t layers = 4;
  int64_t heads = 4;
  int64_t kvHeads = 0;          ///< 0 = heads (no grouping)
  int64_t mlp = 352;
  uint64_t seed = 0;

  int64_t logEvery = 10;
  int64_t evalEvery = 0;         ///< steps between validation losses; 0 = at checkpoints only
  int64_t evalWindows = 64;      ///< validation windows (of seqLen + 1 tokens) at most
  int64_t checkpointEvery = 0;   ///< 0 = only at the end
  int64_t stopAfter = 0;         ///< > 0: stop (checkpointed) after this step, as if interrupted
  bool resume = false;           ///< continue from the newest valid checkpoint in output
  int threads = 0;               ///< torch intra-op threads; 0 = leave as is

  std::string command;           ///< the command line, recorded in training.json / README.md
  /** Called on the job's thread with each log line as printed ("step 10/1000 loss ..."). */
  std::function<void(const std::string&)> onLog;
};

/** Reads a JSON run configuration into `config`: keys steps, batch, seq_len, lr, warmup,
 *  min_lr_ratio, weight_decay, grad_clip, dim, layers, heads, kv_heads, mlp, seed, tokenizer,
 *  log_every, eval_every, eval_windows, checkpoint_every. Unknown keys are a ConfigError. */
void applyPretrainConfigFile(const std::filesystem::path& file, PretrainConfig& config);

struct PretrainSummary {
  int64_t startStep = 0;         ///< > 0 when resumed
  int64_t steps = 0;             ///< the last step done
  bool finished = false;         ///< false when stopped by stopAfter
  double firstLoss = 0;
  double finalTrainLoss = 0;     ///< mean of the last (up to) 10 steps' losses
  double finalValLoss = 0;
  double tokensPerSecond = 0;
  double seconds = 0;
  int64_t parameters = 0;
  int64_t trainTokens = 0, valTokens = 0;
  std::string corpusHash;
};

/** Runs the recipe. Cancellation (job.checkCancelled between steps) writes a checkpoint of
 *  the last finished step and throws CancelledError. Throws ConfigError for bad sizes,
 *  FormatError for a corpus too small for one training and one validation window. */
PretrainSummary runPretrain(const PretrainConfig& config, JobContext& job);

}  // namespace strata
