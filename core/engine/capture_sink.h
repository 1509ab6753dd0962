#pragma once
// Where a capture's layers go (engine/capture.h). The capture loop computes the hidden states
// layer by layer and hands each finished layer's stored rows to one sink: the activation store's
// writer (runCapture(config, job)), or a geometry scan that scores each layer as it arrives
// (engine/capture_scoring.h), so that scoring a model needs no store written and read back.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/store/activation_store.h"

namespace strata {
class JobContext;
}  // namespace strata

namespace strata::engine {

struct CaptureConfig;

/** What a sink learns before the forward passes: the store it would make of the capture. */
struct CaptureStart {
  const CaptureConfig& config;   ///< with the model folder and compute dtype resolved
  const io::StoreMeta& meta;     ///< the /meta a store of this capture records
  const io::TokenTable& tokens;  ///< one entry per stored row, in row order
};

/**
 * Receives a capture's layers, on the capture's thread, in ascending order. Only one layer's
 * rows are handed over at a time: a sink that keeps a layer longer (to overlap its work with
 * the next forward passes, or as l−1 of the next one) keeps that memory on top of the capture's.
 */
class CaptureSink {
 public:
  virtual ~CaptureSink() = default;
  /** Called once the model is loaded; returns the layers (0..L, ascending) it wants. The
   *  forward passes stop after the last of them; none wanted ends the capture at once. */
  virtual std::vector<int64_t> begin(const CaptureStart& start) = 0;
  /**
   * One wanted layer's stored rows: [N, d] float32, contiguous, on the CPU, every value finite.
   * `job` is the capture's job; its bar moves through this layer's share (layerShare()).
   */
  virtual void consume(int64_t layer, at::Tensor rows, JobContext& job) = 0;
  /** After the last wanted layer: finishes what is in flight (rethrowing its error). */
  virtual void finish() = 0;
  /** The part of each wanted layer's progress that consume() takes (the forward passes have
   *  the rest): 0 for work that overlaps the next layer's forward passes. */
  virtual double layerShare() const { return 0.0; }
  /** The memory the sink will hold beside the capture's own for `rows` stored rows of width
   *  `hiddenSize` (a scan's bootstrap and lanes), planned with the capture's before the model is
   *  loaded. */
  virtual int64_t plannedBytes(int64_t rows, int64_t hiddenSize) {
    (void)rows;
    (void)hiddenSize;
    return 0;
  }
  /** What the plan leaves unused beyond plannedBytes(), before begin(): a sink may spend it on
   *  work side by side (a scan's lanes). */
  virtual void spareMemory(int64_t bytes) { (void)bytes; }
  /** What is kept when the capture stops at `layer` with an error (its states are not finite),
   *  in a few words for the error, e.g. "the store keeps layers 0..6"; may be empty. */
  virtual std::string keptBefore(int64_t layer) const = 0;
};

}  // namespace strata::engine
