// `strata-cli score` end to end: the real binary scores a store, prints the table, JSON and
// CSV, writes /geometry, and refuses bad usage clearly.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "support/cli_runner.h"
#include "support/geometry_store_fixture.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

const std::string kSmall =
    " --anchors 64 --neighbours 8 --directions 64 --bootstrap 3 --spectrum 5";

TEST(CliScore, JsonAgreesWithTheStoredGeometryAndTheScore) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto run =
      testing::runCliSplit("score --store " + store.string() + kSmall + " --json --device cpu");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  ASSERT_EQ(doc["layers"].size(), 5u);
  EXPECT_EQ(doc["candidates"], nlohmann::json::array({1, 3}));
  EXPECT_EQ(doc["options"]["bootstrap_resamples"], 3);

  const auto stored = geometry::readGeometry(store);
  ASSERT_TRUE(stored.has_value()) << "the scores were not written into the store";
  ASSERT_EQ(stored->layers.size(), 5u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(doc["layers"][i]["m_curv"].get<double>(), stored->layers[i].values.curvature);
    EXPECT_DOUBLE_EQ(doc["layers"][i]["k_eff"].get<double>(),
                     stored->layers[i].values.effectiveRank);
    EXPECT_LE(doc["layers"][i]["k_eff_interval"][0].get<double>(),
              doc["layers"][i]["k_eff_interval"][1].get<double>());
  }
  const auto scores =
      geometry::scoreLayers(stored->layerIndices(), geometry::metricSeries(*stored), {}, {1, 3});
  EXPECT_EQ(doc["l_star"].get<int64_t>(), stored->layers[size_t(scores.bestIndex)].layer);
}

TEST(CliScore, TheStoreKeepsSUnderTheWeightsAndCandidatesItPrinted) {
  std::string why;
  const std::string python = testing::findPython({"h5py"}, "run scripts/setup.sh", why);
  if (python.empty()) GTEST_SKIP() << why;
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto run = testing::runCliSplit("score --store " + store.string() + kSmall +
                                        " --weights 1,0,2 --candidates 0..4 --json --device cpu");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  const auto printed = nlohmann::json::parse(run.out);

  // h5py, not Strata, reads back what the store holds.
  const std::string script =
      "import h5py, json, sys\n"
      "g = h5py.File(sys.argv[1], 'r')['geometry']\n"
      "text = lambda a: a.decode() if isinstance(a, bytes) else a\n"
      "print(json.dumps({'score': [None if x != x else float(x) for x in g['score'][:]],\n"
      "  'weights': json.loads(text(g.attrs['score_weights'])),\n"
      "  'candidates': json.loads(text(g.attrs['score_candidates']))}))\n";
  const auto scriptFile = dir / "read_geometry.py";
  std::ofstream(scriptFile) << script;
  FILE* pipe = popen((python + " " + scriptFile.string() + " " + store.string()).c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string text;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe)) text += buffer.data();
  ASSERT_EQ(pclose(pipe), 0) << text;
  const auto stored = nlohmann::json::parse(text);

  EXPECT_EQ(stored["candidates"], nlohmann::json::array({0, 4})) << text;
  EXPECT_EQ(stored["weights"]["curvature"], 1.0) << text;
  EXPECT_EQ(stored["weights"]["monotonicity"], 0.0);
  EXPECT_EQ(stored["weights"]["effective_rank"], 2.0);
  ASSERT_EQ(stored["score"].size(), printed["layers"].size());
  for (size_t i = 0; i < printed["layers"].size(); ++i) {
    const auto& want = printed["layers"][i]["score"];
    const auto& got = stored["score"][i];
    ASSERT_EQ(got.is_null(), want.is_null()) << "layer " << i;
    if (!want.is_null()) {
      EXPECT_NEAR(got.get<double>(), want.get<double>(), 1e-12) << "layer " << i;
    }
  }
}

