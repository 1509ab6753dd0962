// The alignment comparison's rows and tables (see align_comparison.h).

#include "recipes/repr_align/align_comparison.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/human_format.h"
#include "engine/run_folder.h"
#include "io/atomic_file.h"
#include "recipes/run_config.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<StudyVariant> AlignComparisonConfig::defaultVariants() {
  const std::vector<std::string> full = {"freeze_embeddings=false", "freeze_mlp=false"};
  const std::vector<std::string> frozen = {"freeze_embeddings=true", "freeze_mlp=true"};
  std::vector<std::string> scratch = full;
  scratch.push_back("student_init=random");
  const auto with = [](std::vector<std::string> settings, const std::string& lambda) {
    settings.push_back("lambda=" + lambda);
    return settings;
  };
  return {{"lambda0-full", with(full, "0")},
          {"lambda10-full", with(full, "10")},
          {"lambda0-frozen", with(frozen, "0")},
          {"lambda10-frozen", with(frozen, "10")},
          // From scratch: the same architecture and budget without the AR weights.
          {"scratch-full", with(scratch, "0")}};
}

namespace {

/** "val_align_cos_<l>" with a number l: one of the L + 1 HF states (not "…_pre_norm"). */
bool isHuggingFaceStateCosine(const std::string& key) {
  static const std::string prefix = "val_align_cos_";
  return key.size() > prefix.size() && key.starts_with(prefix) &&
         key.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
}

}  // namespace

AlignComparisonRow alignComparisonRow(const std::string& name, const fs::path& run) {
  const engine::RunManifest manifest = engine::requireRun(run, "repr_align");
  const engine::ResolvedConfig config = runConfig(manifest);
  AlignComparisonRow row;
  row.name = name;
  row.run = run;
  row.lambda = config.real("lambda");
  row.frozen = config.boolean("freeze_embeddings") && config.boolean("freeze_mlp");
  row.randomInit = config.text("student_init") == "random";
  row.lossName = config.text("ce_weighting") == "uniform" ? "masked CE" : "ELBO";
  row.trainableParameters = manifest.integerFactOr("trainable_parameters", 0);
  const engine::RunMetrics metrics = engine::RunFolder(run).metrics();
  row.valLoss = metrics.validationLoss();
  row.bestValLoss = engine::minimumOf(row.valLoss);
  row.finalValLoss = engine::lastOf(row.valLoss);
  row.maskedAcc = metrics.last("val_masked_acc");
  // The mean over the aligned states of their cosine at the last evaluation.
  row.meanCosine = std::nan("");
  for (auto r = metrics.records().rbegin(); r != metrics.records().rend(); ++r) {
    if (!r->has("val_loss")) continue;
    double sum = 0;
    int layers = 0;
    for (const auto& [key, value] : r->values)
      if (isHuggingFaceStateCosine(key)) sum += value, ++layers;
    if (layers > 0) row.meanCosine = sum / layers;
    break;
  }
  const double throughput = metrics.mean("tokens_per_s");
  row.tokensPerSecond = std::isfinite(throughput) ? throughput : 0;
  return row;
}

namespace {

/** The validation loss at `step`, or NaN when that run did not evaluate there. */
double lossAt(const AlignComparisonRow& row, int64_t step) {
  for (const auto& [s, loss] : row.valLoss)
    if (s == step) return loss;
  return std::nan("");
}

/** Gen.PPL and the diversities, or empty cells when no samples were drawn. */
std::string qualityCells(const StudentSampleQuality& q, const std::string& separator, int digits,
                         const std::string& empty) {
  if (q.samples == 0) return empty + separator + empty + separator + empty;
  return formatFixed(q.genPpl, digits) + separator + formatFixed(q.wordDiversity, digits) +
         separator + formatFixed(q.tokenDiversity, digits);
}

}  // namespace

