// The DiHAL study's protocol and measurements (see dihal_study.h and docs/studies/dihal.md).

#include "studies/dihal_study.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "geometry/geometry_report.h"
#include "geometry/score.h"
#include "recipes/bridge/bridge_sweep.h"
#include "recipes/bridge/hybrid_generation.h"
#include "studies/corpus_prompts.h"
#include "studies/dihal_geometry.h"
#include "studies/layer_permutation.h"
#include "studies/study_analysis.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

int64_t modelLayers(bool smoke) { return smoke ? 4 : 8; }

/** The store this study's bridges read (DIR/acts.h5). */
fs::path storeOf(const StudyProtocol& p) { return settingIn(p.shared, "store"); }

/** The bridges, bridge-l<l>: one process, so their permutation keys carry no tag. */
const std::vector<BridgeSeries> kSeries = {{"", "bridge-l"}};

/** The bridges of one seed's runs (arms bridge-l<l>) with their best validation loss. */
std::vector<BridgeLoss> bridgeLosses(const std::vector<StudyRunResult>& runs) {
  std::vector<BridgeLoss> losses;
  for (const auto& r : runs)
    if (r.arm.rfind("bridge-l", 0) == 0)
      losses.push_back({std::stoll(r.arm.substr(8)), r.measurement.values.at("val_loss_best")});
  return losses;
}

double valueOf(const std::vector<StudyRunResult>& runs, const std::string& arm,
               const std::string& key) {
  for (const auto& r : runs)
    if (r.arm == arm) {
      const auto v = r.measurement.values.find(key);
      return v == r.measurement.values.end() ? kNan : v->second;
    }
  return kNan;
}

constexpr int64_t kModelSteps = 3000;
constexpr int64_t kBridgeSteps = 6000;  // measured: ≈ 0.47 s per step of all 24 bridges here
constexpr int64_t kJudgeSteps = 1500;
constexpr const char* kControl = "embedding-diffusion";

/** The settings a budget fixes: the frozen model's and the judge's training, and every
 *  bridge's (in the order protocol.json has always listed them). */
struct BudgetSettings {
  std::vector<std::string> model, judge, bridges;
};

BudgetSettings budgetSettings(bool smoke) {
  if (smoke)
    return {
        {"dim=16", "heads=2", "mlp=32", "seq_len=16", "batch=2", "steps=6", "warmup=1",
         "eval_every=3", "eval_windows=2", "log_every=1"},
        {"layers=2", "dim=16", "heads=2", "mlp=32", "seq_len=16", "batch=2", "steps=6", "warmup=1",
         "eval_every=3", "eval_windows=2", "log_every=1"},
        {"steps=6", "warmup=1", "eval_every=3", "checkpoint_every=3", "log_every=1", "seq_len=8",
         "batch=2", "eval_windows=2", "stats_windows=2", "width=16", "depth=1", "heads=2"}};
  const std::string every = std::to_string(kBridgeSteps / 10);
  return {{"dim=64", "heads=4", "mlp=256", "seq_len=64", "batch=16",
           "steps=" + std::to_string(kModelSteps), "warmup=100", "eval_every=1000",
           "checkpoint_every=1000", "eval_windows=32", "log_every=50"},
          {"layers=4", "dim=64", "heads=4", "mlp=256", "seq_len=64", "batch=16",
           "steps=" + std::to_string(kJudgeSteps), "warmup=50", "eval_every=500",
           "checkpoint_every=500", "eval_windows=32", "log_every=50"},
          {"steps=" + std::to_string(kBridgeSteps), "warmup=" + std::to_string(kBridgeSteps / 20),
           "eval_every=" + every, "checkpoint_every=" + every, "log_every=25", "seq_len=32",
           "batch=16", "eval_windows=16", "stats_windows=64", "width=64", "depth=2", "heads=4"}};
}