TEST(CliScore, TableMarksLStarAndCsvHasOneRowPerLayer) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto csv = dir / "scores.csv";
  const auto run =
      testing::runCliSplit("score --store " + store.string() + kSmall +
                           " --weights 1,0,2 --candidates 0..4 --no-write --csv " + csv.string());
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("<- l*"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("over candidates 0..4"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("w_k=2"), std::string::npos) << run.out;
  EXPECT_FALSE(geometry::readGeometry(store).has_value())
      << "--no-write must leave the store alone";

  // The is_l_star column by its header (plugin metrics' columns follow it).
  const auto cells = [](const std::string& text) {
    std::vector<std::string> out;
    std::stringstream row(text);
    for (std::string cell; std::getline(row, cell, ',');) out.push_back(cell);
    return out;
  };
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("layer,m_curv,", 0), 0u) << line;
  const std::vector<std::string> header = cells(line);
  const auto column = std::find(header.begin(), header.end(), "is_l_star") - header.begin();
  ASSERT_LT(column, static_cast<std::ptrdiff_t>(header.size())) << line;
  int rows = 0, starred = 0;
  while (std::getline(in, line)) {
    ++rows;
    starred += cells(line).at(column) == "1";
  }
  EXPECT_EQ(rows, 5);
  EXPECT_EQ(starred, 1);
}

// --normalise is recorded in the JSON, the CSV and the store; S has an interval and every
// candidate an l* frequency (they sum to 1 here); min-eig under the default (standardise) warns
// that two terms cancel, on stderr and in the JSON warnings, and `none` does not.
TEST(CliScore, NormalisationIntervalsOfSAndTheCancellationWarning) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  auto run = testing::runCliSplit("score --store " + store.string() + kSmall +
                                  " --normalise none --monotonicity min-eig --json --device cpu");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["options"]["normalisation"], "none");
  EXPECT_EQ(doc["options"]["proxy_interval"], "bca");
  EXPECT_TRUE(doc["score_warnings"].empty());
  EXPECT_EQ(run.err.find("cancel"), std::string::npos) << run.err;
  EXPECT_EQ(geometry::readGeometry(store)->options.normalisation, geometry::Normalisation::None);
  double frequencies = 0;
  for (const auto& layer : doc["layers"]) {
    if (layer["score"].is_null()) continue;
    EXPECT_LE(layer["score_interval"][0].get<double>(), layer["score_interval"][1].get<double>());
    frequencies += layer["l_star_frequency"].get<double>();
  }
  EXPECT_NEAR(frequencies, 1.0, 1e-12);

  run = testing::runCliSplit("score --store " + store.string() + kSmall +
                             " --monotonicity min-eig --json --no-write --device cpu");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["options"]["normalisation"], "standardise");  // the default
  ASSERT_EQ(doc["score_warnings"].size(), 1u);
  EXPECT_NE(run.err.find("terms of S cancel"), std::string::npos) << run.err;
  bool inWarnings = false;
  for (const auto& w : doc["warnings"])
    inWarnings = inWarnings || (w["proxy"] == "S" && w["layer"].is_null());
  EXPECT_TRUE(inWarnings) << doc["warnings"].dump();

  run = testing::runCliSplit("score --store " + store.string() + kSmall +
                             " --normalise standardise --no-write --device cpu --csv -");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("l_star_frequency,normalisation,rank,is_l_star"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(",standardise,"), std::string::npos) << run.out;
  run = testing::runCliSplit("score --store " + store.string() + " --normalise unit");
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.err.find("none, trace or standardise"), std::string::npos) << run.err;
}

TEST(CliScore, CapturesFirstFromAModelAndCorpus) {
  TempDir dir;
  testing::writeRandomBackbone(dir / "model");
  testing::writeLetterTokenizer(dir / "model");
  testing::writeLetterCorpus(dir / "corpus.txt");
  const auto run = testing::runCliSplit(
      "score --model " + (dir / "model").string() + " --corpus " + (dir / "corpus.txt").string() +
      " --tokens 120 --seq-len 16 --out " + (dir / "acts.h5").string() + kSmall + " --json");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_EQ(doc["layers"].size(), size_t(testing::kRandomLayers + 1));
  EXPECT_EQ(doc["num_tokens"], 120);
  EXPECT_TRUE(geometry::readGeometry(dir / "acts.h5").has_value());
}

