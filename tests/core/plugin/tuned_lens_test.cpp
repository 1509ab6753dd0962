// The tuned_lens recipe plugin (plugins/tuned_lens), built into the build tree's plugin folder,
// on stores these tests write with Strata's ActivationStoreWriter. References: the ridge
// normal equations (λ tiny) solved here in double with Eigen, and R² computed here from the
// translators the plugin wrote, on the held-out rows it names.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/metrics_log.h"
#include "engine/plugin_training.h"
#include "engine/run_folder.h"
#include "io/hf/safetensors_file.h"
#include "io/store/activation_store.h"
#include "support/cli_runner.h"
#include "support/plugin_test_support.h"
#include "support/scoped_environment.h"
#include "support/temp_dir.h"

extern char** environ;

namespace strata {
namespace {
namespace fs = std::filesystem;
using Matrix = Eigen::MatrixXd;

constexpr int64_t kDocs = 30;

/** L+1 layers of N tokens in 30 documents: h_0 Gaussian, h_{l+1} a noisy nonlinear map of h_l
 *  (so the best affine translator is not exact: R² < 1, and earlier layers translate worse). */
std::vector<Matrix> lensLayers(int64_t n, int64_t d, int64_t layers, uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::normal_distribution<double> normal;
  auto gaussian = [&](int64_t r, int64_t c) {
    Matrix m(r, c);
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) m(i, j) = normal(engine);
    return m;
  };
  std::vector<Matrix> h = {(gaussian(n, d) * 3).array() + 1.0};
  for (int64_t l = 1; l <= layers; ++l) {
    const Matrix map = Matrix::Identity(d, d) + 0.3 * gaussian(d, d);
    const Matrix z = h.back() * map;
    h.push_back(((z / 3).array().tanh() * 2 + z.array() * 0.5 + double(l)).matrix() +
                0.1 * gaussian(n, d));
  }
  return h;
}

/** A store of n tokens in kDocs documents and layers 0..`layers` of width d, still to be
 *  written. */
io::ActivationStoreWriter lensStoreWriter(const fs::path& file, io::StoreDType dtype, int64_t n,
                                          int64_t d, int64_t layers) {
  io::StoreMeta meta;
  meta.modelId = "test/lens";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = d;
  meta.numLayers = layers;
  meta.dtype = dtype;
  meta.corpusHash = "sha256:0";
  meta.samplingPolicy = "{}";
  io::TokenTable tokens;
  for (int64_t i = 0; i < n; ++i) {
    tokens.ids.push_back(static_cast<int32_t>(i % 97));
    tokens.doc.push_back(static_cast<int32_t>(i * kDocs / n));
    tokens.position.push_back(static_cast<int32_t>(1 + i % 50));
  }
  return io::ActivationStoreWriter::create(file, meta, tokens);
}

std::vector<Matrix> writeLensStore(const fs::path& file, io::StoreDType dtype, int64_t n = 1500,
                                   int64_t d = 8, int64_t layers = 3) {
  std::vector<Matrix> h = lensLayers(n, d, layers, 11);
  auto writer = lensStoreWriter(file, dtype, n, d, layers);
  for (int64_t l = 0; l <= layers; ++l) {
    const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rows =
        h[size_t(l)].cast<float>();
    writer.writeLayer(l, {rows.data(), size_t(rows.size())});
    h[size_t(l)] = rows.cast<double>();  // what the store holds (float32)
  }
  writer.close();
  return h;
}

const plugin::RecipeEntry& tunedLens() {
  const plugin::RecipeEntry* recipe = testing::builtPlugins().findRecipe("tuned_lens");
  if (!recipe) throw std::runtime_error("no tuned_lens recipe in " STRATA_PLUGIN_BUILD_DIR);
  return *recipe;
}

engine::TrainingRequest lensRequest(const fs::path& store, const fs::path& folder, int64_t steps) {
  engine::TrainingRequest request;
  request.recipe = "tuned_lens";
  request.config = engine::ResolvedConfig(engine::pluginRecipeSchema(tunedLens()));
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"store", store.string()},
                                                        {"steps", std::to_string(steps)},
                                                        {"lr", "0.01"},
                                                        {"batch", "64"},
                                                        {"held_out", "0.2"},
                                                        {"seed", "3"},
                                                        {"eval_every", "500"},
                                                        {"checkpoint_every", "300"},
                                                        {"threads", "2"}})
    request.config.set(key, value);
  request.runFolder = folder;
  request.command = "test";
  return request;
}

