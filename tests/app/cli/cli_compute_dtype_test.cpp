// --compute-dtype auto's premise, pinned on a small trained model: computing the forward passes
// in bf16 moves no layer's proxies or S by more than float32's own sampling uncertainty, and
// keeps l*. Measured on SmolLM2 and Gemma-3 in docs/geometry.md ("Compute precision"); if a
// change ever made bf16 move a proxy beyond that, auto would have to keep it in float32.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/cli_runner.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

/** Python-like text, plenty for 4,096 byte-level tokens. */
void writeCorpus(const std::filesystem::path& file) {
  std::ofstream out(file);
  for (int i = 0; i < 900; ++i)
    out << "def step_" << i << "(x, y=" << i % 7 << "):\n    return x * " << i % 13 << " + y\n";
}

nlohmann::json scoreIn(const std::string& dtype, const std::filesystem::path& corpus) {
  const char* model = std::getenv("STRATA_DEFAULT_MODEL");
  const testing::CommandOutput run = testing::runCliSplit(
      std::string("score --model ") + (model ? model : "") + " --corpus " + corpus.string() +
      " --tokens 4096 --seq-len 128 --bootstrap 20 --no-plugins --json --compute-dtype " + dtype);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  return nlohmann::json::parse(run.out);
}

TEST(CliComputeDType, Bf16MovesNoProxyOfASmallModelBeyondFloat32sUncertainty) {
  if (std::getenv("STRATA_DEFAULT_MODEL") == nullptr) GTEST_SKIP() << "no STRATA_DEFAULT_MODEL";
  TempDir dir;
  writeCorpus(dir / "corpus.py");
  const nlohmann::json fp32 = scoreIn("fp32", dir / "corpus.py");
  const nlohmann::json bf16 = scoreIn("bf16", dir / "corpus.py");
  ASSERT_EQ(fp32["layers"].size(), bf16["layers"].size());
  int compared = 0;
  for (std::size_t l = 0; l < fp32["layers"].size(); ++l) {
    for (const char* proxy : {"m_curv", "m_mono", "k_eff", "score"}) {
      const auto& a = fp32["layers"][l];
      const auto& b = bf16["layers"][l];
      if (!a[proxy].is_number() || !b[proxy].is_number()) continue;
      const auto& interval = a[std::string(proxy) + "_interval"];
      const double halfWidth = 0.5 * (interval[1].get<double>() - interval[0].get<double>());
      const double change = b[proxy].get<double>() - a[proxy].get<double>();
      EXPECT_LT(std::abs(change), halfWidth) << proxy << " at layer " << l;
      EXPECT_NE(change, 0.0) << proxy << " at layer " << l << ": bf16 did not run";
      ++compared;
    }
  }
  EXPECT_GT(compared, 12);
  EXPECT_EQ(fp32["l_star"], bf16["l_star"]);
}

// auto's measurement is made once per machine and kept in the data folder, so that every later
// job (and the default model's cache) decides alike; a file for another machine is measured over.
TEST(CliComputeDType, TheBf16MeasurementIsRememberedPerMachine) {
  TempDir dir;
  const auto about = [&] {
    const testing::CommandOutput run = testing::runCliSplit("about");
    EXPECT_EQ(run.exitCode, 0) << run.err;
    return run.out;
  };
  ::setenv("STRATA_DATA_DIR", dir.path().c_str(), 1);
  ::unsetenv("STRATA_CPU_BF16_SPEEDUP");
  const std::string first = about();
  const std::filesystem::path file = dir / "cpu-bf16-speed.txt";
  const bool native = first.find("has native bf16") != std::string::npos;
  if (!native) {
    ::unsetenv("STRATA_DATA_DIR");
    GTEST_SKIP() << "no native bf16 here: nothing is measured";
  }
  ASSERT_TRUE(std::filesystem::exists(file)) << first;
  std::string key;
  {
    std::ifstream in(file);
    std::getline(in, key, '\t');
  }
  std::ofstream(file) << key << "\t9.25\n";  // as if measured so
  EXPECT_NE(about().find("ran at 9.25x"), std::string::npos);
  std::ofstream(file) << "another machine\t9.25\n";
  EXPECT_EQ(about().find("ran at 9.25x"), std::string::npos);  // measured again
  ::unsetenv("STRATA_DATA_DIR");
}

}  // namespace
}  // namespace strata
