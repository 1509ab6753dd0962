#pragma once
// StepRate: a run's recent speed in optimizer steps per second, from the (step, wall time) of
// the records it logs — over the last minute, and never across a resume (steps going back).
// Holds only the records inside the window, so following a run for days costs nothing.

#include <cstdint>
#include <deque>

namespace strata::engine {

class StepRate {
 public:
  explicit StepRate(double windowSeconds = 60) : m_window(windowSeconds) {}

  void add(int64_t step, double wallTime);
  void clear() { m_recent.clear(); }
  /** Steps per second from the oldest record of the window (or, with fewer, the one before
   *  the newest) to the newest; 0 with fewer than two records or no time between them. */
  double stepsPerSecond() const;

 private:
  struct Sample {
    int64_t step;
    double wallTime;
  };
  double m_window;
  std::deque<Sample> m_recent;
};

}  // namespace strata::engine
