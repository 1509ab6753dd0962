// Loading plugins (core/plugin): the real ones from the build tree, test-only broken ones
// (tests/plugins) reported by name and skipped, discovery through STRATA_PLUGIN_PATH, a scan
// whose plugin metrics are stored and read back, the score with a plugin weight, and
// `strata-cli plugins` / `strata-cli score` with plugins.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/job.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/score.h"
#include "io/store/activation_store.h"
#include "plugin/plugin_metric.h"
#include "support/cli_runner.h"
#include "support/geometry_store_fixture.h"
#include "support/plugin_test_support.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

const plugin::PluginSet& testPlugins() {
  static const plugin::PluginSet set = plugin::loadPlugins({STRATA_TEST_PLUGIN_DIR});
  return set;
}

const plugin::PluginFailure* failureNamed(const plugin::PluginSet& set, const std::string& name) {
  for (const auto& f : set.failures)
    if (f.name == name) return &f;
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PluginLoader, LoadsTheBuiltTwoNNCkaAndTunedLensPlugins) {
  const auto& set = testing::builtPlugins();
  for (const auto& f : set.failures) ADD_FAILURE() << f.file << ": " << f.reason;
  ASSERT_EQ(set.plugins.size(), 3u);
  EXPECT_EQ(set.plugins[0].name,
            "cka");  // files sorted: libstrata_cka.so, ..._tuned_lens, ..._twonn
  EXPECT_EQ(set.plugins[1].name, "tuned_lens");
  EXPECT_EQ(set.plugins[2].name, "twonn");
  ASSERT_NE(set.findMetric("twonn_id"), nullptr);
  EXPECT_EQ(set.findMetric("twonn_id")->info.source, set.plugins[2].file.string());
  const plugin::RecipeEntry* lens = set.findRecipe("tuned_lens");
  ASSERT_NE(lens, nullptr);
  EXPECT_EQ(lens->pluginName, "tuned_lens");
  EXPECT_EQ(lens->file, set.plugins[1].file);
  EXPECT_NE(lens->run, nullptr);
  EXPECT_EQ(lens->settings.front().name, "store");
}

TEST(PluginLoader, ReportsEachBrokenPluginByNameAndSkipsIt) {
  const auto& set = testPlugins();
  std::vector<std::string> loaded;
  for (const auto& p : set.plugins) loaded.push_back(p.name);
  // Loaded: the good ones (one built for the oldest ABI) and the two whose failures only show
  // when a metric runs.
  EXPECT_EQ(loaded,
            (std::vector<std::string>{"abi_one", "compute_throws", "error_return", "good"}));
  const std::pair<const char*, const char*> expected[] = {
      {"wrong_abi", "ABI version 3, this Strata loads versions 1 to 2"},
      {"entry_throws", "entry point exploded"},
      {"no_entry", "strata_plugin_entry"},
      {"bad_name", "[A-Za-z0-9_.-]"},
      {"no_run", "recipe 'idle' has no run function"}};
  for (const auto& [name, reason] : expected) {
    const auto* f = failureNamed(set, name);
    ASSERT_NE(f, nullptr) << name << " was not reported";
    EXPECT_TRUE(contains(f->reason, reason)) << name << ": " << f->reason;
    EXPECT_EQ(f->file.filename(), std::string(name) + ".so");
  }
  EXPECT_EQ(set.failures.size(), 5u);
}

TEST(PluginLoader, ReportsAFileThatIsNoSharedObject) {
  TempDir dir;
  std::ofstream(dir / "garbage.so") << "not an ELF file";
  const auto set = plugin::loadPlugins({dir.path(), dir / "missing-folder"});
  EXPECT_TRUE(set.plugins.empty());
  ASSERT_EQ(set.failures.size(), 1u);
  EXPECT_EQ(set.failures[0].name, "garbage");
  EXPECT_TRUE(contains(set.failures[0].reason, "cannot be loaded")) << set.failures[0].reason;
}

