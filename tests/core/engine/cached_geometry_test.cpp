// cachedGeometry: the default model's layer geometry computed once, then read from the cache.
// Checked against what a plain capture + scan of the same inputs gives, and for each reason the
// cache must be bypassed (other proxy options, other metrics, other corpus, an interrupted
// capture, an unreadable store).

#include "engine/cached_geometry.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/error.h"
#include "common/job.h"
#include "geometry/geometry_report.h"
#include "geometry/layer_metric.h"
#include "io/store/activation_store.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

namespace fs = std::filesystem;

/** Python-like text, ~12 KB: plenty for 512 byte-level tokens. */
void writeCorpus(const fs::path& file, int variant = 0) {
  std::ofstream out(file);
  for (int i = 0; i < 300; ++i)
    out << "def step_" << i << "(x, y=" << (i + variant) % 7 << "):\n    return x * " << i % 13
        << " + y\n";
}

/** Records warnings; cancels its token once capture works on `cancelAtLayer` (−1: never). */
class Recorder final : public ProgressSink {
 public:
  explicit Recorder(CancellationToken token = {}, int cancelAtLayer = -1)
      : m_token(token), m_cancelStage("layer " + std::to_string(cancelAtLayer) + " ") {
    if (cancelAtLayer < 0) m_cancelStage.clear();
  }
  void progress(double, const std::string& stage) override {
    if (!m_cancelStage.empty() && stage.rfind(m_cancelStage, 0) == 0) m_token.cancel();
  }
  void message(MessageLevel level, const std::string& text) override {
    if (level == MessageLevel::Warning) warnings += text + "\n";
  }
  std::string warnings;

 private:
  CancellationToken m_token;
  std::string m_cancelStage;
};

class ConstantMetric final : public geometry::LayerMetric {
 public:
  const geometry::MetricInfo& info() const override { return m_info; }
  double compute(const geometry::HiddenStates&, const geometry::HiddenStates*) override {
    return 1.0;
  }

 private:
  geometry::MetricInfo m_info{"constant", "always 1", true, "test"};
};

class CachedGeometryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    writeCorpus(dir / "corpus.py");
    request.modelFolder = STRATA_SOURCE_DIR "/resources/models/default";
    request.corpus = dir / "corpus.py";
    request.cacheFolder = dir / "cache";
    request.sampling.tokenBudget = 512;
    request.sampling.sequenceLength = 64;
    request.options.anchors = 128;
    request.options.neighbours = 8;
    request.options.directions = 128;
    request.options.bootstrapResamples = 4;
    request.options.jackknifeBlocks = 0;
    request.device = "cpu";
  }

  CachedGeometry run(const CachedGeometryRequest& r,
                     const std::vector<geometry::LayerMetric*>& metrics = {}) {
    JobContext job(recorder, CancellationToken());
    return cachedGeometry(r, job, metrics);
  }

  TempDir dir;
  CachedGeometryRequest request;
  Recorder recorder;
};

void expectSameValues(const geometry::GeometryReport& a, const geometry::GeometryReport& b) {
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].layer, b.layers[i].layer);
    // NaN-aware: layer 0's m_curv may be undefined.
    const auto same = [](double x, double y) { return (std::isnan(x) && std::isnan(y)) || x == y; };
    EXPECT_TRUE(same(a.layers[i].values.curvature, b.layers[i].values.curvature)) << i;
    EXPECT_TRUE(same(a.layers[i].values.monotonicity, b.layers[i].values.monotonicity)) << i;
    EXPECT_TRUE(same(a.layers[i].values.effectiveRank, b.layers[i].values.effectiveRank)) << i;
  }
}

TEST_F(CachedGeometryTest, FirstCallCapturesAndScoresLaterCallsReadTheCache) {
  const CachedGeometry first = run(request);
  EXPECT_TRUE(first.captured);
  EXPECT_TRUE(first.scored);
  EXPECT_EQ(first.store.parent_path(), request.cacheFolder);
  EXPECT_EQ(first.store.filename().string().rfind("default-", 0), 0u) << first.store;
  EXPECT_EQ(first.store, cachedStorePath(request));
  ASSERT_EQ(first.report.layers.size(), 5u);  // the default model: layers 0..4
  {
    const io::ActivationStore store = io::ActivationStore::open(first.store);
    EXPECT_EQ(store.numTokens(), 512);
    EXPECT_EQ(store.completedLayers().size(), 5u);
  }
  const auto stored = geometry::readGeometry(first.store);
  ASSERT_TRUE(stored.has_value());
  expectSameValues(*stored, first.report);

  const auto written = fs::last_write_time(first.store);
  const CachedGeometry second = run(request);
  EXPECT_FALSE(second.captured);
  EXPECT_FALSE(second.scored);
  EXPECT_EQ(second.store, first.store);
  EXPECT_EQ(fs::last_write_time(first.store), written);  // not even rewritten
  expectSameValues(second.report, first.report);
}

