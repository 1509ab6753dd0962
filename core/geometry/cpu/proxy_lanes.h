#pragma once
// Independent evaluations side by side (a bootstrap's resamples and jackknife blocks): one
// OpenMP thread per lane, each taking the next evaluation when it finishes one. At the widths
// of small models a single evaluation's products are too small for the BLAS's threads to pay
// (measured: 2 threads ran SmolLM2's resamples only 1.25× faster than one); whole evaluations
// in parallel keep every core busy, the serial parts (normalisation, eigensolvers) included.

#include <cstdint>
#include <functional>

namespace strata::geometry::cpu {

/**
 * How many lanes to run `requests` evaluations in: the OpenMP threads, at most one per request,
 * and no more than the memory allows when each lane beyond the first needs `laneBytes` of
 * scratch (half of MemAvailable at most, so scoring never pushes a machine into swap).
 */
int laneCount(int64_t requests, int64_t laneBytes);

/**
 * Calls work(lane, i) once for every i in [0, count), on `lanes` threads (lane 0 is the
 * calling thread). With more than one lane the BLAS runs single-threaded and nested OpenMP loops
 * on their lane's thread meanwhile; one lane runs them in order, after each of which it reports,
 * with the BLAS and OpenMP as they are. `work` must not throw. `completed(done)` runs on the
 * calling thread only, after its own evaluations and once at the end; an exception from it stops
 * the lanes taking new work and is rethrown when those in flight have ended.
 */
void runLanes(int lanes, int64_t count, const std::function<void(int lane, int64_t i)>& work,
              const std::function<void(int64_t done)>& completed);

}  // namespace strata::geometry::cpu