TEST(PluginLoader, KeepsTheFirstOfTwoPluginsWithTheSameName) {
  TempDir dir;
  const auto built = testing::builtPlugins().plugins;
  const auto twonn =
      std::find_if(built.begin(), built.end(), [](const auto& p) { return p.name == "twonn"; });
  ASSERT_NE(twonn, built.end()) << "the twonn plugin was not built";
  const auto original = twonn->file;
  std::filesystem::copy_file(original, dir / "copy_of_twonn.so");
  const auto set = plugin::loadPlugins({dir.path(), STRATA_PLUGIN_BUILD_DIR});
  ASSERT_EQ(set.plugins.size(), 3u);
  EXPECT_EQ(set.findMetric("twonn_id")->info.source, (dir / "copy_of_twonn.so").string());
  ASSERT_EQ(set.failures.size(), 1u);
  EXPECT_EQ(set.failures[0].file, original);
  EXPECT_TRUE(contains(set.failures[0].reason, "already loaded")) << set.failures[0].reason;
}

TEST(PluginLoader, SearchesStrataPluginPathFirst) {
  ::setenv("STRATA_PLUGIN_PATH", "/tmp/strata-a:/tmp/strata-b", 1);
  const auto folders = plugin::pluginFolders();
  ::unsetenv("STRATA_PLUGIN_PATH");
  ASSERT_GE(folders.size(), 3u);
  EXPECT_EQ(folders[0], "/tmp/strata-a");
  EXPECT_EQ(folders[1], "/tmp/strata-b");
  EXPECT_NE(std::find(folders.begin(), folders.end(),
                      std::filesystem::weakly_canonical(STRATA_PLUGIN_BUILD_DIR)),
            folders.end());
}

TEST(PluginMetric, TurnsAnErrorReturnIntoANamedError) {
  plugin::PluginMetric metric(*testPlugins().findMetric("fails_always"));
  const std::vector<float> rows(12, 1.0f);
  try {
    metric.compute({rows.data(), 4, 3}, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "fails_always")) << e.what();
    EXPECT_TRUE(contains(e.what(), "error_return.so")) << e.what();
    EXPECT_TRUE(contains(e.what(), "deliberate failure")) << e.what();
  }
}

TEST(PluginMetric, CatchesAnExceptionThatEscapesThePlugin) {
  plugin::PluginMetric metric(*testPlugins().findMetric("throws_always"));
  const std::vector<float> rows(12, 1.0f);
  try {
    metric.compute({rows.data(), 4, 3}, nullptr);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(contains(e.what(), "throws_always")) << e.what();
    EXPECT_TRUE(contains(e.what(), "deliberate exception")) << e.what();
  }
}

TEST(PluginMetric, RefusesAnOptionTheMetricDoesNotDeclare) {
  EXPECT_THROW(plugin::PluginMetric(*testing::builtPlugins().findMetric("twonn_id"), "k=3"),
               ConfigError);
  EXPECT_THROW(plugin::PluginMetric(*testing::builtPlugins().findMetric("twonn_id"), "estimator"),
               ConfigError);
  EXPECT_NO_THROW(plugin::PluginMetric(*testing::builtPlugins().findMetric("twonn_id"),
                                       "estimator=mle\ndiscard=0.2"));
}

/** Records warnings, for the scan's reports of failing metrics. */
class RecordingSink final : public ProgressSink {
 public:
  void progress(double, const std::string&) override {}
  void message(MessageLevel level, const std::string& text) override {
    if (level == MessageLevel::Warning) warnings.push_back(text);
  }
  std::vector<std::string> warnings;
};

geometry::ProxyOptions smallOptions() {
  geometry::ProxyOptions o;
  o.normalisation = geometry::Normalisation::Trace;  // what this test's expectations assume
  o.anchors = 40;
  o.neighbours = 6;
  o.directions = 40;
  o.spectrumSize = 4;
  o.bootstrapResamples = 0;
  return o;
}

