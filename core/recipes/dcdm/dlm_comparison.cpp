// The masked-diffusion comparison's rows and tables (see dlm_comparison.h).

#include "recipes/dcdm/dlm_comparison.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "common/human_format.h"
#include "engine/run_folder.h"
#include "io/atomic_file.h"
#include "model/diffusion/dlm_variant.h"
#include "recipes/dcdm/dlm_sample_quality.h"
#include "recipes/run_config.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::vector<DlmVariantSpec> DlmComparisonConfig::defaultVariants() {
  return {{"mdlm", {"variant=mdlm"}},
          {"bdlm-B8", {"variant=bdlm", "block_size=8"}},
          {"dcdm-K8-h4", {"variant=dcdm", "chunks=8", "subspace_rank=4"}},
          {"dcdm-K4-h4", {"variant=dcdm", "chunks=4", "subspace_rank=4"}},
          {"dcdm-K16-h4", {"variant=dcdm", "chunks=16", "subspace_rank=4"}},
          {"dcdm-K8-h1", {"variant=dcdm", "chunks=8", "subspace_rank=1"}}};
}

DlmComparisonRow dlmComparisonRow(const std::string& name, const fs::path& run) {
  const engine::RunManifest manifest = engine::requireRun(run, "dcdm");
  const engine::ResolvedConfig config = runConfig(manifest);
  DlmComparisonRow row;
  row.name = name;
  row.run = run;
  row.variant = config.text("variant");
  const model::DlmVariant variant = model::parseDlmVariant(row.variant, manifest.file);
  row.chunks = variant == model::DlmVariant::Dcdm ? config.integer("chunks") : 0;
  row.rank = variant == model::DlmVariant::Dcdm ? config.integer("subspace_rank") : 0;
  row.blockSize = variant == model::DlmVariant::Bdlm ? config.integer("block_size") : 0;
  row.parameters = manifest.integerFactOr("parameters", 0);
  row.routerParameters = manifest.integerFactOr("router_parameters", 0);
  const engine::RunMetrics metrics = engine::RunFolder(run).metrics();
  row.valLoss = engine::minimumOf(metrics.validationLoss());
  row.maskedAcc = metrics.last("val_masked_acc");
  row.loadEntropy = metrics.last("val_load_entropy");  // NaN for mdlm and bdlm: not logged
  row.maxChunkShare = metrics.last("val_max_chunk_share");
  row.pplBound = std::exp(row.valLoss);
  row.genPpl = row.wordDiversity = row.tokenDiversity = std::nan("");
  const double throughput = metrics.mean("tokens_per_s");
  row.tokensPerSecond = std::isfinite(throughput) ? throughput : 0;
  return row;
}

void addSampleQuality(DlmComparisonRow& row, int64_t samples, const GenerationJudge* judge,
                      const std::string& device) {
  const DlmSampleQuality q = judgeDlmSamples(row.run, samples, judge, device);
  row.genPpl = q.genPpl;
  row.wordDiversity = q.wordDiversity;
  row.tokenDiversity = q.tokenDiversity;
}

void writeDlmComparisonReports(const std::vector<DlmComparisonRow>& rows, const fs::path& folder,
                               const std::string& judge) {
  Json list = Json::array();
  std::string csv =
      "name,variant,chunks,subspace_rank,block_size,val_loss,ppl_bound,masked_acc,"
      "load_entropy,max_chunk_share,tokens_per_s,parameters,router_parameters,gen_ppl,"
      "word_diversity,token_diversity\n";
  std::string md =
      "| run | variant | K | h | B | best val ELBO | PPL bound | masked acc | load "
      "entropy | max chunk share | tokens/s | parameters (router) | Gen.PPL (judge) | word div | "
      "token div |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- "
      "|\n";
  for (const auto& r : rows) {
    list.push_back(
        {{"name", r.name},
         {"variant", r.variant},
         {"chunks", r.chunks},
         {"subspace_rank", r.rank},
         {"block_size", r.blockSize},
         {"val_loss", r.valLoss},
         {"ppl_bound", r.pplBound},
         {"masked_acc", r.maskedAcc},
         {"load_entropy", std::isfinite(r.loadEntropy) ? Json(r.loadEntropy) : Json(nullptr)},
         {"max_chunk_share",
          std::isfinite(r.maxChunkShare) ? Json(r.maxChunkShare) : Json(nullptr)},
         {"tokens_per_s", r.tokensPerSecond},
         {"parameters", r.parameters},
         {"router_parameters", r.routerParameters},
         {"gen_ppl", std::isfinite(r.genPpl) ? Json(r.genPpl) : Json(nullptr)},
         {"word_diversity", std::isfinite(r.wordDiversity) ? Json(r.wordDiversity) : Json(nullptr)},
         {"token_diversity",
          std::isfinite(r.tokenDiversity) ? Json(r.tokenDiversity) : Json(nullptr)},
         {"judge", judge},
         {"run", r.run.string()}});
    csv += r.name + "," + r.variant + "," + std::to_string(r.chunks) + "," +
           std::to_string(r.rank) + "," + std::to_string(r.blockSize) + "," +
           formatFixed(r.valLoss, 6, "–") + "," + formatFixed(r.pplBound, 4, "–") + "," +
           formatFixed(r.maskedAcc, 6, "–") + "," + formatFixed(r.loadEntropy, 6, "–") + "," +
           formatFixed(r.maxChunkShare, 6, "–") + "," + formatFixed(r.tokensPerSecond, 1, "–") +
           "," + std::to_string(r.parameters) + "," + std::to_string(r.routerParameters) + "," +
           formatFixed(r.genPpl, 4, "–") + "," + formatFixed(r.wordDiversity, 6, "–") + "," +
           formatFixed(r.tokenDiversity, 6, "–") + "\n";
    md += "| " + r.name + " | " + r.variant + " | " + (r.chunks ? std::to_string(r.chunks) : "–") +
          " | " + (r.rank ? std::to_string(r.rank) : "–") + " | " +
          (r.blockSize ? std::to_string(r.blockSize) : "–") + " | " +
          formatFixed(r.valLoss, 4, "–") + " | " + formatFixed(r.pplBound, 2, "–") + " | " +
          formatFixed(r.maskedAcc, 4, "–") + " | " + formatFixed(r.loadEntropy, 3, "–") + " | " +
          formatFixed(r.maxChunkShare, 3, "–") + " | " + formatFixed(r.tokensPerSecond, 0, "–") +
          " | " + std::to_string(r.parameters) + " (" + std::to_string(r.routerParameters) +
          ") | " + formatFixed(r.genPpl, 2, "–") + " | " + formatFixed(r.wordDiversity, 3, "–") +
          " | " + formatFixed(r.tokenDiversity, 3, "–") + " |\n";
  }
  md += judge.empty() ? "\nGen.PPL: no judge given (--judge MODEL_DIR).\n"
                      : "\nGen.PPL judged by " + judge + " (re-tokenised with its tokenizer).\n";
  io::writeTextAtomically(folder / "compare.json", list.dump(2) + "\n");
  io::writeTextAtomically(folder / "compare.csv", csv);
  io::writeTextAtomically(folder / "compare.md", md);
}

}  // namespace strata::recipes
