// The REPR-ALIGN study (see align_comparison.h).

#include "recipes/align_comparison.h"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/human_format.h"
#include "engine/job.h"
#include "engine/metrics_log.h"
#include "io/text_file.h"
#include "recipes/pretrain_files.h"

namespace strata {
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<StudyVariant> AlignComparisonConfig::defaultVariants() {
  const std::vector<std::string> full = {"freeze_embeddings=false", "freeze_mlp=false"};
  const std::vector<std::string> frozen = {"freeze_embeddings=true", "freeze_mlp=true"};
  const auto with = [](std::vector<std::string> settings, const std::string& lambda) {
    settings.push_back("lambda=" + lambda);
    return settings;
  };
  return {{"lambda0-full", with(full, "0")},
          {"lambda10-full", with(full, "10")},
          {"lambda0-frozen", with(frozen, "0")},
          {"lambda10-frozen", with(frozen, "10")}};
}

namespace {

AlignComparisonRow rowOf(const std::string& name, const fs::path& run) {
  const Json runJson = Json::parse(readWholeFile(run / "run.json"));
  const Json& config = runJson.at("config");
  AlignComparisonRow row;
  row.name = name;
  row.run = run;
  row.lambda = config.at("lambda").get<double>();
  row.frozen = config.at("freeze_embeddings").get<bool>() && config.at("freeze_mlp").get<bool>();
  const Json& facts = runJson.value("description", Json::object());
  row.trainableParameters = std::stoll(facts.value("trainable_parameters", std::string("0")));
  row.bestValLoss = std::numeric_limits<double>::infinity();
  double throughput = 0;
  int64_t logged = 0;
  for (const MetricsRecord& r : readMetricsLog(run / "metrics.jsonl")) {
    if (r.has("tokens_per_s")) {
      throughput += r.value("tokens_per_s");
      ++logged;
    }
    if (!r.has("val_loss")) continue;
    row.valLoss.emplace_back(r.step, r.value("val_loss"));
    row.bestValLoss = std::min(row.bestValLoss, r.value("val_loss"));
    row.maskedAcc = r.value("val_masked_acc");
    double sum = 0;
    int layers = 0;
    for (const auto& [key, value] : r.values)
      if (key.starts_with("val_align_cos_")) sum += value, ++layers;
    row.meanCosine = layers > 0 ? sum / layers : std::nan("");
  }
  if (row.valLoss.empty()) throw FormatError(run / "metrics.jsonl", "has no validation loss");
  row.finalValLoss = row.valLoss.back().second;
  row.tokensPerSecond = logged > 0 ? throughput / static_cast<double>(logged) : 0;
  return row;
}

/** The validation loss at `step`, or NaN when that run did not evaluate there. */
double lossAt(const AlignComparisonRow& row, int64_t step) {
  for (const auto& [s, loss] : row.valLoss)
    if (s == step) return loss;
  return std::nan("");
}

void writeReports(const std::vector<AlignComparisonRow>& rows, const fs::path& folder) {
  // The loss columns: the evaluations of the first run (every run has the same schedule).
  std::vector<int64_t> steps;
  for (const auto& [step, loss] : rows.front().valLoss) steps.push_back(step);
  Json list = Json::array();
  std::string csv = "name,lambda,frozen,trainable_parameters";
  std::string md = "| run | λ | frozen | trainable |";
  std::string rule = "| --- | --- | --- | --- |";
  for (const int64_t s : steps) {
    csv += ",val_loss_" + std::to_string(s);
    md += " val loss @" + std::to_string(s) + " |";
    rule += " --- |";
  }
  csv += ",best_val_loss,masked_acc,mean_cosine,tokens_per_s\n";
  md += " best | masked acc | mean cos | tokens/s |\n" + rule + " --- | --- | --- | --- |\n";
  for (const auto& r : rows) {
    Json curve = Json::array();
    for (const auto& [s, loss] : r.valLoss) curve.push_back({s, loss});
    list.push_back({{"name", r.name}, {"lambda", r.lambda}, {"frozen", r.frozen},
                    {"trainable_parameters", r.trainableParameters}, {"val_loss", curve},
                    {"best_val_loss", r.bestValLoss}, {"masked_acc", r.maskedAcc},
                    {"mean_cosine", std::isfinite(r.meanCosine) ? Json(r.meanCosine) : Json(nullptr)},
                    {"tokens_per_s", r.tokensPerSecond}, {"run", r.run.string()}});
    csv += r.name + "," + formatFixed(r.lambda, 1) + "," + (r.frozen ? "true" : "false") + "," +
           std::to_string(r.trainableParameters);
    md += "| " + r.name + " | " + formatFixed(r.lambda, 0) + " | " + (r.frozen ? "yes" : "no") + " | " +
          formatCount(r.trainableParameters) + " |";
    for (const int64_t s : steps) {
      csv += "," + formatFixed(lossAt(r, s), 6);
      md += " " + formatFixed(lossAt(r, s), 4, "–") + " |";
    }
    csv += "," + formatFixed(r.bestValLoss, 6) + "," + formatFixed(r.maskedAcc, 6) + "," +
           formatFixed(r.meanCosine, 6) + "," + formatFixed(r.tokensPerSecond, 1) + "\n";
    md += " " + formatFixed(r.bestValLoss, 4) + " | " + formatFixed(r.maskedAcc, 4) + " | " +
          formatFixed(r.meanCosine, 3, "–") + " | " + formatFixed(r.tokensPerSecond, 0) + " |\n";
  }
  writeTextAtomically(folder / "compare.json", list.dump(2) + "\n");
  writeTextAtomically(folder / "compare.csv", csv);
  writeTextAtomically(folder / "compare.md", md);
}

}  // namespace

std::vector<AlignComparisonRow> runAlignComparison(const AlignComparisonConfig& c, JobContext& job) {
  if (c.variants.empty()) throw ConfigError("compare-align", "variants", "is empty");
  std::vector<std::string> shared = c.settings;
  shared.push_back("model=" + c.model.string());
  shared.push_back("corpus=" + c.corpus.string());
  shared.push_back("steps=" + std::to_string(c.steps));
  std::vector<AlignComparisonRow> rows;
  for (size_t i = 0; i < c.variants.size(); ++i) {
    const StudyVariant& variant = c.variants[i];
    job.info(variant.name + " (" + std::to_string(i + 1) + " of " + std::to_string(c.variants.size()) + ")");
    rows.push_back(rowOf(variant.name, trainStudyRun("repr_align", c.folder, shared, variant,
                                                     "strata-cli compare-align", job)));
  }
  writeReports(rows, c.folder);
  return rows;
}

}  // namespace strata
