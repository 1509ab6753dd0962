// writeGeometry / readGeometry: the /geometry group of an activation store.
//
//   /geometry                 attributes: options (JSON), backend, model_id, strata_version,
//                             num_layers, num_tokens
//   /geometry/layers          int64 [n]      layer index of each row below
//   /geometry/curvature       float64 [n]    m_curv        (…_interval: float64 [n, 2])
//   /geometry/monotonicity    float64 [n]    m_mono        (…_interval)
//   /geometry/effective_rank  float64 [n]    k_eff         (…_interval)
//   /geometry/score           float64 [n]    S(l) under the weights and candidates below (NaN
//                             outside the candidates)
//   /geometry@score_weights   JSON {series key: weight}; @score_candidates JSON [first, last]:
//                             what S was scored under, read back as GeometryReport::scoredWith
//   /geometry/spectrum        float64 [n, s] leading eigenvalues of Σ (NaN-padded)
//   /geometry/local_lambda_max float64 [n, M] λ_max(C_i) per anchor (NaN-padded)
//   /geometry/plugin_values   float64 [n, P] plugin metric p of each layer (NaN: undefined or
//                             failed); only when the scan had plugin metrics, which the
//                             attribute plugin_metrics describes (JSON: [{name, description,
//                             higher_is_better, source}], in column order)
//   /geometry/replicates      float64 [n, B, 3] the proxies (m_curv, m_mono, k_eff) of each
//                             bootstrap resample, the same tokens on every layer; only when
//                             B > 0 (S and l* intervals are recomputed from them)
//   /geometry/score_interval  float64 [n, 2] bootstrap interval of S (the same choice); with
//   /geometry/l_star_frequency float64 [n]   share of resamples whose l* is the layer (B > 0)
//   /geometry@normalisation   "none" | "trace" | "standardise" (also in options); absent in
//                             stores written before the choice existed: those read as "trace"
//   /geometry@score_warnings  JSON [string]: settings under which terms of the stored S cancel
//   /geometry@warnings        JSON [{layer, proxy, reason, undefined}]: why a value above is
//                             NaN (undefined) or needs care (docs/geometry.md, "Degenerate
//                             layers"); absent when no layer has a warning (and in stores
//                             written before warnings existed: those read as none)
//
// A further scan under another normalisation is kept as /geometry_<normalisation>
// (alternativeGeometryGroup), laid out the same way; the readers of /geometry never see it.
//
// The group is written under a temporary name and renamed over the old one, so a reader
// never sees a half-written /geometry.

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "common/build_info.h"
#include "common/error.h"
#include "geometry/geometry_report.h"
#include "geometry/metric_series.h"
#include "geometry/proxy_options_json.h"
#include "geometry/score.h"
#include "geometry/store_scoring.h"
#include "io/store/hdf5_handle.h"
#include "io/store/hdf5_open_error.h"
#include "io/writer_lock.h"

namespace strata::geometry {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class GroupWriter {
 public:
  GroupWriter(hid_t group, const std::filesystem::path& file) : m_group(group), m_file(file) {}

