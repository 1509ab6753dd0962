#include "score_output.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

namespace strata::cli {
namespace {

/** A value as the table shows it; undefined values (NaN, ±∞) read "n/a", never "nan". */
std::string number(double value, const char* format = "%.4g") {
  if (!geometry::isDefined(value)) return "n/a";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string withInterval(double value, const geometry::Interval& interval, bool bootstrapped) {
  if (!bootstrapped) return number(value);
  return number(value) + " [" + number(interval.low) + ", " + number(interval.high) + "]";
}

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text : std::string(width - text.size(), ' ') + text;
}

nlohmann::json jsonNumber(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json spectrumJson(const std::vector<double>& spectrum) {
  nlohmann::json out = nlohmann::json::array();
  for (double v : spectrum) out.push_back(jsonNumber(v));
  return out;
}

nlohmann::json jsonInterval(const geometry::Interval& interval) {
  return {jsonNumber(interval.low), jsonNumber(interval.high)};
}

double weightOf(const geometry::ScoredGeometry& s, size_t series) {
  return geometry::weightOf(s.series, s.weights, series);
}

/** The warnings of layer entry i: the layer's own, then the score's about it. */
std::vector<geometry::ProxyWarning> warningsOf(const geometry::ScoredGeometry& s, size_t i) {
  std::vector<geometry::ProxyWarning> out = s.report.layers[i].warnings;
  for (const auto& w : s.scores.warnings)
    if (w.layer == s.report.layers[i].layer) out.push_back(w);
  return out;
}

geometry::Interval bootOf(const geometry::ScoredGeometry& s, size_t i) {
  return i < s.bootstrap.score.size()
             ? s.bootstrap.score[i]
             : geometry::Interval{geometry::kUndefined, geometry::kUndefined};
}

bool excludesPoint(const geometry::ScoredGeometry& s, size_t i) {
  return i < s.bootstrap.excludesPoint.size() && s.bootstrap.excludesPoint[i];
}

double frequencyOf(const geometry::ScoredGeometry& s, size_t i) {
  return i < s.bootstrap.bestFrequency.size() ? s.bootstrap.bestFrequency[i] : geometry::kUndefined;
}

nlohmann::json warningJson(const geometry::ProxyWarning& w) {
  return {{"layer", w.layer}, {"proxy", w.proxy}, {"reason", w.reason}, {"undefined", w.undefined}};
}

}  // namespace

std::string formatScoreTable(const geometry::ScoredGeometry& s) {
  const bool bootstrapped = s.report.options.bootstrapResamples > 0;
  const bool scoreBootstrapped = s.bootstrap.resamples > 0;
  std::vector<std::string> header{"layer"};
  for (const auto& series : s.series) header.push_back(series.info.name);
  header.push_back("score");
  if (scoreBootstrapped) header.insert(header.end(), {"S interval", "l* freq"});
  for (const char* c : {"rank", ""}) header.push_back(c);
  std::vector<std::vector<std::string>> rows{header};
  for (size_t i = 0; i < s.report.layers.size(); ++i) {
    const auto& l = s.report.layers[i];
    const bool warned = !warningsOf(s, i).empty();
    std::vector<std::string> row{std::to_string(l.layer) + (warned ? " !" : "")};
    for (const auto& series : s.series)
      row.push_back(series.intervals.empty()
                        ? number(series.values[i])
                        : withInterval(series.values[i], series.intervals[i], bootstrapped));
    row.push_back(number(s.scores.score[i], "%+.3f"));
    if (scoreBootstrapped) {
      const geometry::Interval& si = s.bootstrap.score[i];
      row.push_back(geometry::isDefined(si.low) || geometry::isDefined(si.high)
                        ? "[" + number(si.low, "%+.2f") + ", " + number(si.high, "%+.2f") + "]" +
                              (excludesPoint(s, i) ? "*" : "")
                        : "");
      row.push_back(number(s.bootstrap.bestFrequency[i], "%.2f"));
    }
    row.push_back(s.scores.rank[i] ? std::to_string(s.scores.rank[i]) : "-");
    row.push_back(int64_t(i) == s.scores.bestIndex ? "<- l*" : "");
    rows.push_back(std::move(row));
  }
  std::vector<size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  std::ostringstream out;
  for (const auto& row : rows) {
    std::string line;
    for (size_t c = 0; c + 1 < row.size(); ++c) line += (c ? "  " : "") + padded(row[c], widths[c]);
    line += row.back().empty() ? "" : "  " + row.back();
    out << line << "\n";
  }
  out << "\nl* = ";
  if (s.scores.bestIndex >= 0)
    out << s.report.layers[size_t(s.scores.bestIndex)].layer;
  else
    out << "none (no candidate layer has finite proxies)";
  out << " over candidates " << s.candidates.first << ".." << s.candidates.last << "; weights";
  for (size_t m = 0; m < s.series.size(); ++m)
    out << " " << s.series[m].weightName << "=" << weightOf(s, m)
        << (s.series[m].info.higherIsBetter ? "(+)" : "(-)");
  out << "; normalisation " << geometry::normalisationName(s.report.options.normalisation);
  if (bootstrapped)
    out << "; intervals: " << s.report.options.bootstrapResamples << " token resamples, "
        << number(100 * s.report.options.confidence) << "% "
        << (s.report.options.jackknifeBlocks > 0
                ? "BCa (jackknife over " + std::to_string(s.report.options.jackknifeBlocks) +
                      " token blocks)"
                : std::string("percentile"))
        << " for the proxies, percentile for S (* = excludes the point S: extreme z-scores "
           "shrink toward 0 on resamples); l* freq = share of resamples whose l* it is";
  out << "\n";
  for (const std::string& w : s.scoreWarnings) out << "\n! " << w << "\n";
  // Footnotes for the layers marked "!": n/a values and what else needs care, by proxy.
  bool first = true;
  for (size_t i = 0; i < s.report.layers.size(); ++i)
    for (const auto& w : warningsOf(s, i)) {
      if (first)
        out << "\n! warnings (n/a = undefined; docs/geometry.md, \"Degenerate layers\"):\n";
      first = false;
      out << "  ! " << w.text() << "\n";
    }
  return out.str();
}

std::string formatScoreCsv(const geometry::ScoredGeometry& s) {
  std::ostringstream out;
  // The proxies (with their intervals) first, then the fixed columns, then the plugin metrics.
  out << "layer";
  for (const auto& series : s.series)
    if (series.builtIn)
      out << ',' << series.info.name << ',' << series.info.name << "_low," << series.info.name
          << "_high";
  out << ",score,score_low,score_high,l_star_frequency,normalisation,rank,is_l_star";
  for (const auto& series : s.series)
    if (!series.builtIn) out << ',' << series.info.name;
  out << "\n";
  auto full = [](double v) { return std::isfinite(v) ? number(v, "%.17g") : std::string(); };
  for (size_t i = 0; i < s.report.layers.size(); ++i) {
    out << s.report.layers[i].layer;
    for (const auto& series : s.series)
      if (series.builtIn)
        out << ',' << full(series.values[i]) << ',' << full(series.intervals[i].low) << ','
            << full(series.intervals[i].high);
    out << ',' << full(s.scores.score[i]) << ',' << full(bootOf(s, i).low) << ','
        << full(bootOf(s, i).high) << ',' << full(frequencyOf(s, i)) << ','
        << geometry::normalisationName(s.report.options.normalisation) << ',' << s.scores.rank[i]
        << ',' << (int64_t(i) == s.scores.bestIndex ? 1 : 0);
    for (const auto& series : s.series)
      if (!series.builtIn) out << ',' << full(series.values[i]);
    out << "\n";
  }
  return out.str();
}

namespace {

nlohmann::json pluginMetricsJson(const geometry::ScoredGeometry& s) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t m = 0; m < s.series.size(); ++m) {
    const auto& info = s.series[m].info;
    if (s.series[m].builtIn) continue;
    out.push_back({{"name", info.name},
                   {"description", info.description},
                   {"higher_is_better", info.higherIsBetter},
                   {"source", info.source},
                   {"weight", weightOf(s, m)}});
  }
  return out;
}

/** The proxies' weights by key (curvature, monotonicity, effective_rank). */
nlohmann::json proxyWeightsJson(const geometry::ScoredGeometry& s) {
  nlohmann::json out = nlohmann::json::object();
  for (size_t m = 0; m < s.series.size(); ++m)
    if (s.series[m].builtIn) out[s.series[m].key] = weightOf(s, m);
  return out;
}

}  // namespace

