// Scoring a capture as it runs (engine/capture_scoring.h) gives, bit for bit, the report that
// capturing into a store and scoring the store gives; it computes only the layers the scan
// needs, writes nothing, and a cancel mid-way leaves nothing behind.

#include "engine/capture_scoring.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/job.h"
#include "geometry/layer_metric.h"
#include "support/letter_capture.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

namespace fs = std::filesystem;

/** A plugin-like metric that reads layer l−1: the mean |x_l − x_{l−1}|, NaN without l−1. */
class StepMetric final : public geometry::LayerMetric {
 public:
  const geometry::MetricInfo& info() const override { return m_info; }
  double compute(const geometry::HiddenStates& layer,
                 const geometry::HiddenStates* previous) override {
    if (previous == nullptr) return std::nan("");
    double sum = 0;
    for (int64_t i = 0; i < layer.rows * layer.cols; ++i)
      sum += std::abs(layer.data[i] - previous->data[i]);
    return sum / double(layer.rows * layer.cols);
  }

 private:
  geometry::MetricInfo m_info{"step", "mean change from l−1", true, "test"};
};

/** Every number of a report, as bits, so that NaN equals NaN and nothing is rounded. */
std::vector<uint64_t> bitsOf(const geometry::ScoredGeometry& scored) {
  std::vector<uint64_t> bits;
  const auto add = [&](double v) { bits.push_back(std::bit_cast<uint64_t>(v)); };
  const auto addValues = [&](const geometry::ProxyValues& v) {
    add(v.curvature);
    add(v.monotonicity);
    add(v.effectiveRank);
  };
  add(double(scored.report.numTokens));
  for (const auto& layer : scored.report.layers) {
    add(double(layer.layer));
    addValues(layer.values);
    for (const auto& i : {layer.curvature, layer.monotonicity, layer.effectiveRank}) {
      add(i.low);
      add(i.high);
    }
    for (const auto& r : layer.replicates) addValues(r);
    for (double v : layer.spectrum) add(v);
    for (double v : layer.localLambdaMax) add(v);
    for (double v : layer.pluginValues) add(v);
    add(double(layer.warnings.size()));
  }
  for (double v : scored.scores.score) add(v);
  add(double(scored.scores.bestIndex));
  return bits;
}

/** Every file under `folder`, recursively. */
std::set<fs::path> filesUnder(const fs::path& folder) {
  std::set<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(folder)) files.insert(entry.path());
  return files;
}

/** Records the stages a job reports, and cancels once it reports `cancelAt`. */
class StageRecorder final : public ProgressSink {
 public:
  StageRecorder(CancellationToken token, std::string cancelAt)
      : m_token(std::move(token)), m_cancelAt(std::move(cancelAt)) {}
  void progress(double, const std::string& stage) override {
    if (stages.empty() || stages.back() != stage) stages.push_back(stage);
    if (!m_cancelAt.empty() && stage == m_cancelAt) m_token.cancel();
  }
  void message(MessageLevel, const std::string&) override {}
  bool saw(const std::string& stage) const {
    return std::find(stages.begin(), stages.end(), stage) != stages.end();
  }

  std::vector<std::string> stages;

 private:
  CancellationToken m_token;
  std::string m_cancelAt;
};

class CaptureScoringTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config = testing::writeLetterCapture(dir.path());
    config.computeDType = ComputeDType::Float32;
    config.sampling.tokenBudget = 150;
    config.batchSequences = 3;
    scoring.options.anchors = 32;
    scoring.options.neighbours = 6;
    scoring.options.directions = 32;
    scoring.options.spectrumSize = 4;
    scoring.options.bootstrapResamples = 3;
    scoring.device = geometry::DeviceChoice::Cpu;
    scoring.metrics = {&step};
  }

  /** The report the store path gives: capture into a store, then score it. */
  geometry::ScoredGeometry throughAStore(io::StoreDType dtype) {
    CaptureConfig stored = config;
    stored.dtype = dtype;
    stored.output = dir / "acts.h5";
    stored.overwrite = true;
    NullProgressSink quiet;
    JobContext job(quiet, CancellationToken());
    runCapture(stored, job);
    geometry::StoreScoring fromStore = scoring;
    fromStore.store = stored.output;
    fromStore.writeGeometry = false;
    return geometry::scoreStore(fromStore, job);
  }

  geometry::ScoredGeometry asCaptured(io::StoreDType dtype) {
    CaptureConfig streamed = config;
    streamed.dtype = dtype;
    NullProgressSink quiet;
    JobContext job(quiet, CancellationToken());
    return captureAndScore(streamed, scoring, job);
  }

  TempDir dir;
  StepMetric step;
  CaptureConfig config;
  geometry::StoreScoring scoring;
};

TEST_F(CaptureScoringTest, GivesTheStoresReportBitForBitInFloat16AndFloat32) {
  for (const io::StoreDType dtype : {io::StoreDType::Float16, io::StoreDType::Float32}) {
    SCOPED_TRACE(io::storeDTypeName(dtype));
    const geometry::ScoredGeometry streamed = asCaptured(dtype);
    ASSERT_EQ(streamed.report.layers.size(), size_t(testing::kRandomLayers + 1));
    EXPECT_TRUE(std::isnan(streamed.report.layers[0].pluginValues.at(0)));  // no layer −1
    EXPECT_FALSE(std::isnan(streamed.report.layers[1].pluginValues.at(0)));
    EXPECT_EQ(bitsOf(streamed), bitsOf(throughAStore(dtype)));
  }
}

TEST_F(CaptureScoringTest, ScoresChosenLayersWithTheLayerBeforeThemAndStopsAfterTheLast) {
  ASSERT_EQ(testing::kRandomLayers, 3);
  scoring.layers = {2};
  CancellationToken token;
  StageRecorder stages(token, "");
  JobContext job(stages, token);
  const geometry::ScoredGeometry streamed = captureAndScore(config, scoring, job);
  ASSERT_EQ(streamed.report.layerIndices(), (std::vector<int64_t>{2}));
  // Layer 2's plugin saw layer 1, which was captured for it but not scored; layer 3 was never
  // computed.
  EXPECT_FALSE(std::isnan(streamed.report.layers[0].pluginValues.at(0)));
  EXPECT_TRUE(stages.saw("layer 1 of 3"));
  EXPECT_FALSE(stages.saw("scoring layer 1 of 3"));
  EXPECT_TRUE(stages.saw("scoring layer 2 of 3"));
  EXPECT_FALSE(stages.saw("layer 3 of 3"));
  EXPECT_EQ(bitsOf(streamed), bitsOf(throughAStore(io::StoreDType::Float16)));

  scoring.layers = {testing::kRandomLayers + 1};
  EXPECT_THROW(asCaptured(io::StoreDType::Float16), ConfigError);
}

TEST_F(CaptureScoringTest, WritesNothingAndACancelMidwayLeavesNothing) {
  ASSERT_EQ(testing::kRandomLayers, 3);
  // Whatever asks for a temporary file gets this folder.
  fs::create_directory(dir / "tmp");
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string previousTmpdir = tmpdir ? tmpdir : "";
  ::setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  const std::set<fs::path> before = filesUnder(dir.path());

  asCaptured(io::StoreDType::Float16);
  EXPECT_EQ(filesUnder(dir.path()), before);

  CancellationToken token;
  StageRecorder stages(token, "scoring layer 1 of 3");
  JobContext job(stages, token);
  EXPECT_THROW(captureAndScore(config, scoring, job), CancelledError);
  EXPECT_TRUE(stages.saw("scoring layer 0 of 3"));
  EXPECT_FALSE(stages.saw("layer 2 of 3"));  // cancelled mid-way, not at the end
  EXPECT_EQ(filesUnder(dir.path()), before);

  if (tmpdir)
    ::setenv("TMPDIR", previousTmpdir.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
}

}  // namespace

}  // namespace strata::engine
