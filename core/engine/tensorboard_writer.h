#pragma once
// TensorBoard event files, written without TensorFlow: `tensorboard --logdir RUN` shows the
// same scalars as metrics.jsonl. Format (see ../shared/NOTES.md): records of u64 length, masked
// CRC-32C of the length, the serialized Event, masked CRC-32C of the data; the first event has
// file_version "brain.Event:2"; a scalar is Event{wall_time, step, summary{value{tag,
// simple_value}}}. No torch and no Qt here.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/metrics_log.h"

namespace strata::engine {

/** CRC-32C (Castagnoli), as TFRecord uses. */
uint32_t crc32c(const void* data, size_t size);
/** TFRecord's masking: ((c >> 15) | (c << 17)) + 0xa282ead8. */
uint32_t maskedCrc32c(const void* data, size_t size);

class TensorBoardWriter {
 public:
  /** Creates `folder`/events.out.tfevents.<unix seconds>.<host> and writes the version event. */
  explicit TensorBoardWriter(const std::filesystem::path& folder);
  void scalar(const std::string& tag, int64_t step, double wallTime, double value);
  /** Every value of a metrics record as a scalar with the record's step and time. */
  void record(const MetricsRecord& record);
  void flush();
  const std::filesystem::path& file() const { return m_file; }

 private:
  void writeEvent(const std::string& event);
  std::filesystem::path m_file;
  std::ofstream m_out;
};

/**
 * Removes the event files in `folder` and writes one new file holding `records` (a resumed run
 * rewrites its events from the truncated metrics.jsonl, so TensorBoard never shows the steps a
 * crash lost twice). Returns the writer, open for appending.
 */
TensorBoardWriter rewriteTensorBoard(const std::filesystem::path& folder,
                                     const std::vector<MetricsRecord>& records);

}  // namespace strata::engine