/** Cancels its token at the first progress at or past `at`. */
class CancelAt final : public ProgressSink {
 public:
  CancelAt(CancellationToken token, double at) : m_token(std::move(token)), m_at(at) {}
  void progress(double fraction, const std::string&) override {
    if (fraction >= m_at) m_token.cancel();
  }
  void message(MessageLevel, const std::string&) override {}

 private:
  CancellationToken m_token;
  double m_at;
};

struct Translators {
  std::shared_ptr<const io::SafetensorsFile> file;
  Matrix weight(int64_t l) const {
    const auto& e = file->at("layers." + std::to_string(l) + ".weight");
    const auto bytes = file->bytes(e);
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> m(
        reinterpret_cast<const float*>(bytes.data()), e.shape[0], e.shape[1]);
    return m.cast<double>();
  }
  Eigen::VectorXd bias(int64_t l) const {
    const auto bytes = file->bytes(file->at("layers." + std::to_string(l) + ".bias"));
    return Eigen::Map<const Eigen::VectorXf>(reinterpret_cast<const float*>(bytes.data()),
                                             Eigen::Index(bytes.size() / 4))
        .cast<double>();
  }
  std::vector<int64_t> heldOut() const {
    const auto bytes = file->bytes(file->at("held_out"));
    const auto* rows = reinterpret_cast<const int64_t*>(bytes.data());
    return {rows, rows + bytes.size() / 8};
  }
};

Matrix rowsOf(const Matrix& m, const std::vector<int64_t>& rows) {
  Matrix out(Eigen::Index(rows.size()), m.cols());
  for (size_t i = 0; i < rows.size(); ++i) out.row(Eigen::Index(i)) = m.row(rows[i]);
  return out;
}

double rSquared(const Matrix& predicted, const Matrix& y) {
  return 1 - (predicted - y).squaredNorm() / (y.rowwise() - y.colwise().mean()).squaredNorm();
}

TEST(TunedLens, ConvergesToTheLeastSquaresTranslatorsAndReportsTheirHeldOutR2) {
  TempDir dir;
  const auto h = writeLensStore(dir / "acts.h5", io::StoreDType::Float32);
  NullProgressSink sink;
  JobContext job(sink, CancellationToken{});
  const engine::TrainingSummary summary = engine::startPluginTraining(
      tunedLens(), lensRequest(dir / "acts.h5", dir / "run", 2000), job);
  ASSERT_TRUE(summary.finished);
  const Translators lens{io::SafetensorsFile::open(dir / "run" / "translators.safetensors")};
  EXPECT_EQ(lens.file->metadata().at("format"), "strata-tuned-lens-1");
  EXPECT_EQ(lens.file->metadata().at("target_layer"), "3");

  // The split: whole documents, ~20% of the tokens, none of them in training.
  const std::vector<int64_t> held = lens.heldOut();
  std::set<int64_t> heldDocs, heldSet(held.begin(), held.end());
  for (int64_t i : held) heldDocs.insert(i * kDocs / 1500);
  std::vector<int64_t> train;
  for (int64_t i = 0; i < 1500; ++i) {
    if (heldSet.count(i)) continue;
    train.push_back(i);
    EXPECT_FALSE(heldDocs.count(i * kDocs / 1500))
        << "token " << i << " of a held-out document trains";
  }
  EXPECT_NEAR(double(held.size()), 300.0, 50.0);

  const auto records = engine::readMetricsLog(dir / "run" / "metrics.jsonl");
  ASSERT_EQ(records.back().step, 2000);
  const Matrix yTrain = rowsOf(h[3], train), yHeld = rowsOf(h[3], held);
  for (int64_t l = 0; l < 3; ++l) {
    // Reference: ridge (λ = 1e-9 · mean diagonal, not on the bias) on the training rows.
    Matrix x(Eigen::Index(train.size()), 9);
    x << rowsOf(h[size_t(l)], train), Matrix::Ones(Eigen::Index(train.size()), 1);
    Matrix gram = x.transpose() * x;
    Matrix ridge = Matrix::Identity(9, 9) * 1e-9 * gram.trace() / 9;
    ridge(8, 8) = 0;
    const Matrix w = (gram + ridge).ldlt().solve(x.transpose() * yTrain);  // 9 × 8
    const Matrix aRef = w.topRows(8).transpose();
    const Eigen::VectorXd bRef = w.row(8).transpose();

    const Matrix a = lens.weight(l);
    const Eigen::VectorXd b = lens.bias(l);
    EXPECT_LT((a - aRef).norm() / aRef.norm(), 1e-2) << "layer " << l;
    EXPECT_LT((b - bRef).norm() / bRef.norm(), 1e-2) << "layer " << l;

    const Matrix xHeld = rowsOf(h[size_t(l)], held);
    const double r2 = rSquared((xHeld * a.transpose()).rowwise() + b.transpose(), yHeld);
    const double r2Ref = rSquared((xHeld * aRef.transpose()).rowwise() + bRef.transpose(), yHeld);
    const double logged = records.back().value("val_r2_l" + std::to_string(l));
    EXPECT_NEAR(logged, r2, 1e-5) << "layer " << l;
    EXPECT_NEAR(r2, r2Ref, 1e-4) << "layer " << l;
    EXPECT_GT(r2, 0.8) << "layer " << l;
    EXPECT_LT(r2, 0.999) << "layer " << l;
  }
  // The loss falls: the mean of the last 100 logged losses is below the first's.
  double late = 0;
  for (size_t i = records.size() - 100; i < records.size(); ++i)
    late += records[i].value("loss") / 100;
  EXPECT_LT(late, 0.5 * records.front().value("loss"));
}

