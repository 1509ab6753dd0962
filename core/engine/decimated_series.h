#pragma once
// DecimatedSeries: one metric of a run — (step, value) points in step order — held in bounded
// memory however long the run logs, for a plot that follows it for days.
//
// Points fill buckets of `stride` consecutive points; each bucket keeps its minimum and maximum
// (with their steps) and its mean. While the points fit, the stride is 1 and every point is kept
// exactly. When `capacity` buckets are full, neighbours merge in pairs and the stride doubles, so
// at most `capacity` buckets are ever held, and a spike is never averaged away: it stays a
// bucket's minimum or maximum. No Qt here: the Training tab draws what this keeps.

#include <cstdint>
#include <vector>

namespace strata::engine {

class DecimatedSeries {
 public:
  struct Bucket {
    double minStep = 0, min = 0;  ///< the smallest value and where it was logged
    double maxStep = 0, max = 0;  ///< the largest value and where it was logged
    double stepSum = 0, valueSum = 0;
    int64_t count = 0;  ///< points merged into this bucket (== stride, except the newest)
    double meanStep() const { return stepSum / static_cast<double>(count); }
    double mean() const { return valueSum / static_cast<double>(count); }
  };

  /** `capacity` ≥ 2 and even (pairs merge); throws std::invalid_argument otherwise. */
  explicit DecimatedSeries(int64_t capacity = 8192);

  /** Appends one point; steps are expected to grow (a restarted log calls clear() first). */
  void append(double step, double value);
  void clear();

  int64_t pointCount() const { return m_points; }  ///< every point ever appended
  int64_t stride() const { return m_stride; }      ///< points per full bucket (a power of 2)
  const std::vector<Bucket>& buckets() const { return m_buckets; }

  /** What to draw as the logged line: each bucket's minimum and maximum in step order (one
   *  point when they are the same point), so the points themselves while the stride is 1. */
  void envelope(std::vector<double>& steps, std::vector<double>& values) const;
  /** Each bucket's mean value at its mean step: the series to smooth. */
  void means(std::vector<double>& steps, std::vector<double>& values) const;

 private:
  void mergePairs();

  int64_t m_capacity;
  int64_t m_stride = 1;
  int64_t m_points = 0;
  std::vector<Bucket> m_buckets;
};

}  // namespace strata::engine
