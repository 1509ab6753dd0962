// Every training recipe on the GPU in bf16 (the bridge with both processes): each recipe's own
// tiny configuration (the one its CPU tests train) runs on device=cuda with precision=bf16, learns
// (finite losses, run.json names the CUDA device), checkpoints, and a run stopped at a checkpoint
// and resumed logs the same training and validation losses, bit for bit, as the uninterrupted run.
// Deterministic algorithms are asked for (and cuBLAS's fixed workspace), so that a difference can
// only come from what the checkpoint kept; a second uninterrupted run tells a non-deterministic
// kernel apart from a resume bug. Skips, saying why, where no CUDA device is usable
// (scripts/device-check.sh fails when these skip on a GPU machine). With
// STRATA_CUDA_TESTS_ON_CPU=1 they run on the CPU instead (the rehearsal of the device check
// runs them so, so the GPU run is not their first).

#include <ATen/Context.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "common/text_file.h"
#include "engine/device_choice.h"
#include "support/recipe_cases.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {
namespace fs = std::filesystem;

class CudaTraining : public ::testing::TestWithParam<testing::RecipeCase> {
 protected:
  static bool onCpu() { return std::getenv("STRATA_CUDA_TESTS_ON_CPU") != nullptr; }
  void SetUp() override {
    std::string why;
    if (!onCpu() && !engine::cudaUsable(&why)) GTEST_SKIP() << "no usable CUDA device: " << why;
    // cuBLAS is deterministic only with a fixed workspace, read when LibTorch first makes one:
    // scripts/device-check.sh sets it for the whole process; this covers a test run alone.
    ::setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 0);
    m_deterministic = at::globalContext().deterministicAlgorithms();
    m_warnOnly = at::globalContext().deterministicAlgorithmsWarnOnly();
    at::globalContext().setDeterministicAlgorithms(true, /*warn_only=*/true);
  }
  void TearDown() override {
    at::globalContext().setDeterministicAlgorithms(m_deterministic, m_warnOnly);
  }
  /** The case's configuration on the GPU in bf16. */
  engine::ResolvedConfig onGpu(const fs::path& dir) const {
    engine::ResolvedConfig config = GetParam().config(dir);
    config.set("device", std::string(onCpu() ? "cpu" : "cuda"));
    config.set("precision", std::string("bf16"));
    return config;
  }
  bool m_deterministic = false, m_warnOnly = false;
};

TEST_P(CudaTraining, TrainsInBf16AndAStoppedRunResumesExactly) {
  const testing::RecipeCase& c = GetParam();
  TempDir dir;
  const engine::ResolvedConfig config = onGpu(dir.path());
  const engine::TrainingSummary whole = testing::trainRecipe(c.recipe, config, dir / "whole");
  ASSERT_TRUE(whole.finished) << c.name;
  const auto run = nlohmann::json::parse(readWholeFile(dir / "whole" / "run.json"));
  EXPECT_TRUE(run["machine"]["device"].get<std::string>().starts_with(onCpu() ? "cpu" : "cuda"))
      << c.name << " ran on " << run["machine"]["device"];
  const auto losses = testing::loggedLosses(dir / "whole");
  ASSERT_FALSE(losses.empty()) << c.name;
  for (const auto& [step, loss] : losses)
    ASSERT_TRUE(std::isfinite(loss)) << c.name << " step " << step;
  std::cout << "  " << c.name << ": loss " << losses.begin()->second << " (step "
            << losses.begin()->first << ") -> " << losses.rbegin()->second << " (step "
            << losses.rbegin()->first << ")\n";

  engine::ResolvedConfig stopped = config;
  stopped.set("stop_after", c.stopAfter);
  ASSERT_FALSE(testing::trainRecipe(c.recipe, stopped, dir / "parts").finished) << c.name;
  ASSERT_TRUE(testing::resumeTiny(dir / "parts", {"stop_after=0"}).finished) << c.name;
  const bool resumedExactly =
      testing::loggedLosses(dir / "parts") == losses &&
      testing::loggedValLosses(dir / "parts") == testing::loggedValLosses(dir / "whole");
  if (!resumedExactly) {
    // Tell a resume bug from a kernel that is not deterministic on this GPU.
    testing::trainRecipe(c.recipe, config, dir / "again");
    const bool deterministic = testing::loggedLosses(dir / "again") == losses;
    ADD_FAILURE() << c.name << ": the resumed run's losses differ from the uninterrupted run's"
                  << (deterministic
                          ? " (two uninterrupted runs agree: the checkpoint misses state)"
                          : " (two uninterrupted runs differ too: a non-deterministic kernel)");
    const auto resumed = testing::loggedLosses(dir / "parts");
    for (const auto& [step, loss] : losses)
      if (resumed.count(step) && resumed.at(step) != loss) {
        std::cout << "  first difference at step " << step << ": " << resumed.at(step) << " vs "
                  << loss << "\n";
        break;
      }
  }
}

INSTANTIATE_TEST_SUITE_P(Cuda, CudaTraining, ::testing::ValuesIn(testing::everyRecipeCase()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace strata::recipes
