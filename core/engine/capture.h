#pragma once
// Capture: run a backbone over a sampled corpus and write the hidden state of every layer
// into an activation store. The job behind `strata-cli capture` and the GUI's Capture… action;
// the same loop hands its layers to any CaptureSink (engine/capture_sink.h), e.g. to score them
// as they arrive (engine/capture_scoring.h).
//
// It works layer by layer over the whole sample — h_0 for every sequence, then block 1 for
// every sequence, … — so memory holds one layer's states (S·T·d floats) and, with layer
// streaming, one block's weights; and each finished layer is written (and flushed) on a
// background thread while the next one is computed, so the writing overlaps the forward
// passes and a crash keeps every finished layer. The writing is bound by deflate, which a pool
// of threads does chunk by chunk (CaptureConfig::write). Resuming an interrupted store
// re-samples the same tokens (same corpus, tokenizer and seed), recomputes the forward pass and
// writes only the missing layers.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/compute_dtype.h"
#include "io/corpus/corpus.h"
#include "io/corpus/token_sampler.h"
#include "io/store/activation_store.h"

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::engine {

class CaptureSink;

struct CaptureConfig {
  std::filesystem::path modelFolder;
  std::filesystem::path corpus;
  std::filesystem::path output;  ///< the .h5 activation store
  io::CorpusOptions corpusOptions;
  io::TokenSamplerConfig sampling;
  io::StoreDType dtype = io::StoreDType::Float16;
  /** Threads and deflate level of the store's writing (io/store/activation_store.h). */
  io::StoreWriteOptions write;
  /** What the forward passes compute in (engine/compute_dtype.h); the store keeps its own
   *  storage dtype either way. Auto is resolved once the device is known, and a resumed store
   *  keeps the precision it was started in. */
  ComputeDType computeDType = ComputeDType::Auto;
  /** "cpu", "cuda" or "auto" (engine/device_choice.h). On CUDA the weights and forward
   *  passes live on the GPU and each finished layer's stored rows are copied back for writing;
   *  with streamLayers, the next block is staged in pinned memory and copied while the current
   *  one computes (model/backbone/block_staging.h). */
  std::string device = "auto";
  int64_t batchSequences = 16;  ///< sequences per forward call
  bool streamLayers = false;    ///< keep one block's weights in memory at a time
  bool overwrite = false;       ///< replace an existing store instead of refusing/resuming
  bool resume = false;          ///< continue an interrupted store at `output`
};

struct CaptureSummary {
  int64_t tokens = 0;
  int64_t sequences = 0;
  int64_t layersWritten = 0;  ///< layers computed and written by this run
  int64_t layersKept = 0;     ///< finished layers found in a resumed store
  double seconds = 0.0;
  double tokensPerSecond = 0.0;  ///< stored rows × layers / seconds of forward + write
};

/**
 * The store's compressing threads for `requested` (StoreWriteOptions::threads): itself when
 * positive; for 0, as many as the compute threads (at::get_num_threads(): STRATA_THREADS, the
 * workbench's preference, the CPUs the process may use), not every core of the machine.
 */
int storeWriteThreads(int requested);

/**
 * Runs the capture; progress and cancellation through `job`. Throws ConfigError for a bad
 * configuration, FormatError/IoError for bad inputs, CancelledError when cancelled (the store
 * then holds every layer finished so far and can be resumed).
 */
CaptureSummary runCapture(const CaptureConfig& config, JobContext& job);

/**
 * The same capture, its layers handed to `sink` instead of a store: only the layers sink.begin()
 * wants are handed over, and the forward passes stop after the last of them. config.output,
 * overwrite, resume and write concern the store alone (a sink that writes one reads them).
 * Throws as runCapture, and whatever the sink throws.
 */
CaptureSummary runCapture(const CaptureConfig& config, CaptureSink& sink, JobContext& job);

}  // namespace strata::engine
