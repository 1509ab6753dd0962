// Scanning a store layer by layer, and the /geometry group the scan leaves in it.

#include "geometry/geometry_report.h"

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "io/store/activation_store.h"
#include "io/store/hdf5_handle.h"
#include "io/writer_lock.h"
#include "support/geometry_store_fixture.h"
#include "support/temp_dir.h"

namespace strata::geometry {
namespace {

ProxyOptions smallOptions() {
  ProxyOptions o;
  o.normalisation = Normalisation::Trace;  // what this test's expectations assume
  o.anchors = 60;
  o.neighbours = 8;
  o.directions = 80;
  o.spectrumSize = 6;
  o.bootstrapResamples = 3;
  o.seed = 5;
  return o;
}

GeometryReport handReport() {
  GeometryReport r;
  r.options = smallOptions();
  r.options.monotonicity = MonotonicityMode::MinEigenvalue;
  r.backend = "hand";
  r.modelId = "m";
  r.numLayers = 3;
  r.numTokens = 10;
  for (int64_t l = 0; l <= 3; ++l) {
    LayerGeometry g;
    g.layer = l;
    g.values = {1.0 + double(l), 2.0 / double(l + 1), 3.5 - 0.5 * double(l)};
    g.curvature = {g.values.curvature - 0.1, g.values.curvature + 0.1};
    g.monotonicity = {g.values.monotonicity * 0.9, g.values.monotonicity * 1.1};
    g.effectiveRank = {g.values.effectiveRank - 0.2, g.values.effectiveRank + 0.3};
    g.spectrum = std::vector<double>(size_t(2 + l), 4.0 - double(l));  // unequal lengths
    g.localLambdaMax = {0.5, 0.25 * double(l + 1)};
    r.layers.push_back(g);
  }
  return r;
}

void expectSameReport(const GeometryReport& a, const GeometryReport& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.modelId, b.modelId);
  EXPECT_EQ(a.numLayers, b.numLayers);
  EXPECT_EQ(a.numTokens, b.numTokens);
  EXPECT_EQ(a.options.anchors, b.options.anchors);
  EXPECT_EQ(a.options.monotonicity, b.options.monotonicity);
  EXPECT_EQ(a.options.seed, b.options.seed);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    const auto &x = a.layers[i], &y = b.layers[i];
    EXPECT_EQ(x.layer, y.layer);
    EXPECT_EQ(x.values.curvature, y.values.curvature);
    EXPECT_EQ(x.values.monotonicity, y.values.monotonicity);
    EXPECT_EQ(x.values.effectiveRank, y.values.effectiveRank);
    EXPECT_EQ(x.curvature.low, y.curvature.low);
    EXPECT_EQ(x.effectiveRank.high, y.effectiveRank.high);
    EXPECT_EQ(x.spectrum, y.spectrum);
    EXPECT_EQ(x.localLambdaMax, y.localLambdaMax);
  }
}

TEST(GeometryReport, StoreRoundTripAndReplacement) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  testing::writeGeometryFixtureStore(file);
  EXPECT_FALSE(readGeometry(file).has_value());

  GeometryReport report = handReport();
  writeGeometry(file, report);
  expectSameReport(report, *readGeometry(file));

  report.layers.pop_back();
  report.backend = "second";
  writeGeometry(file, report);  // replaces the first
  expectSameReport(report, *readGeometry(file));
  // The store itself is untouched.
  const auto store = io::ActivationStore::open(file);
  EXPECT_EQ(store.completedLayers().size(), 5u);
}