TEST(CliScore, BadUsageIsExplained) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const std::string base = "score --store " + store.string();
  const auto neither = testing::runCli("score --json");
  EXPECT_EQ(neither.exitCode, 2) << neither.out;
  EXPECT_NE(neither.out.find("--store"), std::string::npos) << neither.out;
  const auto weights = testing::runCli(base + " --weights 1,2");
  EXPECT_EQ(weights.exitCode, 2) << weights.out;
  EXPECT_NE(weights.out.find("--weights"), std::string::npos) << weights.out;
  const auto device = testing::runCli(base + " --device tpu");
  EXPECT_EQ(device.exitCode, 2) << device.out;
  const auto k = testing::runCli(base + " --neighbours 0");
  EXPECT_EQ(k.exitCode, 2) << k.out;
  // A refused proxy option is named as it was typed, not by its field in ProxyOptions.
  for (const auto& [bad, said] : std::vector<std::pair<std::string, std::string>>{
           {" --neighbours 1", "--neighbours: must be at least 2 (got 1)"},
           {" --bootstrap -1", "--bootstrap: must be 0 or more (got -1)"},
           {" --ridge 0", "--ridge: must be finite and positive"},
           {" --spectrum 0", "--spectrum: must be at least 1 (got 0)"},
           {" --jackknife-blocks 1", "--jackknife-blocks: must be 0 (percentile intervals) or"},
           {" --normalise sideways", "--normalise: unknown normalisation 'sideways'"},
           {" --monotonicity max", "--monotonicity: unknown mode 'max'"}}) {
    const auto refused = testing::runCli(base + bad);
    EXPECT_EQ(refused.exitCode, 2) << bad << ": " << refused.out;
    EXPECT_NE(refused.out.find(said), std::string::npos) << bad << ": " << refused.out;
  }
  // A range that names no layer, or is not one, is refused (it once scored every layer, or the
  // default candidates, without a word).
  for (const std::string& bad : {" --layers 3..1", " --candidates 3..1", " --layers 1x..2",
                                 " --layers -1..2", " --candidates 1..", " --layers 1.5"}) {
    const auto range = testing::runCli(base + bad + " --no-write");
    EXPECT_EQ(range.exitCode, 2) << bad << ": " << range.out;
    EXPECT_NE(range.out.find(bad.substr(1, bad.find(' ', 1) - 1)), std::string::npos) << range.out;
    EXPECT_EQ(range.out.find("l* ="), std::string::npos) << bad << " was scored: " << range.out;
  }
  // Layers the store lacks and candidates beyond it are refused before the scan is planned.
  for (const auto& [bad, why] : std::vector<std::pair<std::string, std::string>>{
           {" --layers 3..9", "layer 5 is not in the store"},
           {" --candidates 1..100", "candidates 1..100 reach beyond the model"},
           {" --layers 0..1 --candidates 3..4", "hold none of the layers scored"}}) {
    const auto run = testing::runCliSplit(base + bad + " --no-write");
    EXPECT_EQ(run.exitCode, 1) << bad << ": " << run.err;
    EXPECT_NE(run.err.find(why), std::string::npos) << bad << ": " << run.err;
    EXPECT_NE(run.err.find("acts.h5"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("memory plan"), std::string::npos) << bad << ": " << run.err;
    EXPECT_EQ(run.out.find("l* ="), std::string::npos) << bad << " was scored: " << run.out;
  }
  const auto missing = testing::runCli("score --store " + (dir / "absent.h5").string());
  EXPECT_EQ(missing.exitCode, 1) << missing.out;
  EXPECT_NE(missing.out.find("absent.h5"), std::string::npos) << missing.out;
}

TEST(CliScore, CudaWithoutADeviceSaysWhy) {
  std::string why;
  if (geometry::cudaBackendAvailable(&why)) GTEST_SKIP() << "a CUDA device is present";
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto run = testing::runCli("score --store " + store.string() + " --device cuda");
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find("cannot use --device cuda"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace strata
