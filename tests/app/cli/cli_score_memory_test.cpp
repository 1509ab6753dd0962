// Scoring plans its memory before the first layer is read (geometry/scan_memory.h): the real
// binary's peak resident set stays within the plan it prints, a budget the plan does not fit is
// refused before anything is read or written, and the bootstrap's lanes are limited to what fits.

#include <gtest/gtest.h>

#include <cmath>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "geometry/geometry_report.h"
#include "support/cli_runner.h"
#include "support/geometry_store_fixture.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

/** The bytes of "needs 701 MiB of" in the printed plan (formatBytes' units), or -1. */
int64_t plannedBytes(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(
          out, m, std::regex(R"(memory plan for scoring .* needs ([0-9.]+) (B|KiB|MiB|GiB) of)")))
    return -1;
  const double scale = m[2] == "GiB"   ? 1024.0 * 1024 * 1024
                       : m[2] == "MiB" ? 1024.0 * 1024
                       : m[2] == "KiB" ? 1024.0
                                       : 1.0;
  return static_cast<int64_t>(std::stod(m[1]) * scale);
}

TEST(CliScoreMemory, ThePlanHoldsThePeakAndRefusesWhatDoesNotFitBeforeReadingALayer) {
  // Large enough for the scan's own terms (rows 32 MiB, plugins 192 MiB, two lanes) to weigh
  // against the process's fixed cost; two layers, so the plugins see l and l−1.
  TempDir dir;
  const auto store = dir / "wide.h5";
  testing::writeGeometryFixtureStore(store, {.tokens = 32768, .hidden = 256, .layers = 1});
  const std::vector<std::string> score = {
      "score",       "--store", store.string(),       "--device", "cpu",
      "--bootstrap", "4",       "--jackknife-blocks", "4",        "--normalise",
      "trace"};  // the memory is the same either way

  const testing::MeasuredOutput run = testing::runCliMeasured(score);
  ASSERT_EQ(run.exitCode, 0) << run.out;
  const int64_t plan = plannedBytes(run.out);
  ASSERT_GT(plan, 0) << run.out;
  EXPECT_LE(run.peakResidentBytes, plan) << run.out;          // never under the peak
  EXPECT_LE(plan, run.peakResidentBytes * 3 / 2) << run.out;  // nor far above it
  ASSERT_TRUE(geometry::readGeometry(store).has_value());
  if (std::thread::hardware_concurrency() >= 2)
    EXPECT_NE(run.out.find(" 2 lanes of "), std::string::npos) << run.out;

  // A budget one lane does not fit: refused, naming what to change, before a layer is read;
  // the store keeps the geometry written above and nothing else.
  testing::ScopedEnvironment env;
  env.set("STRATA_MEMORY_AVAILABLE", std::to_string(int64_t(double(plan) / 0.9 * 0.8)));
  const auto store2 = dir / "again.h5";
  testing::writeGeometryFixtureStore(store2, {.tokens = 32768, .hidden = 256, .layers = 1});
  const testing::MeasuredOutput refused = testing::runCliMeasured(
      {"score", "--store", store2.string(), "--device", "cpu", "--bootstrap", "4"});
  EXPECT_NE(refused.exitCode, 0) << refused.out;
  EXPECT_NE(refused.out.find("scoring again.h5 needs about"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("--no-plugins"), std::string::npos) << refused.out;
  EXPECT_FALSE(geometry::readGeometry(store2).has_value());
  EXPECT_LT(refused.peakResidentBytes, run.peakResidentBytes - (int64_t{100} << 20))
      << "the refused run read its layers first";

  // Without the plugin metrics the same budget fits, in one lane.
  std::vector<std::string> noPlugins = score;
  noPlugins.push_back("--no-plugins");
  noPlugins.push_back("--no-write");
  const testing::MeasuredOutput lean = testing::runCliMeasured(noPlugins);
  EXPECT_EQ(lean.exitCode, 0) << lean.out;
  EXPECT_NE(lean.out.find("lane"), std::string::npos) << lean.out;
  EXPECT_LE(lean.peakResidentBytes, plannedBytes(lean.out)) << lean.out;
}

}  // namespace
}  // namespace strata