void writeAlignComparisonReports(const std::vector<AlignComparisonRow>& rows,
                                 const fs::path& folder) {
  // The loss columns: the evaluations of the first run (every run has the same schedule).
  std::vector<int64_t> steps;
  for (const auto& [step, loss] : rows.front().valLoss) steps.push_back(step);
  const std::string lossName = rows.front().lossName;
  const StudentSampleQuality& sampled = rows.front().quality;
  Json list = Json::array();
  std::string csv = "name,lambda,frozen,student_init,trainable_parameters";
  std::string md = "| run | λ | frozen | init | trainable |";
  std::string rule = "| --- | --- | --- | --- | --- |";
  for (const int64_t s : steps) {
    csv += ",val_loss_" + std::to_string(s);
    md += " val " + lossName + " @" + std::to_string(s) + " |";
    rule += " --- |";
  }
  csv +=
      ",best_val_loss,masked_acc,mean_cosine,tokens_per_s,gen_ppl,word_diversity,token_diversity\n";
  md += " best | masked acc | mean cos | tokens/s | Gen.PPL | word div | token div |\n" + rule +
        " --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& r : rows) {
    Json curve = Json::array();
    for (const auto& [s, loss] : r.valLoss) curve.push_back({s, loss});
    Json row = {{"name", r.name},
                {"lambda", r.lambda},
                {"frozen", r.frozen},
                {"student_init", r.randomInit ? "random" : "pretrained"},
                {"trainable_parameters", r.trainableParameters},
                {"val_loss_kind", r.lossName},
                {"val_loss", curve},
                {"best_val_loss", r.bestValLoss},
                {"masked_acc", r.maskedAcc},
                {"mean_cosine", std::isfinite(r.meanCosine) ? Json(r.meanCosine) : Json(nullptr)},
                {"tokens_per_s", r.tokensPerSecond},
                {"run", r.run.string()}};
    if (r.quality.samples > 0)
      row["samples"] = {{"count", r.quality.samples},
                        {"judge", r.quality.judge},
                        {"gen_ppl", r.quality.genPpl},
                        {"judged_tokens", r.quality.judgedTokens},
                        {"mean_cross_entropy", r.quality.meanCrossEntropy},
                        {"word_diversity", r.quality.wordDiversity},
                        {"token_diversity", r.quality.tokenDiversity}};
    list.push_back(row);
    const std::string init = r.randomInit ? "random" : "pretrained";
    csv += r.name + "," + formatFixed(r.lambda, 1) + "," + (r.frozen ? "true" : "false") + "," +
           init + "," + std::to_string(r.trainableParameters);
    md += "| " + r.name + " | " + formatFixed(r.lambda, 0) + " | " + (r.frozen ? "yes" : "no") +
          " | " + init + " | " + formatCount(r.trainableParameters) + " |";
    for (const int64_t s : steps) {
      csv += "," + formatFixed(lossAt(r, s), 6);
      md += " " + formatFixed(lossAt(r, s), 4, "–") + " |";
    }
    csv += "," + formatFixed(r.bestValLoss, 6) + "," + formatFixed(r.maskedAcc, 6) + "," +
           formatFixed(r.meanCosine, 6) + "," + formatFixed(r.tokensPerSecond, 1) + "," +
           qualityCells(r.quality, ",", 6, "") + "\n";
    md += " " + formatFixed(r.bestValLoss, 4) + " | " + formatFixed(r.maskedAcc, 4) + " | " +
          formatFixed(r.meanCosine, 3, "–") + " | " + formatFixed(r.tokensPerSecond, 0) + " | " +
          qualityCells(r.quality, " | ", 4, "–") + " |\n";
  }
  if (sampled.samples > 0)
    md += "\nGen.PPL: " + std::to_string(sampled.samples) +
          " samples per student, judged by the teacher " + sampled.judge +
          " (the original autoregressive model); diversity per text (SimCTG).\n";
  io::writeTextAtomically(folder / "compare.json", list.dump(2) + "\n");
  io::writeTextAtomically(folder / "compare.csv", csv);
  io::writeTextAtomically(folder / "compare.md", md);
}

}  // namespace strata::recipes
