// compare-dlm and compare-align as studies (see comparison_studies.h).

#include "studies/comparison_studies.h"

#include <cmath>
#include <memory>

#include "common/error.h"
#include "common/job.h"
#include "engine/run_folder.h"
#include "engine/run_metrics.h"
#include "recipes/repr_align/align_sample_quality.h"
#include "recipes/sample_quality.h"
#include "studies/report/study_report_reader.h"
#include "studies/study_runner.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kPromptTokens = 8;  // held-out tokens before each sampled continuation

/** The comparison's settings without "seed=": the study gives each run its seed. */
std::vector<std::string> withoutSeed(const std::vector<std::string>& settings) {
  std::vector<std::string> kept;
  for (const auto& s : settings)
    if (!s.starts_with("seed=")) kept.push_back(s);
  return kept;
}

/** The settings' seed (the last "seed=", 0 when none) and the `count` − 1 after it. */
std::vector<int64_t> seedsOf(const std::vector<std::string>& settings, int64_t count,
                             const std::string& where) {
  if (count < 1) throw ConfigError(where, "seeds", "must be at least 1");
  int64_t first = 0;
  for (const auto& s : settings) {
    if (!s.starts_with("seed=")) continue;
    try {
      first = std::stoll(s.substr(5));
    } catch (const std::exception&) {
      throw ConfigError(where, "seed", "is not a whole number: " + s.substr(5));
    }
  }
  std::vector<int64_t> seeds;
  for (int64_t i = 0; i < count; ++i) seeds.push_back(first + i);
  return seeds;
}

StudyProtocol comparisonProtocol(const std::string& name, const std::string& recipe,
                                 const std::vector<recipes::StudyVariant>& variants,
                                 std::vector<std::string> shared, int64_t steps,
                                 std::vector<int64_t> seeds) {
  if (variants.empty()) throw ConfigError(name, "variants", "is empty");
  StudyProtocol p;
  p.name = name;
  p.budget = "steps=" + std::to_string(steps);
  p.budgetNote = std::to_string(steps) + " optimizer steps for every run (--steps)";
  p.seeds = std::move(seeds);
  for (const recipes::StudyVariant& v : variants)
    p.arms.push_back({v.name, recipe, v.settings, ""});
  shared.push_back("steps=" + std::to_string(steps));
  p.shared = std::move(shared);
  p.curves = {"val_loss"};
  return p;
}

/** What the study runner is asked: the folder, the device and the samples; nothing else. */
StudyOptions comparisonOptions(const fs::path& folder, const std::string& device, int64_t samples) {
  StudyOptions options;
  options.folder = folder;
  options.device = device;
  options.measureSamples = samples;
  return options;
}

/** A run's row name: the variant's, with its seed when the comparison has several. */
std::string rowName(const StudyReportRun& run, bool severalSeeds) {
  return severalSeeds ? run.arm + "-s" + std::to_string(run.seed) : run.arm;
}

double metricOf(const StudyReportRun& run, const std::string& key) {
  const auto found = run.metrics.find(key);
  return found == run.metrics.end() ? std::nan("") : found->second;
}

class DlmComparisonStudy final : public Study {
 public:
  DlmComparisonStudy(const recipes::DlmComparisonConfig& config,
                     const recipes::GenerationJudge* judge)
      : m_config(config), m_judge(judge) {}

  StudyProtocol protocol(const StudyOptions&) const override {
    std::vector<std::string> shared = withoutSeed(m_config.settings);
    shared.push_back("corpus=" + m_config.corpus.string());
    StudyProtocol p =
        comparisonProtocol("compare-dlm", "dcdm", m_config.variants, shared, m_config.steps,
                           seedsOf(m_config.settings, m_config.seeds, "compare-dlm"));
    p.title = "Masked diffusion LMs compared: mdlm, bdlm and dcdm";
    p.question = "How do the variants compare at one budget on one corpus?";
    p.metrics = {{"val_elbo_best", "best val ELBO (nats/token)", true},
                 {"masked_acc", "masked-token accuracy", false},
                 {"load_entropy", "chunk-load entropy", false},
                 {"max_chunk_share", "largest chunk share", true},
                 {"tokens_per_s", "tokens/s", false},
                 {"gen_ppl", "Gen.PPL (judge)", true},
                 {"word_diversity", "word diversity", false},
                 {"token_diversity", "token diversity", false}};
    return p;
  }

  RunMeasurement measure(const StudyArm& arm, const fs::path& run) override {
    recipes::DlmComparisonRow row = recipes::dlmComparisonRow(arm.name, run);
    recipes::addSampleQuality(row, m_config.samples, m_judge, m_config.device);
    RunMeasurement m;
    m.values = {{"val_elbo_best", row.valLoss},        {"masked_acc", row.maskedAcc},
                {"load_entropy", row.loadEntropy},     {"max_chunk_share", row.maxChunkShare},
                {"tokens_per_s", row.tokensPerSecond}, {"gen_ppl", row.genPpl},
                {"word_diversity", row.wordDiversity}, {"token_diversity", row.tokenDiversity}};
    m.curves["val_loss"] = engine::RunFolder(run).metrics().validationLoss();
    return m;
  }