/** What every run and every seed's sweep report. */
std::vector<StudyMetric> dihalMetrics() {
  return {{"val_loss_best", "best val loss of the bridge", true},
          {"val_loss_final", "final val loss of the bridge", true},
          {"val_cosine", "final val cosine of the rebuilt state", false},
          {"converge_drop", "relative val-loss drop over the last 30 % of training", true},
          {"rho_s", "Spearman ρ(S, −val loss) over the candidate layers", false},
          {"rho_neg_depth", "Spearman ρ(−depth, −val loss)", false},
          {"partial_rho", "partial Spearman ρ(S, −val loss | depth)", false},
          {"rho_m_curv", "Spearman ρ(+m_curv, −val loss)", false},
          {"rho_m_mono", "Spearman ρ(+m_mono, −val loss)", false},
          {"rho_neg_k_eff", "Spearman ρ(−k_eff, −val loss)", false},
          {"lstar", "l*: the layer S ranks first", false},
          {"oracle_layer", "the layer whose bridge reached the lowest loss", false},
          {"regret_lstar", "val loss at l* − at the oracle layer", true},
          {"regret_worst", "val loss at the lowest-scored layer − at the oracle layer", true},
          {"rho_s_none", "ρ(S, −val loss), store scored with normalisation none", false},
          {"partial_rho_none", "partial ρ(S, −val loss | depth), normalisation none", false},
          {"rho_s_standardise", "ρ(S, −val loss), normalisation standardise", false},
          {"partial_rho_standardise", "partial ρ(S, −val loss | depth), normalisation standardise",
           false},
          {"gen_ppl",
           "Gen.PPL of the run's generations under the judge (hybrid; the control: embedding "
           "diffusion)",
           true},
          {"word_diversity", "SimCTG word diversity of the generations", false},
          {"original_gen_ppl", "Gen.PPL of the frozen model's own generations (control run only)",
           true},
          {"gen_ppl_lstar", "Gen.PPL of the hybrid through l*", true},
          {"gen_ppl_control", "Gen.PPL of the embedding-diffusion control", true},
          {"train_seconds", "training wall clock (s)", true}};
}

/** The claims, decided by the seeds' intervals (docs/studies/dihal.md). */
std::vector<StudyClaim> dihalClaims() {
  return {
      {"control_converged",
       "budget check: the layer-0 control has converged (< 2 % val-loss drop over the last 30 %)",
       "converge_drop", kControl, "", "convergence_tolerance", ClaimDirection::Lower, 0},
      {"score_predicts", "S ranks the layers by bridgeability: ρ(S, −loss) > 0", "rho_s", "sweep",
       "", "zero", ClaimDirection::Higher, 0},
      {"beyond_depth", "S predicts bridgeability beyond depth: partial ρ(S, −loss | depth) > 0",
       "partial_rho", "sweep", "", "zero", ClaimDirection::Higher, 0},
      {"score_vs_depth", "S predicts better than depth alone: ρ(S) > ρ(−depth)", "rho_s", "sweep",
       "", "", ClaimDirection::Higher, 0, "rho_neg_depth"},
      {"lstar_beats_worst", "l* bridges better than the lowest-scored layer", "regret_lstar",
       "sweep", "", "", ClaimDirection::Lower, 0, "regret_worst"},
      {"beyond_depth_none", "the same with normalisation none: partial ρ(S, −loss | depth) > 0",
       "partial_rho_none", "sweep", "", "zero", ClaimDirection::Higher, 0},
      {"beyond_depth_standardise", "the same with normalisation standardise",
       "partial_rho_standardise", "sweep", "", "zero", ClaimDirection::Higher, 0},
      {"hybrid_beats_baseline",
       "the hybrid through l* writes text the judge finds likelier than embedding diffusion",
       "gen_ppl_lstar", "sweep", "", "", ClaimDirection::Lower, 0, "gen_ppl_control"},
  };
}