TEST(PluginScan, StoresPluginMetricsAndReadsThemBack) {
  TempDir dir;
  const auto file = dir / "acts.h5";
  const testing::GeometryStoreShape shape;
  testing::writeGeometryFixtureStore(file, shape);
  auto metrics = plugin::makePluginMetrics(testing::builtPlugins());
  auto failing = std::make_unique<plugin::PluginMetric>(*testPlugins().findMetric("fails_always"));
  auto pointers = plugin::pointers(metrics);
  pointers.push_back(failing.get());

  RecordingSink sink;
  JobContext ctx(sink, CancellationToken());
  auto backend = geometry::makeCpuBackend();
  geometry::GeometryReport report;
  {
    const io::ActivationStore store = io::ActivationStore::open(file);
    // Layers 2..4: layer 2's CKA still compares with layer 1, read from the store.
    report = geometry::scanStore(store, *backend, smallOptions(), ctx, {2, 3, 4}, pointers);
  }  // closed before writeGeometry opens the file for writing
  ASSERT_EQ(report.pluginMetrics.size(), 3u);
  EXPECT_EQ(report.pluginMetrics[0].name, "cka_prev");
  EXPECT_EQ(report.pluginMetrics[1].name, "twonn_id");
  EXPECT_EQ(report.pluginMetrics[2].name, "fails_always");
  ASSERT_EQ(sink.warnings.size(), 3u) << "one warning per layer for the failing metric";
  EXPECT_TRUE(contains(sink.warnings[0], "fails_always")) << sink.warnings[0];

  for (size_t i = 0; i < 3; ++i) {
    const auto& layer = report.layers[i];
    ASSERT_EQ(layer.pluginValues.size(), 3u);
    EXPECT_TRUE(std::isnan(layer.pluginValues[2]));
    // The scan hands the plugins normalised rows; CKA and TwoNN do not mind, so the values
    // equal those of the raw rows.
    const auto rows = testing::geometryFixtureLayer(shape, layer.layer);
    const auto before = testing::geometryFixtureLayer(shape, layer.layer - 1);
    EXPECT_NEAR(layer.pluginValues[0],
                testing::runBuiltMetric("cka_prev", rows, shape.tokens, shape.hidden, &before,
                                        shape.hidden),
                1e-5);
    EXPECT_NEAR(layer.pluginValues[1],
                testing::runBuiltMetric("twonn_id", rows, shape.tokens, shape.hidden), 1e-3);
  }

  geometry::writeGeometry(file, report);
  const auto back = geometry::readGeometry(file);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->pluginMetrics.size(), 3u);
  for (size_t m = 0; m < 3; ++m) {
    EXPECT_EQ(back->pluginMetrics[m].name, report.pluginMetrics[m].name);
    EXPECT_EQ(back->pluginMetrics[m].higherIsBetter, report.pluginMetrics[m].higherIsBetter);
    EXPECT_EQ(back->pluginMetrics[m].source, report.pluginMetrics[m].source);
    for (size_t i = 0; i < 3; ++i) {
      const double a = report.layers[i].pluginValues[m], b = back->layers[i].pluginValues[m];
      EXPECT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << m << "," << i;
    }
  }
}