 private:
  recipes::DlmComparisonConfig m_config;
  const recipes::GenerationJudge* m_judge;
};

class AlignComparisonStudy final : public Study {
 public:
  explicit AlignComparisonStudy(const recipes::AlignComparisonConfig& config) : m_config(config) {}

  StudyProtocol protocol(const StudyOptions&) const override {
    std::vector<std::string> shared = withoutSeed(m_config.settings);
    shared.push_back("model=" + m_config.model.string());
    shared.push_back("corpus=" + m_config.corpus.string());
    StudyProtocol p =
        comparisonProtocol("compare-align", "repr_align", m_config.variants, shared, m_config.steps,
                           seedsOf(m_config.settings, m_config.seeds, "compare-align"));
    p.title = "AR → diffusion conversions compared: λ, frozen parts, from scratch";
    p.question = "How do the conversions compare at one budget on one corpus?";
    p.metrics = {{"val_loss_best", "best val loss (nats)", true},
                 {"val_loss_final", "final val loss (nats)", true},
                 {"masked_acc", "masked-token accuracy", false},
                 {"mean_cosine", "mean alignment cosine", false},
                 {"tokens_per_s", "tokens/s", false},
                 {"gen_ppl", "Gen.PPL (teacher)", true},
                 {"word_diversity", "word diversity", false},
                 {"token_diversity", "token diversity", false}};
    return p;
  }

  void prepareMeasuring(const StudyProtocol&, const fs::path&, const StudyOptions&) override {
    // One judge for every student: the teacher, the model every student was converted from.
    if (m_config.samples > 0 && !m_judge)
      m_judge = std::make_unique<recipes::GenerationJudge>(m_config.model, m_config.device);
  }

  RunMeasurement measure(const StudyArm& arm, const fs::path& run) override {
    const recipes::AlignComparisonRow row = recipes::alignComparisonRow(arm.name, run);
    RunMeasurement m;
    m.values = {{"val_loss_best", row.bestValLoss},
                {"val_loss_final", row.finalValLoss},
                {"masked_acc", row.maskedAcc},
                {"mean_cosine", row.meanCosine},
                {"tokens_per_s", row.tokensPerSecond}};
    m.curves["val_loss"] = row.valLoss;
    if (m_config.samples > 0) {
      if (m_prompts.empty()) {  // the same held-out prompts for every student
        NullProgressSink quiet;
        JobContext job(quiet, CancellationToken());
        m_prompts = recipes::heldOutPrompts(run, m_config.samples, kPromptTokens, job);
      }
      recipes::StudentSampling sampling;
      sampling.samples = m_config.samples;
      sampling.newTokens = m_config.sampleTokens;
      sampling.device = m_config.device;
      const recipes::StudentSampleQuality q =
          recipes::judgeStudentSamples(run, m_prompts, sampling, *m_judge);
      m.values["gen_ppl"] = q.genPpl;
      m.values["mean_cross_entropy"] = q.meanCrossEntropy;
      m.values["judged_tokens"] = static_cast<double>(q.judgedTokens);
      m.values["word_diversity"] = q.wordDiversity;
      m.values["token_diversity"] = q.tokenDiversity;
    }
    return m;
  }

 private:
  recipes::AlignComparisonConfig m_config;
  std::unique_ptr<recipes::GenerationJudge> m_judge;
  std::vector<std::string> m_prompts;
};

/** The arm of the bridge at `layer`, and back. */
std::string layerArm(int64_t layer) { return "layer-" + std::to_string(layer); }
int64_t armLayer(const std::string& arm) { return std::stoll(arm.substr(arm.find('-') + 1)); }

class BridgeSweepStudy final : public Study {
 public:
  explicit BridgeSweepStudy(const recipes::BridgeSweepConfig& config) : m_config(config) {}

  StudyProtocol protocol(const StudyOptions&) const override {
    const recipes::BridgeSweepConfig& c = m_config;
    std::vector<recipes::StudyVariant> layers;
    for (int64_t layer = c.firstLayer; layer <= c.lastLayer; ++layer)
      layers.push_back({layerArm(layer), recipes::bridgeSweepLayerSettings(layer)});
    if (c.layerZeroBaseline && c.firstLayer > 0)
      layers.push_back({layerArm(0), recipes::bridgeSweepLayerSettings(0)});
    std::vector<std::string> shared = withoutSeed(c.settings);
    shared.push_back("model=" + c.model.string());
    shared.push_back("corpus=" + c.corpus.string());
    shared.push_back("store=" + recipes::bridgeSweepStore(c).string());
    StudyProtocol p = comparisonProtocol("sweep-bridges", "bridge", layers, shared, c.steps,
                                         seedsOf(c.settings, 1, "sweep-bridges"));
    p.title = "Bridgeability sweep: an equal-budget bridge at every layer";
    p.question = "Does the geometry score S(l) rank the layers as their bridges' losses do?";
    p.metrics = {{"val_loss_best", "best val loss", true},
                 {"val_cosine", "val cosine", false},
                 {"val_ce_gap", "CE gap", true},
                 {"val_rounding_accuracy", "rounding accuracy (baseline)", false}};
    return p;
  }

