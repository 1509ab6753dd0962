// `inspect STORE.h5` for activation stores (see inspect_store.h).

#include "inspect_store.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/human_format.h"
#include "geometry/geometry_report.h"
#include "geometry/store_scoring.h"
#include "io/store/store_summary.h"

namespace strata::cli {
namespace {

using Json = nlohmann::ordered_json;

/** What the store's /geometry says, scored as the front end that wrote it printed it. */
struct StoredScore {
  geometry::ScoredGeometry scored;
  std::optional<int64_t> best;  ///< l*, when one layer won
};

std::optional<StoredScore> storedScore(const std::filesystem::path& file) {
  std::optional<geometry::GeometryReport> report = geometry::readGeometry(file);
  if (!report) return std::nullopt;
  StoredScore out{geometry::scoreReport(*report, report->scoredWith), std::nullopt};
  const geometry::LayerScores& scores = out.scored.scores;
  if (scores.bestIndex >= 0) out.best = out.scored.report.layers[size_t(scores.bestIndex)].layer;
  return out;
}

}  // namespace

int inspectStore(const std::filesystem::path& file, bool json) {
  const io::StoreSummary s = io::readStoreSummary(file);
  const io::StoreMeta& meta = s.meta;
  const int64_t stored = meta.numLayers + 1;  // hidden states 0..L, 0 the embedding output
  const int64_t uncompressed =
      s.numTokens * meta.hiddenSize * stored * (meta.dtype == io::StoreDType::Float16 ? 2 : 4);
  const int64_t onDisk = int64_t(std::filesystem::file_size(file));
  const auto sampling = io::samplingPolicyFields(meta.samplingPolicy);
  const std::optional<StoredScore> score = storedScore(file);

  if (json) {
    Json out{{"store", file.string()},
             {"model", meta.modelId},
             {"model_fingerprint", meta.modelFingerprint},
             {"architecture", meta.architecture},
             {"hidden_size", meta.hiddenSize},
             {"num_layers", meta.numLayers},
             {"tokens", s.numTokens},
             {"dtype", io::storeDTypeName(meta.dtype)},
             {"uncompressed_bytes", uncompressed},
             {"file_bytes", onDisk},
             {"completed_layers", s.completedLayers},
             {"corpus_hash", meta.corpusHash},
             {"created_utc", meta.createdUtc},
             {"strata_version", meta.strataVersion}};
    if (sampling.empty()) {
      out["sampling"] = meta.samplingPolicy;
    } else {
      Json fields = Json::object();
      for (const auto& [key, value] : sampling) fields[key] = value;
      out["sampling"] = fields;
    }
    out["attributes"] = meta.extra;
    if (score) {
      const geometry::ScoredGeometry& g = score->scored;
      out["geometry"] = {{"layers_scored", g.report.layerIndices()},
                         {"l_star", score->best ? Json(*score->best) : Json(nullptr)},
                         {"candidates", {g.candidates.first, g.candidates.last}},
                         {"normalisation", normalisationName(g.report.options.normalisation)},
                         {"bootstrap_resamples", g.report.options.bootstrapResamples},
                         {"backend", g.report.backend}};
    } else {
      out["geometry"] = nullptr;
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  const auto row = [](const std::string& label, const std::string& value) {
    std::cout << label << std::string(label.size() < 14 ? 14 - label.size() : 1, ' ') << value
              << "\n";
  };
  row("Store", file.string());
  row("Model", meta.modelId);
  row("Architecture", meta.architecture);
  row("Hidden size", std::to_string(meta.hiddenSize));
  row("Layers", std::to_string(meta.numLayers) + " (hidden states 0–" +
                    std::to_string(meta.numLayers) + ", 0 = embedding output)");
  row("Tokens", formatCount(s.numTokens) + " (" + formatWithSeparators(s.numTokens) + ")");
  row("Dtype", io::storeDTypeName(meta.dtype));
  row("Size", formatBytes(uncompressed) + " of values, " + formatBytes(onDisk) + " on disk");
  const auto done = static_cast<int64_t>(s.completedLayers.size());
  row("Completed", std::to_string(done) + " of " + std::to_string(stored) + " layers" +
                       (done > 0 ? ": " + formatLayerRanges(s.completedLayers) : "") +
                       (done < stored ? " (finish it with `strata-cli capture … --resume`)" : ""));
  if (const auto computed = meta.extra.find("compute_dtype"); computed != meta.extra.end())
    row("Computed in", computed->second);
  row("Corpus hash", meta.corpusHash);
  row("Created",
      meta.createdUtc + (meta.strataVersion.empty() ? "" : " by Strata " + meta.strataVersion));
  if (sampling.empty()) {
    row("Sampling", meta.samplingPolicy);
  } else {
    for (size_t i = 0; i < sampling.size(); ++i)
      row(i == 0 ? "Sampling" : "", sampling[i].first + ": " + sampling[i].second);
  }
  if (!score) {
    row("Geometry", "not scored (strata-cli score --store " + file.string() + ")");
    return 0;
  }
  const geometry::ScoredGeometry& g = score->scored;
  row("Geometry",
      std::to_string(g.report.layers.size()) + " layers scored, " +
          (score->best ? "l* = " + std::to_string(*score->best) : std::string("no l*")) +
          " over candidates " + std::to_string(g.candidates.first) + ".." +
          std::to_string(g.candidates.last) + " (normalisation " +
          normalisationName(g.report.options.normalisation) + ", " +
          std::to_string(g.report.options.bootstrapResamples) +
          " bootstrap resamples; the table: strata-cli score --store FILE)");
  return 0;
}

}  // namespace strata::cli