// The normalisation is recorded (options and its own attribute), the replicates travel with
// the report, a store from before the choice reads as `trace` with percentile intervals, and
// the settings whose terms cancel leave a warning beside the stored S.
TEST(GeometryReport, StoreRecordsTheNormalisationAndTheReplicates) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  testing::writeGeometryFixtureStore(file);
  GeometryReport report = handReport();  // min-eig
  report.options.normalisation = Normalisation::Standardise;
  report.options.jackknifeBlocks = 7;
  for (auto& l : report.layers)
    for (int r = 0; r < 3; ++r)
      l.replicates.push_back({l.values.curvature + r, l.values.monotonicity, 1.0 + r});
  writeGeometry(file, report);
  const GeometryReport back = *readGeometry(file);
  EXPECT_EQ(back.options.normalisation, Normalisation::Standardise);
  EXPECT_EQ(back.options.jackknifeBlocks, 7);
  for (size_t i = 0; i < report.layers.size(); ++i) {
    ASSERT_EQ(back.layers[i].replicates.size(), 3u);
    for (size_t r = 0; r < 3; ++r) {
      EXPECT_EQ(back.layers[i].replicates[r].curvature, report.layers[i].replicates[r].curvature);
      EXPECT_EQ(back.layers[i].replicates[r].effectiveRank,
                report.layers[i].replicates[r].effectiveRank);
    }
  }

  io::hdf5::quietErrors();
  io::hdf5::File h5(H5Fopen(file.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
  ASSERT_TRUE(h5);
  io::hdf5::Group group(H5Gopen2(h5.get(), "geometry", H5P_DEFAULT));
  const io::hdf5::Location where{group.get(), file, "geometry"};
  EXPECT_EQ(io::hdf5::readStringAttribute(where, "normalisation").value_or(""), "standardise");
  const auto warnings = io::hdf5::readStringAttribute(where, "score_warnings");
  ASSERT_TRUE(warnings.has_value());  // standardise + min-eig: m_mono and k_eff cancel
  EXPECT_NE(warnings->find("cancel"), std::string::npos) << *warnings;
  EXPECT_TRUE(H5Lexists(group.get(), "score_interval", H5P_DEFAULT) > 0);
  EXPECT_TRUE(H5Lexists(group.get(), "l_star_frequency", H5P_DEFAULT) > 0);

  // An older /geometry: no attribute, options without normalisation and jackknife_blocks.
  auto options = nlohmann::json::parse(io::hdf5::readStringAttribute(where, "options").value());
  options.erase("normalisation");
  options.erase("jackknife_blocks");
  ASSERT_GE(H5Adelete(group.get(), "normalisation"), 0);
  ASSERT_GE(H5Adelete(group.get(), "options"), 0);
  io::hdf5::writeStringAttribute(where, "options", options.dump());
  group.reset();
  h5.reset();
  const GeometryReport old = *readGeometry(file);
  EXPECT_EQ(old.options.normalisation, Normalisation::Trace);
  EXPECT_EQ(old.options.jackknifeBlocks, 0);
}

TEST(GeometryReport, WritingIsRefusedWhileAWriterHoldsTheStore) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  testing::writeGeometryFixtureStore(file);
  io::WriterLock capture = io::WriterLock::forExistingFile(file);
  EXPECT_THROW(writeGeometry(file, handReport()), IoError);
  capture.release();
  EXPECT_NO_THROW(writeGeometry(file, handReport()));
}

TEST(GeometryReport, ReadingANonStoreNamesTheFile) {
  TempDir dir;
  const auto file = dir / "not-hdf5.h5";
  { std::ofstream(file) << "plain text"; }
  try {
    readGeometry(file);
    FAIL() << "expected a FormatError";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("not-hdf5.h5"), std::string::npos) << e.what();
  }
}

TEST(GeometryReport, ScanEqualsLayerByLayerComputation) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  const testing::GeometryStoreShape shape;
  testing::writeGeometryFixtureStore(file, shape);
  const auto store = io::ActivationStore::open(file);
  auto backend = makeCpuBackend();
  NullProgressSink sink;
  JobContext ctx(sink, CancellationToken());
  const GeometryReport report = scanStore(store, *backend, smallOptions(), ctx, {1, 3});
  ASSERT_EQ(report.layerIndices(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(report.numLayers, shape.layers);
  EXPECT_EQ(report.numTokens, shape.tokens);
  for (const auto& got : report.layers) {
    const auto rows = testing::geometryFixtureLayer(shape, got.layer);
    const LayerGeometry direct = computeLayerGeometry(
        *backend, {rows.data(), shape.tokens, shape.hidden}, got.layer, smallOptions());
    EXPECT_DOUBLE_EQ(got.values.curvature, direct.values.curvature);
    EXPECT_DOUBLE_EQ(got.values.monotonicity, direct.values.monotonicity);
    EXPECT_DOUBLE_EQ(got.values.effectiveRank, direct.values.effectiveRank);
    EXPECT_DOUBLE_EQ(got.curvature.low, direct.curvature.low);
  }
  // Faster spectral decay with depth: layer 3 is lower-dimensional than layer 1.
  EXPECT_LT(report.layers[1].values.effectiveRank, report.layers[0].values.effectiveRank);
}

TEST(GeometryReport, ScanRefusesMissingLayersAndStopsWhenCancelled) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  testing::writeGeometryFixtureStore(file);
  const auto store = io::ActivationStore::open(file);
  auto backend = makeCpuBackend();
  NullProgressSink sink;
  CancellationToken token;
  JobContext ctx(sink, token);
  EXPECT_THROW(scanStore(store, *backend, smallOptions(), ctx, {9}), FormatError);
  token.cancel();
  EXPECT_THROW(scanStore(store, *backend, smallOptions(), ctx), CancelledError);
}

}  // namespace
}  // namespace strata::geometry