  void afterAuxiliary(const StudyProtocol&, const fs::path&, const StudyOptions&,
                      JobContext& job) override {
    recipes::prepareBridgeSweepStore(m_config, job);  // every arm reads the store
  }

  RunMeasurement measure(const StudyArm& arm, const fs::path& run) override {
    const recipes::BridgeSweepRow row = recipes::bridgeSweepRow(armLayer(arm.name), run);
    RunMeasurement m;
    m.values = {{"val_loss_best", row.valLoss},
                {"val_cosine", row.valCosine},
                {"val_ce_gap", row.ceGap},
                {"val_rounding_accuracy", row.roundingAccuracy}};
    m.curves["val_loss"] = engine::RunFolder(run).metrics().validationLoss();
    return m;
  }

 private:
  recipes::BridgeSweepConfig m_config;
};

/** Sweeps started before sweeps were studies kept their runs in DIR/layer-<l>: they move to
 *  where the study continues them, so nothing trained is lost. */
void adoptOlderLayout(const StudyProtocol& protocol, const fs::path& folder, JobContext& job) {
  for (const StudyArm& arm : protocol.arms) {
    const fs::path old = folder / arm.name;
    const fs::path now = folder / "runs" / (arm.name + "-s" + std::to_string(protocol.seeds[0]));
    if (!engine::isRunFolder(old) || fs::exists(now)) continue;
    fs::create_directories(now.parent_path());
    fs::rename(old, now);
    job.info("moved " + old.string() + " to " + now.string());
  }
}

}  // namespace

std::vector<recipes::DlmComparisonRow> runDlmComparison(const recipes::DlmComparisonConfig& c,
                                                        JobContext& job) {
  std::unique_ptr<recipes::GenerationJudge> judge;
  if (!c.judge.empty())
    judge = std::make_unique<recipes::GenerationJudge>(c.judge, c.device);  // fail before training
  DlmComparisonStudy study(c, judge.get());
  runStudy(study, comparisonOptions(c.folder, c.device, c.samples), job);
  const StudyReport report = readStudyReport(c.folder);
  std::vector<recipes::DlmComparisonRow> rows;
  for (const StudyReportRun& run : report.runs) {
    recipes::DlmComparisonRow row =
        recipes::dlmComparisonRow(rowName(run, c.seeds > 1), run.folder);
    row.genPpl = metricOf(run, "gen_ppl");
    row.wordDiversity = metricOf(run, "word_diversity");
    row.tokenDiversity = metricOf(run, "token_diversity");
    rows.push_back(row);
  }
  recipes::writeDlmComparisonReports(rows, c.folder, c.judge.string());
  return rows;
}

std::vector<recipes::AlignComparisonRow> runAlignComparison(const recipes::AlignComparisonConfig& c,
                                                            JobContext& job) {
  AlignComparisonStudy study(c);
  runStudy(study, comparisonOptions(c.folder, c.device, c.samples), job);
  const StudyReport report = readStudyReport(c.folder);
  std::vector<recipes::AlignComparisonRow> rows;
  for (const StudyReportRun& run : report.runs) {
    recipes::AlignComparisonRow row =
        recipes::alignComparisonRow(rowName(run, c.seeds > 1), run.folder);
    if (c.samples > 0) {
      row.quality.samples = c.samples;
      row.quality.judge = c.model.string();
      row.quality.genPpl = metricOf(run, "gen_ppl");
      row.quality.meanCrossEntropy = metricOf(run, "mean_cross_entropy");
      row.quality.judgedTokens = static_cast<int64_t>(metricOf(run, "judged_tokens"));
      row.quality.wordDiversity = metricOf(run, "word_diversity");
      row.quality.tokenDiversity = metricOf(run, "token_diversity");
    }
    rows.push_back(row);
  }
  recipes::writeAlignComparisonReports(rows, c.folder);
  return rows;
}

recipes::BridgeSweepResult runBridgeSweep(const recipes::BridgeSweepConfig& c, JobContext& job) {
  recipes::checkBridgeSweepLayers(c);
  BridgeSweepStudy study(c);
  const StudyOptions options = comparisonOptions(c.folder, c.device, 0);
  adoptOlderLayout(study.protocol(options), c.folder, job);
  runStudy(study, options, job);
  std::vector<recipes::BridgeSweepRow> rows, baselines;
  for (const StudyReportRun& run : readStudyReport(c.folder).runs) {
    const int64_t layer = armLayer(run.arm);
    recipes::BridgeSweepRow row = recipes::bridgeSweepRow(layer, run.folder);
    (layer < c.firstLayer ? baselines : rows).push_back(row);
  }
  return recipes::finishBridgeSweep(c, std::move(rows), std::move(baselines));
}

}  // namespace strata::studies
