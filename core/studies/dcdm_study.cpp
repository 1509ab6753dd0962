// The DCDM study's protocol and measurements (see dcdm_study.h and docs/studies/dcdm.md).

#include "studies/dcdm_study.h"

#include <array>
#include <cmath>
#include <fstream>
#include <memory>

#include "common/error.h"
#include "engine/run_folder.h"
#include "recipes/dcdm/dlm_sample_quality.h"
#include "recipes/sample_quality.h"
#include "studies/study_protocol.h"
#include "studies/study_settings.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

/** Entropy (nats) of the byte frequencies of a file: what a unigram model of its bytes costs
 *  per byte, the level a byte-level LM passes once it uses any context. */
double byteUnigramEntropy(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot be read: " + lastSystemError());
  std::array<double, 256> counts{};
  std::array<char, 65536> buffer{};
  double total = 0;
  while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i)
      counts[static_cast<unsigned char>(buffer[i])] += 1;
    total += static_cast<double>(in.gcount());
  }
  if (total == 0) throw FormatError(file, "is empty", {}, "file");
  double h = 0;
  for (double c : counts)
    if (c > 0) h -= c / total * std::log(c / total);
  return h;
}

class DcdmStudy final : public Study {
 public:
  StudyProtocol protocol(const StudyOptions& options) const override {
    checkStudyOptions(options);
    const bool smoke = options.budget == "smoke";
    const std::string corpus = studyCorpus(options);

    StudyProtocol p;
    p.name = "dcdm";
    p.title = "DCDM: content-defined chunks against fixed blocks and unstructured diffusion";
    p.question =
        "At equal steps, does dcdm (content-defined chunks) reach a lower validation ELBO and "
        "better samples than bdlm (positional blocks) and mdlm (no chunks)?";
    p.budget = options.budget;
    for (int64_t s = 0; s < options.seeds; ++s) p.seeds.push_back(s);
    // The model, data and optimiser of every arm: a byte-level transformer of 2 layers, dim 64,
    // 64-token sequences (so K chunks ↔ blocks of B = 64 / K tokens), one CPU thread.
    const std::vector<std::string> model =
        smoke ? std::vector<std::string>{"seq_len=16", "batch=2", "dim=16",
                                         "layers=1",   "heads=2", "mlp=32"}
              : std::vector<std::string>{"seq_len=64", "batch=8", "dim=64",
                                         "layers=2",   "heads=4", "mlp=256"};
    const int64_t steps = smoke ? 6 : kFullSteps;
    const int64_t every = smoke ? 3 : kFullSteps / 10;
    p.shared = {"corpus=" + corpus, "tokenizer=byte", "threads=1", "lr=0.002",
                "warmup=" + std::to_string(smoke ? 1 : kFullSteps / 20),
                "steps=" + std::to_string(steps), "eval_every=" + std::to_string(every),
                "checkpoint_every=" + std::to_string(every),
                // Every arm on the same windows and noise, the ELBO on a fixed t grid
                // (docs/dcdm.md, "Evaluation protocol"), sampling at one step per token.
                "eval_windows=" + std::to_string(smoke ? 2 : 128),
                "eval_t_points=" + std::to_string(smoke ? 2 : 8), "eval_seed=0",
                "sample_steps_per_token=1", "log_every=" + std::to_string(smoke ? 1 : 25)};
    p.shared.insert(p.shared.end(), model.begin(), model.end());
    p.budgetNote = smoke ? "smoke: 6 steps of 2 × 16 tokens, a 1-layer dim-16 model; for tests only"
                         : "full: " + std::to_string(kFullSteps) +
                               " steps of 8 × 64 tokens per run; mdlm, bdlm-B8 and dcdm-K8-h4 at "
                               "every seed (8 asked: about 2 hours on this 2-core machine when "
                               "idle), the other arms at the first " +
                               std::to_string(kAblationSeeds) + " (docs/studies/dcdm.md)";
    // The headline arms (mdlm, bdlm-B8, dcdm-K8-h4) train at every seed (the protocol asks for
    // 8: their seed spread was larger than the gaps between them with 3); the ablations at the
    // first kAblationSeeds (the first one under smoke, so the tests run the limit too).
    const int64_t ablationSeeds = smoke ? 1 : kAblationSeeds;
    p.arms = {
        {"mdlm", "dcdm", {"variant=mdlm"}, "MDLM: no chunks, one masking level per sequence"},
        {"bdlm-B4", "dcdm", {"variant=bdlm", "block_size=4"}, "BD3-LM, blocks of 4 tokens"},
        {"bdlm-B8", "dcdm", {"variant=bdlm", "block_size=8"}, "BD3-LM, blocks of 8 tokens"},
        {"bdlm-B16", "dcdm", {"variant=bdlm", "block_size=16"}, "BD3-LM, blocks of 16 tokens"},
        {"dcdm-K4-h4",
         "dcdm",
         {"variant=dcdm", "chunks=4", "subspace_rank=4"},
         "DCDM, 4 chunks, subspace routing h = 4"},
        {"dcdm-K8-h4",
         "dcdm",
         {"variant=dcdm", "chunks=8", "subspace_rank=4"},
         "DCDM, 8 chunks, subspace routing h = 4"},
        {"dcdm-K16-h4",
         "dcdm",
         {"variant=dcdm", "chunks=16", "subspace_rank=4"},
         "DCDM, 16 chunks, subspace routing h = 4"},
        {"dcdm-K8-h1",
         "dcdm",
         {"variant=dcdm", "chunks=8", "subspace_rank=1"},
         "DCDM, 8 chunks, point routing h = 1"},
    };
    // The judge: a causal byte-level Llama of the same size, pretrained once on the same corpus.
    std::vector<std::string> judge = {"corpus=" + corpus, "tokenizer=byte", "threads=1",
                                      "lr=0.002"};
    judge.insert(judge.end(), model.begin(), model.end());
    for (const auto& s : smoke ? std::vector<std::string>{"steps=6", "warmup=1", "eval_every=3",
                                                          "eval_windows=2", "log_every=1"}
                               : std::vector<std::string>{"steps=" + std::to_string(kJudgeSteps),
                                                          "batch=16", "warmup=50", "eval_every=500",
                                                          "checkpoint_every=500", "log_every=50"})
      judge.push_back(s);
    for (auto& arm : p.arms)
      if (arm.name != "mdlm" && arm.name != "bdlm-B8" && arm.name != "dcdm-K8-h4")
        arm.seedLimit = ablationSeeds;
    p.auxiliary = {{"judge", "pretrain", judge,
                    "the Gen.PPL judge: a causal LM of the same size on the same corpus"}};
    p.metrics = {{"val_elbo_best", "best validation ELBO (nats/token)", true},
                 {"val_elbo_final", "final validation ELBO (nats/token)", true},
                 {"val_masked_acc", "final masked-token accuracy", false},
                 {"gen_ppl", "Gen.PPL of samples under the judge", true},
                 {"token_diversity", "token diversity of samples", false},
                 {"load_entropy_final", "final chunk-load entropy (normalised)", false},
                 {"load_entropy_mean", "chunk-load entropy, mean over evaluations", false},
                 {"max_chunk_share", "final largest chunk share", true},
                 {"train_seconds", "training wall clock (s)", true},
                 {"tokens_per_s", "training throughput (tokens/s)", false}};
    p.curves = {"val_loss", "val_load_entropy"};
    const auto lower = ClaimDirection::Lower;
    p.claims = {
        {"sanity_bd3lm",
         "sanity check (BD3-LM): bdlm with small blocks (B = 4) has a lower val ELBO than mdlm",
         "val_elbo_best", "bdlm-B4", "mdlm", "", lower, 0},
        {"past_unigram",
         "budget check: mdlm's final val ELBO lies clearly (0.1 nats) below the corpus's byte "
         "unigram entropy",
         "val_elbo_final", "mdlm", "", "unigram_entropy", lower, 0.1},
        {"dcdm_vs_bdlm",
         "dcdm K = 8 (h = 4) has a lower val ELBO than bdlm B = 8 (same mean chunk size)",
         "val_elbo_best", "dcdm-K8-h4", "bdlm-B8", "", lower, 0},
        {"dcdm_vs_mdlm", "dcdm K = 8 (h = 4) has a lower val ELBO than mdlm", "val_elbo_best",
         "dcdm-K8-h4", "mdlm", "", lower, 0},
        {"dcdm_K4_vs_bdlm_B16", "dcdm K = 4 has a lower val ELBO than bdlm B = 16", "val_elbo_best",
         "dcdm-K4-h4", "bdlm-B16", "", lower, 0},
        {"dcdm_K16_vs_bdlm_B4", "dcdm K = 16 has a lower val ELBO than bdlm B = 4", "val_elbo_best",
         "dcdm-K16-h4", "bdlm-B4", "", lower, 0},
        {"genppl_dcdm_vs_bdlm", "dcdm K = 8 samples have a lower Gen.PPL than bdlm B = 8's",
         "gen_ppl", "dcdm-K8-h4", "bdlm-B8", "", lower, 0},
        {"genppl_dcdm_vs_mdlm", "dcdm K = 8 samples have a lower Gen.PPL than mdlm's", "gen_ppl",
         "dcdm-K8-h4", "mdlm", "", lower, 0},
        {"h1_collapse",
         "point routing (h = 1) ends with less balanced chunk loads than h = 4 (K = 8)",
         "load_entropy_final", "dcdm-K8-h1", "dcdm-K8-h4", "", lower, 0},
    };
    p.headline = "dcdm_vs_bdlm";
    return p;
  }