std::string formatScoreJson(const geometry::ScoredGeometry& s) {
  const auto& o = s.report.options;
  nlohmann::json layers = nlohmann::json::array();
  nlohmann::json warnings = nlohmann::json::array();
  for (size_t i = 0; i < s.report.layers.size(); ++i) {
    const auto& l = s.report.layers[i];
    nlohmann::json layerWarnings = nlohmann::json::array();
    for (const auto& w : warningsOf(s, i)) {
      layerWarnings.push_back(warningJson(w));
      warnings.push_back(warningJson(w));
    }
    nlohmann::json layer{{"layer", l.layer}};
    nlohmann::json plugins = nlohmann::json::object();
    for (const auto& series : s.series) {
      if (!series.builtIn) {
        plugins[series.info.name] = jsonNumber(series.values[i]);
        continue;
      }
      layer[series.info.name] = jsonNumber(series.values[i]);
      layer[series.info.name + "_interval"] = jsonInterval(series.intervals[i]);
    }
    layer["plugin_metrics"] = plugins;
    layer.update({{"score", jsonNumber(s.scores.score[i])},
                  {"score_interval", jsonInterval(bootOf(s, i))},
                  {"score_interval_excludes_point", excludesPoint(s, i)},
                  {"l_star_frequency", jsonNumber(frequencyOf(s, i))},
                  {"rank", s.scores.rank[i]},
                  {"spectrum", spectrumJson(l.spectrum)},
                  {"warnings", layerWarnings}});
    layers.push_back(std::move(layer));
  }
  // Settings-level warnings (no layer): terms of S that cancel under these settings.
  for (const std::string& w : s.scoreWarnings)
    warnings.push_back({{"layer", nullptr}, {"proxy", "S"}, {"reason", w}, {"undefined", false}});
  nlohmann::json doc{
      {"model_id", s.report.modelId},
      {"num_layers", s.report.numLayers},
      {"num_tokens", s.report.numTokens},
      {"backend", s.report.backend},
      {"options",
       {{"anchors", o.anchors},
        {"neighbours", o.neighbours},
        {"directions", o.directions},
        {"ridge_factor", o.ridgeFactor},
        {"monotonicity", geometry::monotonicityModeName(o.monotonicity)},
        {"normalisation", geometry::normalisationName(o.normalisation)},
        {"bootstrap_resamples", o.bootstrapResamples},
        {"jackknife_blocks", o.jackknifeBlocks},
        {"proxy_interval", o.bootstrapResamples == 0 ? "none"
                           : o.jackknifeBlocks > 0   ? "bca"
                                                     : "percentile"},
        {"confidence", o.confidence},
        {"seed", o.seed}}},
      {"weights", proxyWeightsJson(s)},
      {"plugin_metrics", pluginMetricsJson(s)},
      {"candidates", {s.candidates.first, s.candidates.last}},
      {"l_star", s.scores.bestIndex >= 0
                     ? nlohmann::json(s.report.layers[size_t(s.scores.bestIndex)].layer)
                     : nlohmann::json(nullptr)},
      {"layers", layers},
      {"warnings", warnings},
      {"score_warnings", s.scoreWarnings}};
  return doc.dump(2) + "\n";
}

}  // namespace strata::cli