  void write(const std::string& name, hid_t memType, hid_t fileType, std::vector<hsize_t> dims,
             const void* data) {
    io::hdf5::Dataspace space(H5Screate_simple(int(dims.size()), dims.data(), nullptr));
    io::hdf5::Dataset dataset(H5Dcreate2(m_group, name.c_str(), fileType, space.get(), H5P_DEFAULT,
                                         H5P_DEFAULT, H5P_DEFAULT));
    if (!dataset || H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
      throw IoError(m_file, "cannot write geometry/" + name + io::hdf5::detailSuffix());
  }
  void doubles(const std::string& name, const std::vector<double>& v, std::vector<hsize_t> dims) {
    write(name, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE, std::move(dims), v.data());
  }

 private:
  hid_t m_group;
  const std::filesystem::path& m_file;
};

/** Rows of unequal length as one NaN-padded row-major matrix. */
std::vector<double> padded(const std::vector<std::vector<double>>& rows, size_t& width) {
  width = 1;
  for (const auto& r : rows) width = std::max(width, r.size());
  std::vector<double> out(rows.size() * width, kNaN);
  for (size_t i = 0; i < rows.size(); ++i)
    std::copy(rows[i].begin(), rows[i].end(), out.begin() + i * width);
  return out;
}

void writeGroup(hid_t group, const std::filesystem::path& file, const ScoredGeometry& scored,
                const std::string& groupName) {
  const GeometryReport& report = scored.report;
  const io::hdf5::Location where{group, file, groupName};
  io::hdf5::writeStringAttribute(where, "options", optionsToJson(report.options).dump());
  io::hdf5::writeStringAttribute(where, "normalisation",
                                 normalisationName(report.options.normalisation));
  io::hdf5::writeStringAttribute(where, "backend", report.backend);
  io::hdf5::writeStringAttribute(where, "model_id", report.modelId);
  io::hdf5::writeStringAttribute(where, "strata_version", build::kVersion);
  io::hdf5::writeInt64Attribute(where, "num_layers", report.numLayers);
  io::hdf5::writeInt64Attribute(where, "num_tokens", report.numTokens);

  const hsize_t n = report.layers.size();
  GroupWriter out(group, file);
  const auto layers = report.layerIndices();
  out.write("layers", H5T_NATIVE_INT64, H5T_STD_I64LE, {n}, layers.data());
  // Every metric series: a proxy as its own dataset with its intervals, the plugin metrics
  // together as one [n, P] matrix with their descriptions in an attribute.
  const std::vector<MetricSeries>& series = scored.series;
  std::vector<const MetricSeries*> plugins;
  for (const MetricSeries& s : series) {
    if (!s.builtIn) {
      plugins.push_back(&s);
      continue;
    }
    std::vector<double> bounds;
    for (const Interval& i : s.intervals) bounds.insert(bounds.end(), {i.low, i.high});
    out.doubles(s.key, s.values, {n});
    out.doubles(s.key + "_interval", bounds, {n, 2});
  }
  if (!plugins.empty()) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricSeries* m : plugins)
      metrics.push_back({{"name", m->info.name},
                         {"description", m->info.description},
                         {"higher_is_better", m->info.higherIsBetter},
                         {"source", m->info.source}});
    io::hdf5::writeStringAttribute(where, "plugin_metrics", metrics.dump());
    const size_t p = plugins.size();
    std::vector<double> rows(n * p);  // row-major: layer i, metric m
    for (size_t m = 0; m < p; ++m)
      for (size_t i = 0; i < n; ++i) rows[i * p + m] = plugins[m]->values[i];
    out.doubles("plugin_values", rows, {n, p});
  }

  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& l : report.layers)
    for (const ProxyWarning& w : l.warnings)
      warnings.push_back({{"layer", w.layer},
                          {"proxy", w.proxy},
                          {"reason", w.reason},
                          {"undefined", w.undefined}});
  if (!warnings.empty()) io::hdf5::writeStringAttribute(where, "warnings", warnings.dump());

  // S as scored (store_scoring.h), and the weights and candidates it was scored under, so that
  // what a reader recomputes equals what the front end printed.
  nlohmann::json weights = nlohmann::json::object();
  for (size_t s = 0; s < scored.series.size(); ++s)
    weights[scored.series[s].key] = scored.weights[s];
  io::hdf5::writeStringAttribute(where, "score_weights", weights.dump());
  io::hdf5::writeStringAttribute(
      where, "score_candidates",
      nlohmann::json::array({scored.candidates.first, scored.candidates.last}).dump());
  out.doubles("score", scored.scores.score, {n});
  const auto replicates = report.replicates();
  hsize_t resamples = 0;
  for (const auto& layer : replicates) resamples = std::max<hsize_t>(resamples, layer.size());
  if (resamples > 0) {
    // An undefined layer has no replicates: NaN rows keep the dataset rectangular.
    std::vector<double> flat;
    for (const auto& layer : replicates)
      for (hsize_t r = 0; r < resamples; ++r) {
        const ProxyValues v = r < layer.size() ? layer[r] : ProxyValues{kNaN, kNaN, kNaN};
        flat.insert(flat.end(), {v.curvature, v.monotonicity, v.effectiveRank});
      }
    out.doubles("replicates", flat, {n, resamples, 3});
    std::vector<double> bounds;
    for (const Interval& i : scored.bootstrap.score) bounds.insert(bounds.end(), {i.low, i.high});
    out.doubles("score_interval", bounds, {n, 2});
    out.doubles("l_star_frequency", scored.bootstrap.bestFrequency, {n});
  }
  if (!scored.scoreWarnings.empty())
    io::hdf5::writeStringAttribute(where, "score_warnings",
                                   nlohmann::json(scored.scoreWarnings).dump());

  std::vector<std::vector<double>> spectra, local;
  for (const auto& l : report.layers)
    spectra.push_back(l.spectrum), local.push_back(l.localLambdaMax);
  size_t width = 0;
  const auto spectrum = padded(spectra, width);
  out.doubles("spectrum", spectrum, {n, width});
  const auto lambdas = padded(local, width);
  out.doubles("local_lambda_max", lambdas, {n, width});
}

