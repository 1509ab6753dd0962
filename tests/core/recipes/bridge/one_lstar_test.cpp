// One l* everywhere: a store scored under other weights (strata-cli score --weights) keeps them
// in /geometry, and every reader of the store — the bridge recipe choosing its layer without
// `layer=`, a bridge sweep and the GUI's best-layer text — picks the l* that `score` printed,
// not the one of the default weights.

#include <gtest/gtest.h>

#include <regex>

#include "common/job.h"
#include "engine/capture.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/store_scoring.h"
#include "recipes/bridge/bridge_layer.h"
#include "recipes/bridge/bridge_sweep.h"
#include "studies/comparison_studies.h"
#include "support/bridge_fixture.h"
#include "support/cli_runner.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::recipes {
namespace {

namespace fs = std::filesystem;

/** The l* `strata-cli score` printed ("l* = N over candidates ..."); -1 when none. */
int64_t printedLstar(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("l\\* = (\\d+) over candidates")) ? std::stoll(m[1])
                                                                                : -1;
}

TEST(OneLstar, EveryReaderPicksTheLayerScorePrinted) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  engine::CaptureConfig capture;
  capture.modelFolder = testing::defaultModelFolder();
  capture.corpus = dir / "corpus.txt";
  capture.output = dir / "acts.h5";
  capture.sampling.tokenBudget = 512;
  capture.sampling.sequenceLength = 33;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::runCapture(capture, job);

  // Scored with the default weights first, then with weights whose l* differs.
  const std::string store = (dir / "acts.h5").string();
  const auto defaults = testing::runCli("score --store " + store + " --bootstrap 0");
  ASSERT_EQ(defaults.exitCode, 0) << defaults.out;
  const int64_t defaultLstar = printedLstar(defaults.out);
  ASSERT_GE(defaultLstar, 1) << defaults.out;
  std::string weights;
  int64_t lstar = -1;
  for (const std::string w : {"0,0,1", "1,0,0", "0,1,0"}) {
    const auto scored = testing::runCli("score --store " + store + " --bootstrap 0 --weights " + w);
    ASSERT_EQ(scored.exitCode, 0) << scored.out;
    if (printedLstar(scored.out) != defaultLstar) {
      weights = w;
      lstar = printedLstar(scored.out);
      break;
    }
  }
  ASSERT_GE(lstar, 1) << "no single-proxy weighting moves l* off " << defaultLstar
                      << " on this store: the test cannot tell the weights apart";

  // The store keeps the weights it was scored with.
  const auto report = geometry::readGeometry(dir / "acts.h5");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->scoredWith.weights.size(), geometry::metricSeries(*report).size());
  // The bridge recipe without layer= (resolveBridgeLayer) reads this.
  EXPECT_EQ(bestLayerOfStore(dir / "acts.h5"), lstar) << "weights " << weights;
  // The GUI's best-layer text and every other reader score as stored.
  const geometry::ScoredGeometry asStored = geometry::scoreReport(*report, report->scoredWith);
  EXPECT_EQ(report->layers[size_t(asStored.scores.bestIndex)].layer, lstar);

  // A bridge sweep over the candidates ranks by the stored weights: its top-scored layer is l*.
  BridgeSweepConfig sweep;
  sweep.model = testing::defaultModelFolder();
  sweep.corpus = dir / "corpus.txt";
  sweep.store = dir / "acts.h5";
  sweep.folder = dir / "sweep";
  sweep.firstLayer = report->scoredWith.candidates->first;
  sweep.lastLayer = report->scoredWith.candidates->last;
  sweep.steps = 2;
  sweep.permutations = 10;
  sweep.settings = {"batch=2",  "seq_len=16",     "width=16",        "depth=1",
                    "heads=2",  "eval_windows=1", "stats_windows=2", "sample_steps=1",
                    "warmup=1", "log_every=1"};
  const BridgeSweepResult result = studies::runBridgeSweep(sweep, job);
  EXPECT_EQ(result.bestByScore, lstar);
}

}  // namespace
}  // namespace strata::recipes
