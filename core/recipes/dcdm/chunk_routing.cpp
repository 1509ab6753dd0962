// Routing a text with a trained dcdm run (see chunk_routing.h).

#include "recipes/dcdm/chunk_routing.h"

#include <torch/torch.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "engine/checkpoint_store.h"
#include "engine/run_folder.h"
#include "io/atomic_file.h"
#include "recipes/dcdm/dcdm_files.h"
#include "recipes/dcdm/training_mask.h"

namespace strata::recipes {

namespace fs = std::filesystem;

std::vector<int64_t> dlmCheckpointSteps(const fs::path& runFolder) {
  std::vector<int64_t> steps;
  for (const auto& [step, folder] : engine::RunFolder(runFolder).checkpoints().checkpoints())
    if (engine::CheckpointStore::verify(folder)) steps.push_back(step);
  std::sort(steps.begin(), steps.end());
  return steps;
}

ChunkRoutingReport routeText(const fs::path& runFolder, const std::string& text,
                             std::optional<int64_t> checkpointStep, RoutedLength routed) {
  LoadedDlm dlm = checkpointStep ? loadDlmRunAt(runFolder, *checkpointStep) : loadDlmRun(runFolder);
  torch::NoGradGuard noGrad;
  const auto& shape = dlm.model->config();
  ChunkRoutingReport report;
  report.variant = shape.variant;
  report.checkpointStep = dlm.checkpointStep;
  report.trainedSeqLen = dlm.config.integer("seq_len");
  report.tokenIds = dlm.tokenizer->encode(text, true);
  if (report.tokenIds.empty()) throw Error("routing: the text has no tokens");
  report.textTokens = static_cast<int64_t>(report.tokenIds.size());
  const int64_t limit =
      routed == RoutedLength::TrainedSeqLen ? report.trainedSeqLen : shape.maxPositions;
  if (report.textTokens > limit) report.tokenIds.resize(static_cast<size_t>(limit));
  for (const int32_t id : report.tokenIds)
    report.tokenTexts.push_back(dlm.tokenizer->decode(std::span<const int32_t>(&id, 1), false));
  const auto length = static_cast<int64_t>(report.tokenIds.size());
  const torch::Tensor x =
      torch::tensor(std::vector<int64_t>(report.tokenIds.begin(), report.tokenIds.end()))
          .unsqueeze(0);
  // The layout training computes for this text as x_0 (dcdm: chunk-sequential routing).
  const model::ChunkLayout layout = dlm.model->chunkLayout(x);
  const torch::Tensor ids = layout.ids[0];
  report.chunks = layout.chunks;
  if (shape.variant == model::DlmVariant::Dcdm) {
    const torch::Tensor a = layout.affinity[0].to(torch::kFloat).contiguous();
    const torch::Tensor p = layout.assignments[0].to(torch::kFloat).contiguous();
    for (int64_t l = 0; l < length; ++l) {
      report.affinities.emplace_back(a[l].data_ptr<float>(), a[l].data_ptr<float>() + shape.chunks);
      report.assignments.emplace_back(p[l].data_ptr<float>(),
                                      p[l].data_ptr<float>() + shape.chunks);
    }
  }
  for (int64_t l = 0; l < length; ++l) report.chunkIds.push_back(ids[l].item<int64_t>());
  report.trainingMask = trainingMaskRows(report.chunkIds);
  return report;
}

void writeChunkRoutingCsv(const ChunkRoutingReport& r, const fs::path& file) {
  std::string csv = "position,token_id,token,chunk";
  for (size_t k = 0; k < (r.affinities.empty() ? 0 : r.affinities[0].size()); ++k)
    csv.append(",affinity_").append(std::to_string(k));
  csv += "\n";
  for (size_t l = 0; l < r.tokenIds.size(); ++l) {
    csv.append(std::to_string(l)).append(",").append(std::to_string(r.tokenIds[l])).append(",");
    csv.append(nlohmann::json(r.tokenTexts[l])
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    csv.append(",").append(std::to_string(r.chunkIds[l]));
    if (!r.affinities.empty())
      for (const float a : r.affinities[l]) csv.append(",").append(nlohmann::json(a).dump());
    csv += "\n";
  }
  io::writeTextAtomically(file, csv);
}

}  // namespace strata::recipes