  std::map<std::string, double> facts(const StudyProtocol& p) const override {
    return {{"unigram_entropy", byteUnigramEntropy(settingIn(p.shared, "corpus"))}};
  }

  void prepareMeasuring(const StudyProtocol& p, const fs::path& runs,
                        const StudyOptions& options) override {
    m_samples =
        options.measureSamples >= 0 ? options.measureSamples : (p.budget == "smoke" ? 2 : 8);
    m_device = options.device;
    m_judge = std::make_unique<recipes::GenerationJudge>(runs / "judge", options.device);
  }

  RunMeasurement measure(const StudyArm&, const fs::path& run) override {
    const engine::RunMetrics metrics = engine::RunFolder(run).metrics();
    RunMeasurement m;
    const engine::LoggedSeries val = metrics.validationLoss();
    const engine::LoggedSeries load = metrics.series("val_load_entropy");
    m.values["val_elbo_best"] = engine::minimumOf(val);
    m.values["val_elbo_final"] = engine::lastOf(val);
    m.values["val_masked_acc"] = metrics.last("val_masked_acc");
    m.values["load_entropy_final"] = engine::lastOf(load);
    m.values["load_entropy_mean"] = engine::meanOf(load);
    m.values["max_chunk_share"] = metrics.last("val_max_chunk_share");
    m.values["tokens_per_s"] = metrics.mean("tokens_per_s");
    const recipes::DlmSampleQuality q =
        recipes::judgeDlmSamples(run, m_samples, m_judge.get(), m_device);
    m.values["gen_ppl"] = q.genPpl;
    m.values["token_diversity"] = q.tokenDiversity;
    m.curves["val_loss"] = val;
    if (!load.empty()) m.curves["val_load_entropy"] = load;
    return m;
  }

 private:
  static constexpr int64_t kFullSteps =
      4000;  // measured: ≈ 0.8 s per step of all 24 runs here (docs/studies/dcdm.md)
  static constexpr int64_t kJudgeSteps = 1500;
  static constexpr int64_t kAblationSeeds = 3;  // the arms besides the headline three
  int64_t m_samples = 8;
  std::string m_device = "auto";
  std::unique_ptr<recipes::GenerationJudge> m_judge;
};

}  // namespace

std::unique_ptr<Study> makeDcdmStudy() { return std::make_unique<DcdmStudy>(); }

}  // namespace strata::studies