void removeIfPresent(hid_t file, const char* name, const std::filesystem::path& path) {
  if (io::hdf5::exists(file, name) && H5Ldelete(file, name, H5P_DEFAULT) < 0)
    throw IoError(path, std::string("cannot remove the old ") + name + io::hdf5::detailSuffix());
}

std::vector<double> readDoubles(const io::hdf5::Location& where, const std::string& name,
                                size_t expected, size_t* width = nullptr) {
  const hid_t group = where.id;
  const std::filesystem::path& file = where.file;
  io::hdf5::Dataset dataset(H5Dopen2(group, name.c_str(), H5P_DEFAULT));
  if (!dataset)
    throw FormatError(file, "missing" + io::hdf5::detailSuffix(), where.objectName + "/" + name,
                      "dataset");
  io::hdf5::Dataspace space(H5Dget_space(dataset.get()));
  hsize_t dims[3] = {0, 1, 1};
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 1 || rank > 3 || H5Sget_simple_extent_dims(space.get(), dims, nullptr) != rank ||
      dims[0] != expected)
    throw FormatError(file, "has the wrong shape", where.objectName + "/" + name, "dataset");
  // [n, a, b] reads as n rows of a·b values.
  const hsize_t rowWidth = (rank >= 2 ? dims[1] : 1) * (rank == 3 ? dims[2] : 1);
  if (width) *width = rowWidth;
  std::vector<double> out(dims[0] * rowWidth);
  if (H5Dread(dataset.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    throw FormatError(file, "cannot be read" + io::hdf5::detailSuffix(),
                      where.objectName + "/" + name, "dataset");
  return out;
}

std::vector<double> unpad(const double* row, size_t width) {
  std::vector<double> out;
  for (size_t i = 0; i < width && !std::isnan(row[i]); ++i) out.push_back(row[i]);
  return out;
}

/** The weights (by series key, in metricSeries order; a series the attribute does not name takes
 *  its default) and candidates S was written under; defaults where a store predates them. */
ScoreChoice readScoreChoice(const io::hdf5::Location& where, const GeometryReport& report) {
  ScoreChoice choice;
  try {
    if (const auto text = io::hdf5::readStringAttribute(where, "score_weights")) {
      const nlohmann::json weights = nlohmann::json::parse(*text);
      const std::vector<MetricSeries> series = metricSeries(report);
      for (size_t s = 0; s < series.size(); ++s)
        choice.weights.push_back(weights.contains(series[s].key)
                                     ? weights.at(series[s].key).get<double>()
                                     : weightOf(series, {}, s));
    }
    if (const auto text = io::hdf5::readStringAttribute(where, "score_candidates")) {
      const nlohmann::json range = nlohmann::json::parse(*text);
      choice.candidates = LayerRange{range.at(0).get<int64_t>(), range.at(1).get<int64_t>()};
    }
  } catch (const std::exception& e) {
    throw FormatError(where.file,
                      std::string("unreadable score weights or candidates: ") + e.what(),
                      where.objectName + "@score_weights", "attribute");
  }
  return choice;
}

}  // namespace