class DihalStudy final : public Study {
 public:
  StudyProtocol protocol(const StudyOptions& options) const override {
    checkStudyOptions(options);
    const bool smoke = options.budget == "smoke";
    const std::string corpus = studyCorpus(options);
    const fs::path folder = fs::absolute(options.folder).lexically_normal();
    const std::string model = (folder / "runs" / "model").string();
    const std::string store = (folder / "acts.h5").string();

    StudyProtocol p;
    p.name = "dihal";
    p.title = "DiHAL: does the geometry score predict bridgeability beyond depth?";
    p.question =
        "Across the candidate layers of a model pretrained here, does S(l) rank the layers by how "
        "well a bridge rebuilds h_l (Spearman ρ with −val loss), beyond what depth alone predicts?";
    p.budget = options.budget;
    for (int64_t s = 0; s < options.seeds; ++s) p.seeds.push_back(s);
    const int64_t layers = modelLayers(smoke);
    const BudgetSettings budget = budgetSettings(smoke);
    std::vector<std::string> modelSettings = {"corpus=" + corpus, "tokenizer=byte", "threads=1",
                                              "lr=0.002", "layers=" + std::to_string(layers)};
    modelSettings.insert(modelSettings.end(), budget.model.begin(), budget.model.end());
    // The Gen.PPL judge: a separate, smaller causal LM on the same corpus (the frozen model would
    // favour text decoded through its own upper layers).
    std::vector<std::string> judgeSettings = {"corpus=" + corpus, "tokenizer=byte", "threads=1",
                                              "lr=0.002", "seed=1"};
    judgeSettings.insert(judgeSettings.end(), budget.judge.begin(), budget.judge.end());
    p.auxiliary = {{"model", "pretrain", modelSettings,
                    "the frozen model the bridges read: a causal byte-level Llama of " +
                        std::to_string(layers) + " layers"},
                   {"judge", "pretrain", judgeSettings,
                    "the Gen.PPL judge: a causal byte-level Llama of 4 layers, another seed, the "
                    "same corpus"}};
    p.shared = {"model=" + model, "store=" + store, "corpus=" + corpus, "threads=1"};
    p.shared.insert(p.shared.end(), budget.bridges.begin(), budget.bridges.end());
    p.budgetNote =
        smoke ? "smoke: a 4-layer dim-16 model and 6 steps per bridge; for tests only"
              : "full: model " + std::to_string(kModelSteps) + " steps of 16 × 64 tokens; " +
                    std::to_string(kBridgeSteps) +
                    " steps of 16 × 32 tokens per bridge, sized to about an "
                    "hour for 3 seeds on this 2-core machine when idle (docs/studies/dihal.md)";
    // Candidate layers 1..L−1 (geometry/score.h's default range); layer 0 is the control.
    p.arms.push_back(
        {kControl,
         "bridge",
         {"layer=0", "condition=none", "process=gaussian"},
         "the control: embedding-space diffusion of h_0, unconditional (Diffusion-LM style)"});
    for (int64_t l = 1; l < layers; ++l)
      p.arms.push_back(
          {"bridge-l" + std::to_string(l),
           "bridge",
           {"layer=" + std::to_string(l)},
           "a bridge that rebuilds h_" + std::to_string(l) + " from the input embeddings"});
    p.seedArm = "sweep";
    p.metrics = dihalMetrics();
    p.curves = {"val_loss"};
    p.acrossSeedMetrics = layerPermutationMetrics(kSeries, {"trace", "none", "standardise"});
    p.claims = dihalClaims();
    // The layer-permutation test came after this protocol ran: reported beside, not deciding.
    for (auto& claim : p.claims) reportPermutationBeside(claim, kSeries);
    p.headline = "beyond_depth";
    return p;
  }

  std::map<std::string, double> facts(const StudyProtocol&) const override {
    return {{"zero", 0.0}, {"convergence_tolerance", 0.02}};
  }

  /** The activation store of the trained model, captured and scored once (DIR/acts.h5). */
  void afterAuxiliary(const StudyProtocol& p, const fs::path& runs, const StudyOptions& options,
                      JobContext& job) override {
    const fs::path store = storeOf(p);
    if (!fs::exists(store) || !geometry::readGeometry(store)) {
      engine::CaptureConfig capture;
      capture.modelFolder = runs / "model";
      capture.corpus = settingIn(p.shared, "corpus");
      capture.output = store;
      capture.overwrite = true;
      capture.sampling.tokenBudget = p.budget == "smoke" ? 256 : 8192;
      capture.sampling.sequenceLength = p.budget == "smoke" ? 16 : 64;
      capture.device = options.device;
      // float32 whatever the machine: a study's numbers must not depend on its CPU.
      capture.computeDType = engine::ComputeDType::Float32;
      captureAndScoreStore(capture, options.device, job);
    }
    scoreOtherNormalisations(store, options.device, job);
  }

  std::map<std::string, StudyTable> tables(const StudyProtocol& p) const override {
    return dihalLayerTables(storeOf(p), candidates(p));
  }

  std::map<std::string, double> acrossSeeds(
      const StudyProtocol& p, const StudyOptions& /*options*/,
      const std::map<std::string, StudyTable>& tables,
      const std::vector<StudyRunResult>& runs) const override {
    return layerPermutationTests(tables, runs, kSeries, {"trace", "none", "standardise"},
                                 p.bootstrap.seed);
  }

