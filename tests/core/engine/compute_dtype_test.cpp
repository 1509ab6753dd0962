// --compute-dtype auto: bf16 on CUDA and on a CPU whose native bf16 (AVX512-BF16, AMX or Arm BF16)
// multiplies faster than float32, measured; float32 elsewhere. What ran is recorded in the store,
// and a resumed store keeps its precision.

#include "engine/compute_dtype.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "common/cpu_features.h"
#include "common/error.h"
#include "common/job.h"
#include "engine/capture.h"
#include "engine/cpu_bf16_speed.h"
#include "io/store/activation_store.h"
#include "support/letter_capture.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

/** The CPU's flags as the kernel lists them: an independent reading of CPUID. */
std::string procCpuFlags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0) return line + " ";
  return {};
}

bool hasFlag(const std::string& flags, const std::string& flag) {
  return flags.find(" " + flag + " ") != std::string::npos;
}

TEST(ComputeDType, AutoIsBf16OnCudaAndWhereTheCpusNativeBf16IsFaster) {
  const CpuBf16Support none;
  CpuBf16Support avx512;
  avx512.avx512bf16 = true;
  CpuBf16Support amx;
  amx.amxbf16 = true;
  EXPECT_EQ(chooseComputeDType(ComputeDType::Auto, true, none, 1.0).dtype, ComputeDType::BFloat16);
  EXPECT_EQ(chooseComputeDType(ComputeDType::Auto, false, avx512, 3.8).dtype,
            ComputeDType::BFloat16);
  EXPECT_EQ(chooseComputeDType(ComputeDType::Auto, false, amx, kLeastBf16Speedup).dtype,
            ComputeDType::BFloat16);
  // Native instructions that multiply slower than float32 (an Intel Xeon without AMX: 0.7x).
  const ComputeChoice slow = chooseComputeDType(ComputeDType::Auto, false, avx512, 0.7);
  EXPECT_EQ(slow.dtype, ComputeDType::Float32);
  EXPECT_NE(slow.reason.find("0.70x"), std::string::npos) << slow.reason;
  EXPECT_EQ(chooseComputeDType(ComputeDType::Auto, false, none, 9.0).dtype, ComputeDType::Float32);
  EXPECT_NE(chooseComputeDType(ComputeDType::Auto, false, avx512, 3.8).reason.find("avx512_bf16"),
            std::string::npos);
  EXPECT_NE(chooseComputeDType(ComputeDType::Auto, false, none, 1.0).reason.find("no native bf16"),
            std::string::npos);
  // An explicit choice is kept, whatever the hardware.
  EXPECT_EQ(chooseComputeDType(ComputeDType::Float32, true, avx512, 3.8).dtype,
            ComputeDType::Float32);
  EXPECT_EQ(chooseComputeDType(ComputeDType::BFloat16, false, none, 0.5).dtype,
            ComputeDType::BFloat16);
}

TEST(ComputeDType, TheMeasuredSpeedupIsAPlausibleRatio) {
  const double speedup = cpuBf16MatmulSpeedup();
  EXPECT_GT(speedup, 0.05);
  EXPECT_LT(speedup, 50.0);
}

TEST(ComputeDType, ParsesTheOptionsWordsAndTheStoresNames) {
  for (const ComputeDType d : {ComputeDType::Auto, ComputeDType::Float32, ComputeDType::BFloat16}) {
    EXPECT_EQ(parseComputeDType(computeDTypeOption(d), "--compute-dtype"), d);
    EXPECT_EQ(parseComputeDType(computeDTypeName(d), "/meta@compute_dtype"), d);
  }
  EXPECT_THROW(parseComputeDType("fp16", "--compute-dtype"), ConfigError);
}

TEST(CpuFeatures, AgreeWithTheKernelsCpuFlags) {
  const std::string flags = procCpuFlags();
  if (flags.empty()) GTEST_SKIP() << "no /proc/cpuinfo flags line (not x86-64 Linux)";
  const CpuBf16Support& support = cpuBf16Support();
  EXPECT_EQ(support.avx512bf16, hasFlag(flags, "avx512_bf16")) << flags;
  EXPECT_EQ(support.amxbf16, hasFlag(flags, "amx_bf16")) << flags;
}

class CaptureComputeDType : public ::testing::Test {
 protected:
  void SetUp() override {
    config = testing::writeLetterCapture(dir.path());
    config.sampling.tokenBudget = 96;
    config.batchSequences = 2;
    config.device = "cpu";
  }
  std::string storedComputeDType() const {
    return io::ActivationStore::open(config.output).meta().extra.at("compute_dtype");
  }

  TempDir dir;
  CaptureConfig config;
  NullProgressSink sink;
};

TEST_F(CaptureComputeDType, AutoRecordsWhatThisMachineChoseAndTheCorpusName) {
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  const bool native = hasFlag(procCpuFlags(), "avx512_bf16") || hasFlag(procCpuFlags(), "amx_bf16");
  const bool faster = native && cpuBf16MatmulSpeedup() >= kLeastBf16Speedup;
  EXPECT_EQ(storedComputeDType(), faster ? "bfloat16" : "float32");
  EXPECT_EQ(io::ActivationStore::open(config.output).meta().extra.at("corpus_name"), "corpus.txt");
}

TEST_F(CaptureComputeDType, AResumedStoreKeepsItsPrecision) {
  config.computeDType = ComputeDType::BFloat16;
  {
    // Cancelled once layer 2 is under way (as capture_test's CancelAtLayer): a store to resume.
    struct CancelAtLayer2 : ProgressSink {
      CancellationToken token;
      void progress(double, const std::string& stage) override {
        if (stage.rfind("layer 2 ", 0) == 0) token.cancel();
      }
      void message(MessageLevel, const std::string&) override {}
    } cancelling;
    JobContext job(cancelling, cancelling.token);
    EXPECT_THROW(runCapture(config, job), CancelledError);
  }
  ASSERT_FALSE(io::ActivationStore::open(config.output).completedLayers().empty());
  config.resume = true;
  config.computeDType = ComputeDType::Float32;
  JobContext job(sink, CancellationToken());
  try {
    runCapture(config, job);
    FAIL() << "a bf16 store was resumed in float32";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("--compute-dtype bf16"), std::string::npos) << e.what();
  }
  config.computeDType = ComputeDType::Auto;  // adopts the store's bf16, whatever the CPU
  runCapture(config, job);
  const io::ActivationStore store = io::ActivationStore::open(config.output);
  EXPECT_EQ(store.meta().extra.at("compute_dtype"), "bfloat16");
  EXPECT_EQ(static_cast<int64_t>(store.completedLayers().size()), testing::kRandomLayers + 1);

  // The layers computed after the resume are bf16's, bit for bit: a whole bf16 capture.
  const std::filesystem::path resumed = config.output;
  config.resume = false;
  config.computeDType = ComputeDType::BFloat16;
  config.output = dir / "bf16.h5";
  runCapture(config, job);
  const int64_t last = testing::kRandomLayers;
  EXPECT_EQ(io::ActivationStore::open(resumed).readLayer(last),
            io::ActivationStore::open(config.output).readLayer(last));
}

}  // namespace
}  // namespace strata::engine