TEST(PluginScore, APluginWeightAddsItsSignedZScore) {
  const std::vector<int64_t> layers{1, 2, 3};
  const std::vector<geometry::ProxyValues> values{{1, 1, 1}, {2, 1, 3}, {1, 2, 2}};
  const geometry::LayerRange all{1, 3};
  const auto proxies = geometry::proxySeries(values);
  // One plugin metric after the proxies, in the same list.
  const auto with = [&](std::vector<double> metric, bool higherIsBetter) {
    auto series = proxies;
    series.push_back(
        geometry::pluginMetricSeries({"p", "", higherIsBetter, ""}, std::move(metric)));
    return series;
  };
  const auto base = geometry::scoreLayers(layers, proxies, {}, all);
  // Weight 0 (its default): nothing changes, even with a NaN in the metric.
  const auto same = geometry::scoreLayers(layers, with({NAN, 5, 6}, true), {}, all);
  EXPECT_EQ(same.score, base.score);
  // Proxy weights 0 and plugin weight 2: S = ±2·z(p); z of {1, 2, 3} is {−1.2247, 0, 1.2247}.
  const geometry::ScoreWeights pluginOnly{0, 0, 0, 2};
  const auto up = geometry::scoreLayers(layers, with({1, 2, 3}, true), pluginOnly, all);
  const auto down = geometry::scoreLayers(layers, with({1, 2, 3}, false), pluginOnly, all);
  EXPECT_NEAR(up.score[2], 2 * std::sqrt(1.5), 1e-12);
  EXPECT_NEAR(down.score[2], -2 * std::sqrt(1.5), 1e-12);
  EXPECT_EQ(up.bestIndex, 2);
  EXPECT_EQ(down.bestIndex, 0);
  // A weighted metric that is NaN on a layer leaves that layer unscored.
  const auto gap = geometry::scoreLayers(layers, with({NAN, 2, 3}, true), {1, 1, 1, 1}, all);
  EXPECT_TRUE(std::isnan(gap.score[0]));
  EXPECT_EQ(gap.rank[0], 0);
}

/** strata-cli with STRATA_PLUGIN_PATH = the test-only plugins (the child inherits it). */
testing::CommandOutput withTestPlugins(const std::string& arguments) {
  ::setenv("STRATA_PLUGIN_PATH", STRATA_TEST_PLUGIN_DIR, 1);
  auto result = testing::runCliSplit(arguments);
  ::unsetenv("STRATA_PLUGIN_PATH");
  return result;
}

const std::string kSmall =
    " --anchors 40 --neighbours 6 --directions 40 --bootstrap 0 --spectrum 4 --device cpu";

TEST(CliPlugins, ListsPluginsAndNamesTheFailures) {
  const auto run = testing::runCliSplit("plugins");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_TRUE(contains(run.out, "metric twonn_id (lower is better)")) << run.out;
  EXPECT_TRUE(contains(run.out, "metric cka_prev (higher is better)")) << run.out;
  EXPECT_TRUE(contains(run.out, "option estimator=fit")) << run.out;

  const auto broken = withTestPlugins("plugins --json");
  ASSERT_EQ(broken.exitCode, 0) << broken.out << broken.err;
  const auto doc = nlohmann::json::parse(broken.out);
  EXPECT_EQ(doc["folders"][0], STRATA_TEST_PLUGIN_DIR);
  std::vector<std::string> names, failed;
  for (const auto& p : doc["plugins"]) names.push_back(p["name"]);
  for (const auto& f : doc["failures"]) failed.push_back(f["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"abi_one", "compute_throws", "error_return", "good",
                                             "cka", "tuned_lens", "twonn"}));
  EXPECT_EQ(failed, (std::vector<std::string>{"bad_name", "entry_throws", "no_entry", "no_run",
                                              "wrong_abi"}));
  EXPECT_EQ(doc["plugins"][3]["recipes"][0]["name"], "echo");
  EXPECT_EQ(doc["plugins"][3]["recipes"][0]["settings"][0]["name"], "greeting");
  EXPECT_EQ(doc["plugins"][3]["recipes"][0]["plans_memory"], true);
  EXPECT_EQ(doc["plugins"][0]["recipes"][0]["name"], "echo_v1");  // built for ABI 1
  EXPECT_EQ(doc["plugins"][0]["recipes"][0]["plans_memory"], false);
}

