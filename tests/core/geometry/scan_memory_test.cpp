// Scoring's memory plan (geometry/scan_memory.h): its terms against closed forms, the lanes it
// leaves room for, and the refusal when one lane does not fit. The plan against the real peak
// resident set of `strata-cli score` is CliScoreMemory's.

#include "geometry/scan_memory.h"

#include <gtest/gtest.h>

#include <string>

#include "common/memory_budget.h"
#include "geometry/backend.h"
#include "support/scoped_environment.h"

namespace strata::geometry {
namespace {

constexpr int64_t MiB = int64_t{1} << 20;

/** A backend whose lanes hold `lane` bytes each, recording the limit the plan sets. */
class LaneRecorder final : public GeometryBackend {
 public:
  explicit LaneRecorder(int64_t lane, int threads) : m_lane(lane), m_threads(threads) {}
  std::string description() const override { return "lane recorder"; }
  ProxyResult computeProxies(const HiddenStates&, std::span<const float>, const TokenSampling&,
                             const ProxyOptions&) override {
    throw std::logic_error("not evaluated here");
  }
  int64_t laneBytes(int64_t, int64_t, const ProxyOptions&) const override { return m_lane; }
  int laneThreads() const override { return m_threads; }
  void limitLanes(int lanes) override { limit = lanes; }
  int limit = -1;

 private:
  int64_t m_lane;
  int m_threads;
};

TEST(ScanMemory, ItsTermsAreTheLayersRowsDrawsAndPluginInputs) {
  ProxyOptions options;  // B = 20, G = 10, M = 1,024 anchors and directions, 64 eigenvalues
  const LaneRecorder backend(7 * MiB, 2);
  const int64_t n = 5000, d = 300;
  const ScanMemory plain = scanMemory(n, d, options, false, backend);
  EXPECT_EQ(plain.rows, 4 * n * d);
  EXPECT_EQ(plain.lane, 7 * MiB);
  EXPECT_EQ(plain.plugins, 0);
  // 31 evaluations, each with two copies of its row weights, its pairs and anchors, its
  // results; the screening; the jackknife's float32 Gram and its double means and scales.
  EXPECT_EQ(plain.perLayer,
            36 * n + 31 * (8 * n + 16 * 1024 + 16 * 1024 + 8 * 64) + (4 * d * d + 16 * d));
  // Plugin metrics: l and l−1 normalised, and twice those for the metrics' scratch.
  EXPECT_EQ(scanMemory(n, d, options, true, backend).plugins, 6 * 4 * n * d);
  options.jackknifeBlocks = 0;
  options.bootstrapResamples = 0;
  EXPECT_EQ(scanMemory(n, d, options, false, backend).perLayer,
            36 * n + (8 * n + 16 * 1024 + 16 * 1024 + 8 * 64));
}

TEST(ScanMemory, LanesAreWhatTheBudgetLeavesBeyondOneUpToTheThreads) {
  ScanMemory m;
  m.rows = 100;
  m.perLayer = 10;
  m.plugins = 40;
  m.lane = 50;  // one lane: 200 bytes in all
  m.lanesWithin(150, 8);
  EXPECT_EQ(m.lanes, 1);  // not even one fits: the check refuses, the lanes stay 1
  m.lanesWithin(249, 8);
  EXPECT_EQ(m.lanes, 1);
  m.lanesWithin(250, 8);
  EXPECT_EQ(m.lanes, 2);
  EXPECT_EQ(m.needed(), 250);
  m.lanesWithin(10'000, 8);
  EXPECT_EQ(m.lanes, 8);
  m.lane = 0;  // a device's lanes hold no host memory
  m.lanesWithin(10'000, 8);
  EXPECT_EQ(m.lanes, 1);
}

TEST(ScanMemory, ACheckRefusesWhatOneLaneCannotFitAndLimitsTheLanesToWhatFits) {
  testing::ScopedEnvironment env;
  LaneRecorder backend(100 * MiB, 16);
  ScanMemory scan;
  scan.rows = 200 * MiB;
  scan.lane = 100 * MiB;
  scan.plugins = 1200 * MiB;
  const int64_t process = processCost(0, false);
  const int64_t oneLane = process + 1500 * MiB;
  const auto budget = [](int64_t usable) {
    return std::to_string(static_cast<int64_t>(double(usable) / kUsableShare) + MiB);
  };

  env.set("STRATA_MEMORY_AVAILABLE", budget(oneLane - 50 * MiB));
  try {
    checkScanMemory(scan, backend, "acts.h5", nullptr);
    ADD_FAILURE() << "a scan one lane of which does not fit was not refused";
  } catch (const MemoryError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("scoring acts.h5 needs about"), std::string::npos) << what;
    EXPECT_NE(what.find("--no-plugins"), std::string::npos) << what;
  }
  EXPECT_EQ(backend.limit, -1);

  env.set("STRATA_MEMORY_AVAILABLE", budget(oneLane + 350 * MiB));
  EXPECT_EQ(checkScanMemory(scan, backend, "acts.h5", nullptr).lanes, 4);
  EXPECT_EQ(backend.limit, 4);
  env.set("STRATA_MEMORY_AVAILABLE", "1T");
  EXPECT_EQ(checkScanMemory(scan, backend, "acts.h5", nullptr).lanes, 16);

  scan.plugins = 0;  // without plugins the refusal does not suggest dropping them
  env.set("STRATA_MEMORY_AVAILABLE", budget(process + 100 * MiB));
  try {
    checkScanMemory(scan, backend, "acts.h5", nullptr);
    ADD_FAILURE() << "not refused";
  } catch (const MemoryError& e) {
    EXPECT_EQ(std::string(e.what()).find("--no-plugins"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::geometry