TEST(TunedLens, StopAndResumeEqualsAnUninterruptedRun) {
  TempDir dir;
  writeLensStore(dir / "acts.h5", io::StoreDType::Float16);
  NullProgressSink quiet;
  JobContext whole(quiet, CancellationToken{});
  engine::startPluginTraining(tunedLens(), lensRequest(dir / "acts.h5", dir / "whole", 700), whole);

  CancellationToken token;
  CancelAt stopper(token, 0.5);  // stops after step 350: between checkpoints (every 300)
  JobContext stopped(stopper, token);
  EXPECT_THROW(engine::startPluginTraining(
                   tunedLens(), lensRequest(dir / "acts.h5", dir / "split", 700), stopped),
               CancelledError);
  EXPECT_EQ(engine::readRunStatus(dir / "split").state, engine::RunState::Stopped);
  EXPECT_FALSE(fs::exists(dir / "split" / "translators.safetensors"));
  JobContext resumed(quiet, CancellationToken{});
  const engine::TrainingSummary summary =
      engine::resumePluginTraining(tunedLens(), dir / "split", resumed);
  EXPECT_TRUE(summary.finished);
  EXPECT_EQ(summary.startStep, 350);

  EXPECT_EQ(readWholeFile(dir / "whole" / "translators.safetensors"),
            readWholeFile(dir / "split" / "translators.safetensors"));
  const auto a = engine::readMetricsLog(dir / "whole" / "metrics.jsonl");
  const auto b = engine::readMetricsLog(dir / "split" / "metrics.jsonl");
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].step, b[i].step);
    ASSERT_EQ(a[i].values, b[i].values) << "step " << a[i].step;
  }
}

TEST(TunedLens, LayersTrainedApartEqualThoseTrainedTogether) {
  // What the memory refusal advises (docs/plugins.md): translating the layers a few at a time
  // gives the same translators, bit for bit, as translating them all at once.
  TempDir dir;
  writeLensStore(dir / "acts.h5", io::StoreDType::Float32);
  NullProgressSink quiet;
  auto train = [&](const std::string& folder, const std::string& layers) {
    engine::TrainingRequest request = lensRequest(dir / "acts.h5", dir / folder, 200);
    request.config.set("layers", layers);
    JobContext job(quiet, CancellationToken{});
    engine::startPluginTraining(tunedLens(), request, job);
    return Translators{io::SafetensorsFile::open(dir / folder / "translators.safetensors")};
  };
  const Translators together = train("together", "0-2");
  const Translators first = train("first", "0,1"), second = train("second", "2");
  for (int64_t l = 0; l < 3; ++l) {
    const Translators& apart = l < 2 ? first : second;
    EXPECT_EQ(together.weight(l), apart.weight(l)) << "layer " << l;
    EXPECT_EQ(together.bias(l), apart.bias(l)) << "layer " << l;
  }
  EXPECT_EQ(together.heldOut(), second.heldOut());
  EXPECT_GT((together.weight(0) - Matrix::Identity(8, 8)).norm(), 0.1);  // it trained
}