TEST(CliPlugins, ScoreShowsPluginColumnsAndWeighsThem) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto plain = testing::runCliSplit("score --store " + store.string() + kSmall + " --json");
  ASSERT_EQ(plain.exitCode, 0) << plain.err;
  const auto weighted = testing::runCliSplit("score --store " + store.string() + kSmall +
                                             " --json --plugin-weights twonn_id=1.5,cka_prev=0.5");
  ASSERT_EQ(weighted.exitCode, 0) << weighted.err;
  const auto a = nlohmann::json::parse(plain.out), b = nlohmann::json::parse(weighted.out);
  ASSERT_EQ(b["plugin_metrics"].size(), 2u);
  EXPECT_EQ(b["plugin_metrics"][1]["name"], "twonn_id");
  EXPECT_EQ(b["plugin_metrics"][1]["weight"], 1.5);
  EXPECT_EQ(a["plugin_metrics"][1]["weight"], 0.0);

  // The CLI's S equals scoreLayers over the stored report with the same weights.
  const auto stored = geometry::readGeometry(store);
  ASSERT_TRUE(stored.has_value());
  ASSERT_EQ(stored->pluginMetrics.size(), 2u);
  const auto series = geometry::metricSeries(*stored);
  const auto scores = geometry::scoreLayers(stored->layerIndices(), series, {1, 1, 1, 0.5, 1.5},
                                            geometry::defaultCandidates(stored->numLayers));
  const auto base = geometry::scoreLayers(stored->layerIndices(), series, {},
                                          geometry::defaultCandidates(stored->numLayers));
  bool differs = false;
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_NEAR(b["layers"][i]["score"].get<double>(), scores.score[i], 1e-9);
    EXPECT_NEAR(a["layers"][i]["score"].get<double>(), base.score[i], 1e-9);
    EXPECT_DOUBLE_EQ(b["layers"][i]["plugin_metrics"]["twonn_id"].get<double>(),
                     stored->layers[i].pluginValues[1]);
    differs = differs || std::abs(scores.score[i] - base.score[i]) > 1e-6;
  }
  EXPECT_TRUE(differs) << "the plugin weights changed no score";
  EXPECT_TRUE(b["layers"][0]["plugin_metrics"]["cka_prev"].is_null()) << "layer 0 has no layer -1";

  const auto csv =
      testing::runCliSplit("score --store " + store.string() + kSmall + " --csv - --no-write");
  ASSERT_EQ(csv.exitCode, 0) << csv.err;
  EXPECT_TRUE(contains(csv.out.substr(0, csv.out.find('\n')), ",is_l_star,cka_prev,twonn_id"))
      << csv.out;
  const auto table =
      testing::runCliSplit("score --store " + store.string() + kSmall + " --no-write");
  EXPECT_TRUE(contains(table.out, "twonn_id")) << table.out;
  EXPECT_TRUE(contains(table.out, "w_twonn_id=0(-)")) << table.out;

  const auto unknown =
      testing::runCliSplit("score --store " + store.string() + kSmall + " --plugin-weights nope=1");
  EXPECT_EQ(unknown.exitCode, 2);
  EXPECT_TRUE(contains(unknown.err, "nope")) << unknown.err;
}

TEST(CliPlugins, AFailingPluginNeverStopsTheScore) {
  TempDir dir;
  const auto store = dir / "acts.h5";
  testing::writeGeometryFixtureStore(store);
  const auto run = withTestPlugins("score --store " + store.string() + kSmall + " --json");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_TRUE(contains(run.err, "wrong_abi")) << run.err;      // skipped at start-up
  EXPECT_TRUE(contains(run.err, "throws_always")) << run.err;  // failed per layer
  EXPECT_TRUE(contains(run.err, "deliberate exception")) << run.err;
  const auto doc = nlohmann::json::parse(run.out);
  EXPECT_TRUE(doc["layers"][1]["plugin_metrics"]["throws_always"].is_null());
  EXPECT_TRUE(doc["layers"][1]["plugin_metrics"]["first_mean"].is_number());
}

TEST(CliPlugins, TrainHelpListsPluginRecipes) {
  const auto help = withTestPlugins("train --help");
  EXPECT_TRUE(contains(help.out, "echo")) << help.out;
}

}  // namespace
}  // namespace strata
