#include "bridge_fixture.h"

#include <QDir>
#include <QFile>

#include "common/job.h"
#include "engine/capture.h"
#include "engine/recipe_catalog.h"
#include "engine/training_run.h"
#include "geometry/backend.h"
#include "geometry/geometry_report.h"
#include "io/store/activation_store.h"
#include "plugin/plugin_loader.h"
#include "plugin/plugin_metric.h"

namespace strata::test {
namespace {

std::filesystem::path fsPath(const QString& path) {
  return std::filesystem::path(QFile::encodeName(path).toStdString());
}

}  // namespace

QString defaultModelFolder() {
  return QDir::cleanPath(QStringLiteral(STRATA_SOURCE_DIR "/resources/models/default"));
}

void writeCodeCorpus(const QString& file) {
  QFile out(file);
  if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write the corpus");
  for (int i = 0; i < 120; ++i)
    out.write(QStringLiteral("def add_%1(x, y):\n    total = x + y * %1\n    return total\n\n")
                  .arg(i)
                  .toUtf8());
}

void writeScoredStore(const QString& store, const QString& corpus, int64_t tokens,
                      const ScoredStoreExtras& extras) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::CaptureConfig capture;
  capture.modelFolder = fsPath(defaultModelFolder());
  capture.corpus = fsPath(corpus);
  capture.output = fsPath(store);
  capture.overwrite = true;
  capture.sampling.tokenBudget = tokens;
  capture.sampling.sequenceLength = 64;
  engine::runCapture(capture, job);
  geometry::ProxyOptions options;
  options.anchors = 64;
  options.neighbours = 8;
  options.directions = 64;
  options.bootstrapResamples = extras.bootstrapResamples;
  // The installed plugins include the build tree's (twonn_id, cka_prev), as in the workbench.
  const auto metrics = extras.pluginMetrics ? plugin::makePluginMetrics(plugin::installedPlugins())
                                            : std::vector<std::unique_ptr<geometry::LayerMetric>>{};
  const auto backend = geometry::makeGeometryBackend(geometry::DeviceChoice::Cpu);
  geometry::GeometryReport report;
  {  // closed before /geometry is written into the same file
    const io::ActivationStore activations = io::ActivationStore::open(capture.output);
    report =
        geometry::scanStore(activations, *backend, options, job, {}, plugin::pointers(metrics));
  }
  geometry::writeGeometry(capture.output, report);
}

void trainTinyBridge(const QString& run, const QString& corpus, int64_t layer) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  engine::TrainingRequest request;
  request.recipe = "bridge";
  request.config = engine::ResolvedConfig(engine::recipeSchema("bridge"));
  const std::pair<const char*, engine::SettingValue> settings[] = {
      {"model", defaultModelFolder().toStdString()},
      {"corpus", corpus.toStdString()},
      {"layer", layer},
      {"steps", int64_t{10}},
      {"batch", int64_t{4}},
      {"seq_len", int64_t{16}},
      {"width", int64_t{16}},
      {"depth", int64_t{1}},
      {"heads", int64_t{2}},
      {"mlp_ratio", int64_t{2}},
      {"sample_steps", int64_t{2}},
      {"log_every", int64_t{1}},
      {"eval_every", int64_t{10}},
      {"checkpoint_every", int64_t{10}},
      {"eval_windows", int64_t{2}},
      {"stats_windows", int64_t{4}},
      {"threads", int64_t{1}},
      {"device", std::string("cpu")}};
  for (const auto& [key, value] : settings) request.config.set(key, value);
  request.runFolder = fsPath(run);
  engine::startTraining(request, job);
}

}  // namespace strata::test