TEST_F(CachedGeometryTest, OtherProxyOptionsOrMetricsRescoreTheSameStore) {
  const CachedGeometry first = run(request);
  CachedGeometryRequest reseeded = request;
  reseeded.options.seed = 7;
  const CachedGeometry other = run(reseeded);
  EXPECT_EQ(other.store, first.store);  // the rows do not depend on the proxies' seed
  EXPECT_FALSE(other.captured);
  EXPECT_TRUE(other.scored);
  EXPECT_EQ(other.report.options.seed, 7u);
  EXPECT_NE(other.report.layers[1].values.curvature, first.report.layers[1].values.curvature);

  ConstantMetric constant;
  const CachedGeometry withMetric = run(reseeded, {&constant});
  EXPECT_TRUE(withMetric.scored);
  ASSERT_EQ(withMetric.report.pluginMetrics.size(), 1u);
  EXPECT_EQ(withMetric.report.pluginMetrics[0].name, "constant");
  EXPECT_FALSE(run(reseeded, {&constant}).scored);
  EXPECT_TRUE(run(reseeded).scored);  // without the metric again
}

TEST_F(CachedGeometryTest, ChangedCorpusOrSamplingGetsItsOwnStore) {
  const CachedGeometry first = run(request);
  writeCorpus(request.corpus, 3);  // same name, other bytes
  const CachedGeometry edited = run(request);
  EXPECT_NE(edited.store, first.store);
  EXPECT_TRUE(edited.captured);

  CachedGeometryRequest longer = request;
  longer.sampling.sequenceLength = 32;
  const CachedGeometry resampled = run(longer);
  EXPECT_NE(resampled.store, edited.store);
  EXPECT_TRUE(resampled.captured);
  EXPECT_TRUE(fs::exists(first.store));  // each kept for when it is asked for again
}

TEST_F(CachedGeometryTest, CancelledCaptureIsResumedByTheNextCall) {
  CancellationToken token;
  Recorder cancelling(token, 2);
  JobContext job(cancelling, token);
  EXPECT_THROW(cachedGeometry(request, job), CancelledError);
  const fs::path store = cachedStorePath(request);
  {
    const io::ActivationStore partial = io::ActivationStore::open(store);
    EXPECT_GE(partial.completedLayers().size(), 1u);
    EXPECT_LT(partial.completedLayers().size(), 5u);
  }
  EXPECT_FALSE(geometry::readGeometry(store).has_value());  // no /geometry from a cancelled run

  const CachedGeometry resumed = run(request);
  EXPECT_TRUE(resumed.captured);
  EXPECT_TRUE(resumed.scored);

  CachedGeometryRequest elsewhere = request;
  elsewhere.cacheFolder = dir / "fresh";
  const CachedGeometry fresh = run(elsewhere);
  const io::ActivationStore a = io::ActivationStore::open(resumed.store);
  const io::ActivationStore b = io::ActivationStore::open(fresh.store);
  for (int64_t l = 0; l <= 4; ++l) EXPECT_EQ(a.readLayer(l), b.readLayer(l)) << "layer " << l;
  expectSameValues(resumed.report, fresh.report);
}

TEST_F(CachedGeometryTest, UnreadableCachedStoreIsCapturedAgain) {
  const fs::path store = cachedStorePath(request);
  fs::create_directories(store.parent_path());
  std::ofstream(store) << "not an HDF5 file";
  const CachedGeometry result = run(request);
  EXPECT_TRUE(result.captured);
  EXPECT_TRUE(result.scored);
  EXPECT_NE(recorder.warnings.find("cannot be read"), std::string::npos) << recorder.warnings;
  EXPECT_EQ(io::ActivationStore::open(store).completedLayers().size(), 5u);
}

TEST_F(CachedGeometryTest, MissingInputsAreNamed) {
  CachedGeometryRequest noCorpus = request;
  noCorpus.corpus.clear();
  try {
    run(noCorpus);
    FAIL() << "no corpus was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), "corpus");
    EXPECT_NE(std::string(e.what()).find("STRATA_DEFAULT_CORPUS"), std::string::npos) << e.what();
  }
  CachedGeometryRequest missing = request;
  missing.corpus = dir / "nowhere.txt";
  try {
    run(missing);
    FAIL() << "a missing corpus was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nowhere.txt"), std::string::npos) << e.what();
  }
  CachedGeometryRequest badDevice = request;
  badDevice.device = "tpu";
  EXPECT_THROW(run(badDevice), ConfigError);
  EXPECT_FALSE(fs::exists(request.cacheFolder)) << "nothing may be written for a bad request";
}

TEST(DefaultGeometryRequest, UsesTheDefaultModelCorpusAndDataFolder) {
  TempDir dir;
  testing::ScopedEnvironment environment;
  environment.set("STRATA_DATA_DIR", dir.path().string());
  environment.set("STRATA_DEFAULT_CORPUS", (dir / "mine.txt").string());
  const CachedGeometryRequest r = defaultGeometryRequest();
  EXPECT_TRUE(fs::exists(r.modelFolder / "config.json")) << r.modelFolder;
  EXPECT_EQ(r.corpus, dir / "mine.txt");
  EXPECT_EQ(r.cacheFolder, dir / "geometry-cache");
  EXPECT_EQ(r.sampling.tokenBudget, 4096);
  EXPECT_EQ(r.sampling.sequenceLength, 128);
}

}  // namespace
}  // namespace strata::engine