  /** geometry/score.h's default candidates 1..L−1 of the model trained here. */
  static geometry::LayerRange candidates(const StudyProtocol& p) {
    return {1, modelLayers(p.budget == "smoke") - 1};
  }

  void prepareMeasuring(const StudyProtocol& p, const fs::path& runs,
                        const StudyOptions& options) override {
    const bool smoke = p.budget == "smoke";
    const int64_t samples = options.measureSamples >= 0 ? options.measureSamples : (smoke ? 2 : 8);
    m_judge = runs / "judge";
    m_device = options.device;
    m_newTokens = smoke ? 4 : 32;
    m_prompts.clear();
    if (samples > 0)
      m_prompts = corpusPrompts(settingIn(p.shared, "corpus"), samples, smoke ? 8 : 24);
  }

  RunMeasurement measure(const StudyArm& arm, const fs::path& run) override {
    RunMeasurement m = bridgeRunMeasurement(run);
    m.values["gen_ppl"] = m.values["word_diversity"] = m.values["original_gen_ppl"] = kNan;
    if (!m_prompts.empty()) {
      recipes::HybridComparisonConfig config;
      config.bridgeRun = run;
      config.prompts = m_prompts;
      config.sampling.maxNewTokens = static_cast<int>(m_newTokens);
      config.sampling.temperature =
          1.0;  // the sampling of docs/bridge.md: temperature 1, top-p 0.95
      config.sampling.topP = 0.95;
      config.sampling.stopAtEos = false;
      config.judge = m_judge;
      config.original = arm.name == kControl;  // the frozen model's own text, once per seed
      config.device = m_device;
      NullProgressSink quiet;
      JobContext job(quiet, CancellationToken());
      const recipes::HybridComparison c = recipes::compareHybridGeneration(config, job);
      m.values["gen_ppl"] = c.hybridGenPpl;
      m.values["word_diversity"] = c.hybridDiversity;
      if (config.original) m.values["original_gen_ppl"] = c.originalGenPpl;
    }
    return m;
  }

  RunMeasurement seedMeasurement(const StudyProtocol& p, int64_t,
                                 const std::vector<StudyRunResult>& runs) override {
    const fs::path storePath = storeOf(p);
    const std::vector<BridgeLoss> bridges = bridgeLosses(runs);
    const auto sweepUnder = [&](geometry::Normalisation mode) {
      const geometry::GeometryReport scan = storeScan(storePath, mode);
      return sweepOf(scan, scoredOver(scan, candidates(p)).scores, bridges, storePath);
    };
    recipes::BridgeSweepResult sweep = sweepUnder(geometry::Normalisation::Trace);
    RunMeasurement m;
    if (sweep.rows.size() < 2) return m;
    const SweepChoice choice = sweepChoice(sweep);
    m.values = {
        {"rho_s", sweep.rho},
        {"rho_neg_depth", sweep.rhoDepth},
        {"partial_rho", sweep.partialRho},
        {"rho_m_curv", sweep.rhoCurvature},
        {"rho_m_mono", sweep.rhoMonotonicity},
        {"rho_neg_k_eff", sweep.rhoEffectiveRank},
        {"lstar", double(choice.lstar)},
        {"oracle_layer", double(choice.oracle)},
        {"regret_lstar", choice.regretLstar},
        {"regret_worst", choice.regretWorst},
        {"gen_ppl_lstar", valueOf(runs, "bridge-l" + std::to_string(choice.lstar), "gen_ppl")},
        {"gen_ppl_control", valueOf(runs, kControl, "gen_ppl")}};
    for (const geometry::Normalisation mode : otherNormalisations()) {
      const recipes::BridgeSweepResult other = sweepUnder(mode);
      const std::string name = geometry::normalisationName(mode);
      m.values["rho_s_" + name] = other.rho;
      m.values["partial_rho_" + name] = other.partialRho;
    }
    return m;
  }

 private:
  int64_t m_newTokens = 32;
  fs::path m_judge;
  std::string m_device;
  std::vector<std::string> m_prompts;
};

}  // namespace

std::unique_ptr<Study> makeDihalStudy() { return std::make_unique<DihalStudy>(); }

}  // namespace strata::studies
