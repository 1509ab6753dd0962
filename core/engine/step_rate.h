#pragma once
// StepRate: a run's recent speed in optimizer steps per second, from the records it logs — over
// the last minute of training, and never across a resume from an earlier step. The clock is
// the records' train_seconds (metrics_log.h: time spent training, so a pause or the hours
// between a stop and its resume do not count); records of runs that do not log it (older runs,
// plugin recipes) fall back to their wall time. Holds only the records inside the window, so
// following a run for days costs nothing.

#include <cstdint>
#include <deque>

namespace strata::engine {

struct MetricsRecord;

class StepRate {
 public:
  explicit StepRate(double windowSeconds = 60) : m_window(windowSeconds) {}

  /** A record in the order logged: its train_seconds, or its wall time while no record had
   *  train_seconds (an evaluation record has none: it is then left out). */
  void add(const MetricsRecord& record);
  /** (step, seconds on one clock); a step or a time going back starts afresh (a resume from
   *  an earlier checkpoint, or from one written before the clock was logged). */
  void add(int64_t step, double seconds);
  void clear();
  /** Steps per second from the oldest record of the window (or, with fewer, the one before
   *  the newest) to the newest; 0 with fewer than two records or no time between them. */
  double stepsPerSecond() const;

 private:
  struct Sample {
    int64_t step;
    double seconds;
  };
  double m_window;
  bool m_trainClock = false;  ///< a record had train_seconds: wall times no longer count
  std::deque<Sample> m_recent;
};

}  // namespace strata::engine