TEST(TunedLens, BadSettingsFailTheRunNamingTheSetting) {
  TempDir dir;
  writeLensStore(dir / "acts.h5", io::StoreDType::Float32, 200);
  NullProgressSink sink;
  auto failure = [&](const std::string& key, const std::string& value, const std::string& folder) {
    engine::TrainingRequest request = lensRequest(dir / "acts.h5", dir / folder, 10);
    request.config.set(key, value);
    JobContext job(sink, CancellationToken{});
    try {
      engine::startPluginTraining(tunedLens(), request, job);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = failure("store", (dir / "none.h5").string(), "a");
  EXPECT_NE(missing.find("none.h5"), std::string::npos) << missing;
  EXPECT_NE(missing.find("plugin recipe tuned_lens"), std::string::npos) << missing;
  const std::string layers = failure("layers", "1,7", "b");
  EXPECT_NE(layers.find("layers"), std::string::npos) << layers;
  const std::string lr = failure("lr", "fast", "c");
  EXPECT_NE(lr.find("lr"), std::string::npos) << lr;
  EXPECT_EQ(engine::readRunStatus(dir / "c").state, engine::RunState::Failed);
}

// --- strata-cli ---------------------------------------------------------------------------

TEST(CliTunedLens, TrainsResumesAndListsTheRun) {
  TempDir dir;
  writeLensStore(dir / "acts.h5", io::StoreDType::Float16, 600);
  const std::string settings =
      " --set store=" + (dir / "acts.h5").string() +
      " --set steps=60 --set batch=32 --set eval_every=30 --set layers=1-2";
  const auto run =
      testing::runCliSplit("train tuned_lens" + settings + " --run-dir " + (dir / "run").string());
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Finished"), std::string::npos) << run.out;
  const auto records = engine::readMetricsLog(dir / "run" / "metrics.jsonl");
  ASSERT_EQ(records.size(), 60u);
  EXPECT_TRUE(records[29].has("val_r2_l1") && records[29].has("val_r2_l2") &&
              records[59].has("val_loss"));
  EXPECT_FALSE(records[29].has("val_r2_l0"));
  EXPECT_TRUE(fs::exists(dir / "run" / "translators.safetensors"));
  const auto json = nlohmann::json::parse(readWholeFile(dir / "run" / "run.json"));
  EXPECT_EQ(json["plugin"]["name"], "tuned_lens");
  EXPECT_EQ(json["config"]["layers"], "1-2");

  const auto runs = testing::runCliSplit("runs --root " + dir.path().string());
  EXPECT_NE(runs.out.find("tuned_lens"), std::string::npos) << runs.out << runs.err;
  const auto again = testing::runCliSplit("resume " + (dir / "run").string());
  EXPECT_EQ(again.exitCode, 0) << again.err;
  EXPECT_NE(again.err.find("already finished"), std::string::npos) << again.err;

  const auto bad = testing::runCliSplit("train tuned_lens --set store=" + (dir / "no.h5").string() +
                                        " --run-dir " + (dir / "bad").string());
  EXPECT_NE(bad.exitCode, 0);
  EXPECT_NE(bad.err.find("tuned_lens"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("no.h5"), std::string::npos) << bad.err;
  EXPECT_EQ(engine::readRunStatus(dir / "bad").state, engine::RunState::Failed);
}

TEST(CliTunedLens, CtrlCStopsTheRunAndResumeFinishesIt) {
  TempDir dir;
  writeLensStore(dir / "acts.h5", io::StoreDType::Float32, 400);
  const fs::path folder = dir / "run";
  const pid_t pid =
      testing::spawnCli({"train", "tuned_lens", "--set", "store=" + (dir / "acts.h5").string(),
                         "--set", "steps=20000", "--set", "batch=16", "--set", "threads=1", "--set",
                         "checkpoint_every=0", "--run-dir", folder.string()});
  ASSERT_GT(pid, 0);
  // Interrupt once it trains (its handler is installed before the first step).
  for (int i = 0; i < 1000 && engine::readMetricsLog(folder / "metrics.jsonl").size() < 20; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const engine::RunStatus stopped = engine::readRunStatus(folder);
  ASSERT_EQ(stopped.state, engine::RunState::Stopped);
  ASSERT_LT(stopped.step, 20000) << "finished before the interrupt: make the run longer";
  EXPECT_TRUE(fs::exists(folder / "lens_checkpoint.bin"));  // saved when stopped

  const auto resumed = testing::runCliSplit("resume " + folder.string());
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  EXPECT_EQ(engine::readRunStatus(folder).state, engine::RunState::Finished);
  const auto records = engine::readMetricsLog(folder / "metrics.jsonl");
  ASSERT_EQ(records.size(), 20000u);
  for (size_t i = 0; i < records.size(); ++i) ASSERT_EQ(records[i].step, int64_t(i) + 1);
}

/** The bytes of "needs 845 MiB of" in the training memory plan the CLI printed, or -1. */
int64_t plannedBytes(const std::string& out) {
  std::smatch m;
  if (!std::regex_search(out, m,
                         std::regex(R"(training memory plan: plugin recipe tuned_lens: .* needs )"
                                    R"(([0-9.]+) (MiB|GiB) of)")))
    return -1;
  return static_cast<int64_t>(std::stod(m[1]) * (m[2] == "GiB" ? 1024.0 : 1.0) * 1024 * 1024);
}

TEST(CliTunedLens, PlansItsMemoryBeforeReadingALayerAndThePlanHoldsThePeak) {
  // Large enough for the layers (5 × 64 MiB) and translators (4 × 12 MiB) to weigh against the
  // process's fixed cost. The values are noise: only their sizes matter here.
  TempDir dir;
  const int64_t n = 16384, d = 1024, layers = 4;
  {
    auto writer = lensStoreWriter(dir / "wide.h5", io::StoreDType::Float32, n, d, layers);
    std::mt19937 engine(5);
    std::uniform_real_distribution<float> uniform(-1, 1);
    std::vector<float> rows(static_cast<size_t>(n * d));
    for (int64_t l = 0; l <= layers; ++l) {
      for (float& v : rows) v = uniform(engine);
      writer.writeLayer(l, {rows.data(), rows.size()});
    }
    writer.close();
  }
  auto train = [&](const std::string& folder) {
    return testing::runCliMeasured(
        {"train", "tuned_lens", "--set", "store=" + (dir / "wide.h5").string(), "--set", "steps=3",
         "--set", "threads=2", "--set", "eval_every=0", "--run-dir", (dir / folder).string()});
  };
  const testing::MeasuredOutput run = train("run");
  ASSERT_EQ(run.exitCode, 0) << run.out;
  const int64_t plan = plannedBytes(run.out);
  ASSERT_GT(plan, 0) << run.out;
  const std::string figures = "plan " + std::to_string(plan >> 20) + " MiB, peak " +
                              std::to_string(run.peakResidentBytes >> 20) + " MiB\n" + run.out;
  EXPECT_LE(run.peakResidentBytes, plan) << figures;          // never under the peak
  EXPECT_LE(plan, run.peakResidentBytes * 5 / 4) << figures;  // nor far above it
  EXPECT_NE(run.out.find("layers 320 MiB"), std::string::npos) << run.out;
  // `--plan` prints the same plan and trains nothing.
  const testing::MeasuredOutput planned = testing::runCliMeasured(
      {"train", "tuned_lens", "--plan", "--set", "store=" + (dir / "wide.h5").string(), "--set",
       "steps=3", "--set", "threads=2", "--set", "eval_every=0", "--run-dir",
       (dir / "planned").string()});
  EXPECT_EQ(planned.exitCode, 0) << planned.out;
  EXPECT_EQ(plannedBytes(planned.out), plan) << planned.out;
  EXPECT_FALSE(fs::exists(dir / "planned"));

  // A machine the plan does not fit: refused before a layer is read, saying what to change.
  testing::ScopedEnvironment env;
  env.set("STRATA_MEMORY_AVAILABLE", std::to_string(int64_t(double(plan) / 0.9 * 0.9)));
  const testing::MeasuredOutput refused = train("refused");
  EXPECT_NE(refused.exitCode, 0) << refused.out;
  EXPECT_NE(refused.out.find("this training run needs about"), std::string::npos) << refused.out;
  EXPECT_NE(refused.out.find("Translate fewer layers at a time (layers="), std::string::npos)
      << refused.out;
  EXPECT_EQ(engine::readRunStatus(dir / "refused").state, engine::RunState::Failed);
  EXPECT_FALSE(fs::exists(dir / "refused" / "lens_checkpoint.bin"));
  EXPECT_LT(refused.peakResidentBytes, run.peakResidentBytes - (int64_t{250} << 20))
      << "the refused run read its layers first";
}

}  // namespace
}  // namespace strata