std::string alternativeGeometryGroup(Normalisation normalisation) {
  return std::string(kStoreGeometry) + "_" + normalisationName(normalisation);
}

void writeGeometry(const std::filesystem::path& storeFile, const GeometryReport& report,
                   const ScoreChoice& choice, const std::string& group) {
  writeGeometry(storeFile, scoreReport(report, choice), group);
}

void writeGeometry(const std::filesystem::path& storeFile, const ScoredGeometry& scored,
                   const std::string& groupName) {
  const std::string pending = groupName + "_pending";
  io::hdf5::quietErrors();
  // Keeps a capture (or another scan) from writing the same file meanwhile.
  io::WriterLock lock = io::WriterLock::forExistingFile(storeFile);
  io::hdf5::PropertyList access = io::hdf5::latestFormatAccess();
  io::hdf5::File file(H5Fopen(storeFile.c_str(), H5F_ACC_RDWR, access.get()));
  if (!file)
    io::hdf5::throwOpenFailure(storeFile, io::hdf5::takeErrorDetail(),
                               "write the geometry into the store");
  removeIfPresent(file.get(), pending.c_str(), storeFile);
  {
    io::hdf5::Group group(
        H5Gcreate2(file.get(), pending.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!group)
      throw IoError(storeFile, "cannot create the geometry group" + io::hdf5::detailSuffix());
    writeGroup(group.get(), storeFile, scored, groupName);
  }
  if (H5Fflush(file.get(), H5F_SCOPE_GLOBAL) < 0)
    throw IoError(storeFile, "cannot flush the geometry" + io::hdf5::detailSuffix());
  removeIfPresent(file.get(), groupName.c_str(), storeFile);
  if (H5Lmove(file.get(), pending.c_str(), file.get(), groupName.c_str(), H5P_DEFAULT,
              H5P_DEFAULT) < 0)
    throw IoError(storeFile, "cannot rename the geometry group" + io::hdf5::detailSuffix());
  if (H5Fclose(file.release()) < 0)
    throw IoError(storeFile,
                  "cannot close the store after writing its geometry" + io::hdf5::detailSuffix());
}

std::optional<GeometryReport> readGeometry(const std::filesystem::path& storeFile,
                                           const std::string& groupName) {
  io::hdf5::quietErrors();
  io::hdf5::File file(H5Fopen(storeFile.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT));
  if (!file) file.reset(H5Fopen(storeFile.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file)
    io::hdf5::throwOpenFailure(storeFile, io::hdf5::takeErrorDetail(),
                               "read the geometry of the store");
  if (!io::hdf5::exists(file.get(), groupName.c_str())) return std::nullopt;
  io::hdf5::Group group(H5Gopen2(file.get(), groupName.c_str(), H5P_DEFAULT));
  const io::hdf5::Location where{group.get(), storeFile, groupName};

  GeometryReport report;
  try {
    report.options = optionsFromJson(
        nlohmann::json::parse(io::hdf5::readStringAttribute(where, "options").value_or("")));
  } catch (const std::exception& e) {
    throw FormatError(storeFile, std::string("unreadable options: ") + e.what(),
                      where.objectName + "@options", "attribute");
  }
  report.backend = io::hdf5::readStringAttribute(where, "backend").value_or("");
  report.modelId = io::hdf5::readStringAttribute(where, "model_id").value_or("");
  report.numLayers = io::hdf5::readInt64Attribute(where, "num_layers").value_or(0);
  report.numTokens = io::hdf5::readInt64Attribute(where, "num_tokens").value_or(0);

  io::hdf5::Dataset layerSet(H5Dopen2(group.get(), "layers", H5P_DEFAULT));
  if (!layerSet) throw FormatError(storeFile, "missing", groupName + "/layers", "dataset");
  io::hdf5::Dataspace layerSpace(H5Dget_space(layerSet.get()));
  const auto n = size_t(H5Sget_simple_extent_npoints(layerSpace.get()));
  std::vector<int64_t> layers(n);
  if (n &&
      H5Dread(layerSet.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, layers.data()) < 0)
    throw FormatError(storeFile, "cannot be read" + io::hdf5::detailSuffix(), groupName + "/layers",
                      "dataset");

  const auto curv = readDoubles(where, "curvature", n);
  const auto mono = readDoubles(where, "monotonicity", n);
  const auto rank = readDoubles(where, "effective_rank", n);
  const auto curvI = readDoubles(where, "curvature_interval", n);
  const auto monoI = readDoubles(where, "monotonicity_interval", n);
  const auto rankI = readDoubles(where, "effective_rank_interval", n);
  size_t spectrumWidth = 1, localWidth = 1;
  const auto spectrum = readDoubles(where, "spectrum", n, &spectrumWidth);
  const auto local = readDoubles(where, "local_lambda_max", n, &localWidth);
  if (curvI.size() != 2 * n || monoI.size() != 2 * n || rankI.size() != 2 * n)
    throw FormatError(storeFile, "intervals must be [n, 2]", groupName, "group");

  // Plugin metrics: absent from stores scanned without plugins (or before plugins existed).
  std::vector<double> pluginValues;
  if (const auto text = io::hdf5::readStringAttribute(where, "plugin_metrics")) {
    try {
      for (const auto& m : nlohmann::json::parse(*text))
        report.pluginMetrics.push_back(
            {m.at("name"), m.at("description"), m.at("higher_is_better"), m.value("source", "")});
    } catch (const std::exception& e) {
      throw FormatError(storeFile, std::string("unreadable plugin metrics: ") + e.what(),
                        where.objectName + "@plugin_metrics", "attribute");
    }
    size_t width = 0;
    pluginValues = readDoubles(where, "plugin_values", n, &width);
    if (n > 0 && width != report.pluginMetrics.size())
      throw FormatError(storeFile, "has a column count unlike its plugin_metrics attribute",
                        groupName + "/plugin_values", "dataset");
  }
  const size_t p = report.pluginMetrics.size();
  // Bootstrap replicates: absent without resamples and in stores written before they existed.
  std::vector<double> replicates;
  size_t replicateWidth = 0;
  if (H5Lexists(group.get(), "replicates", H5P_DEFAULT) > 0) {
    replicates = readDoubles(where, "replicates", n, &replicateWidth);
    if (replicateWidth % 3 != 0)
      throw FormatError(storeFile, "must be [n, B, 3]", groupName + "/replicates", "dataset");
  }

  for (size_t i = 0; i < n; ++i) {
    LayerGeometry l;
    l.layer = layers[i];
    l.values = {curv[i], mono[i], rank[i]};
    l.curvature = {curvI[2 * i], curvI[2 * i + 1]};
    l.monotonicity = {monoI[2 * i], monoI[2 * i + 1]};
    l.effectiveRank = {rankI[2 * i], rankI[2 * i + 1]};
    l.spectrum = unpad(spectrum.data() + i * spectrumWidth, spectrumWidth);
    l.localLambdaMax = unpad(local.data() + i * localWidth, localWidth);
    if (p) l.pluginValues.assign(pluginValues.begin() + i * p, pluginValues.begin() + (i + 1) * p);
    for (size_t r = 0; r + 2 < replicateWidth; r += 3) {
      const double* v = replicates.data() + i * replicateWidth + r;
      l.replicates.push_back({v[0], v[1], v[2]});
    }
    report.layers.push_back(std::move(l));
  }
  if (const auto text = io::hdf5::readStringAttribute(where, "warnings")) {
    try {
      for (const auto& w : nlohmann::json::parse(*text)) {
        const int64_t layer = w.at("layer");
        for (auto& l : report.layers)
          if (l.layer == layer)
            l.warnings.push_back(
                {layer, w.at("proxy"), w.at("reason"), w.value("undefined", false)});
      }
    } catch (const std::exception& e) {
      throw FormatError(storeFile, std::string("unreadable warnings: ") + e.what(),
                        where.objectName + "@warnings", "attribute");
    }
  }
  report.scoredWith = readScoreChoice(where, report);
  return report;
}

}  // namespace strata::geometry
