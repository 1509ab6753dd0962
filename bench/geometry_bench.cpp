// strata-geometry-bench: times the CPU backend's computeProxies on a float32 .npy matrix
// (N×d, C order) against the BLAS's own sgemm rate measured in the same process, and prints
// one JSON object. bench/geometry_throughput.py drives it (and the NumPy reference).
//
// usage: strata-geometry-bench DATA.npy [--runs R] [--anchors M] [--neighbours k]
//                              [--directions M] [--spectrum S] [--phases]
//                              [--sampling-out FILE]   (anchors and pairs used, as JSON)

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "geometry/backend.h"
#include "geometry/cpu/covariance.h"
#include "geometry/cpu/local_curvature.h"
#include "geometry/cpu/nearest_neighbours.h"
#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"
#include "geometry/median.h"

namespace geo = strata::geometry;
using geo::median;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/** A float32, C-order, 2-D .npy file (format 1.0–3.0). */
std::vector<float> loadNpy(const std::string& path, int64_t& rows, int64_t& cols) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  char magic[8];
  in.read(magic, 8);
  if (std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw std::runtime_error(path + " is not a .npy file");
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    uint16_t h = 0;
    in.read(reinterpret_cast<char*>(&h), 2);
    headerLength = h;
  } else {
    in.read(reinterpret_cast<char*>(&headerLength), 4);
  }
  std::string header(headerLength, ' ');
  in.read(header.data(), headerLength);
  if (header.find("'descr': '<f4'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos)
    throw std::runtime_error(path + ": expected little-endian float32 in C order, header " +
                             header);
  std::smatch shape;
  if (!std::regex_search(header, shape, std::regex(R"('shape': \((\d+), (\d+)\))")))
    throw std::runtime_error(path + ": expected a 2-D array, header " + header);
  rows = std::stoll(shape[1]);
  cols = std::stoll(shape[2]);
  std::vector<float> data(static_cast<size_t>(rows * cols));
  in.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size() * sizeof(float)));
  if (!in) throw std::runtime_error(path + " is shorter than its header says");
  return data;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) {
    std::cerr << "usage: strata-geometry-bench DATA.npy [--runs R] [--anchors M] [--neighbours k] "
                 "[--directions M] [--spectrum S] [--phases]\n";
    return 2;
  }
  geo::ProxyOptions options;
  options.bootstrapResamples = 0;
  int runs = 3;
  bool phases = false;
  std::string samplingOut;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> int64_t {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return std::stoll(argv[++i]);
    };
    if (a == "--runs")
      runs = int(value());
    else if (a == "--anchors")
      options.anchors = value();
    else if (a == "--neighbours")
      options.neighbours = value();
    else if (a == "--directions")
      options.directions = value();
    else if (a == "--spectrum")
      options.spectrumSize = value();
    else if (a == "--phases")
      phases = true;
    else if (a == "--sampling-out" && i + 1 < argc)
      samplingOut = argv[++i];
    else
      throw std::runtime_error("unknown option " + a);
  }
  int64_t n = 0, d = 0;
  const std::vector<float> data = loadNpy(argv[1], n, d);
  const geo::HiddenStates states{data.data(), n, d};
  auto backend = geo::makeCpuBackend();
  const geo::TokenSampling sampling = geo::drawTokenSampling(n, {}, options, options.seed);
  if (!samplingOut.empty()) {
    nlohmann::json drawn;
    drawn["anchors"] = sampling.anchors;
    drawn["pairs"] = nlohmann::json::array();
    for (const auto& [x, y] : sampling.pairs) drawn["pairs"].push_back({x, y});
    std::ofstream(samplingOut) << drawn.dump();
  }

  std::vector<double> times;
  geo::ProxyResult result;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    result = backend->computeProxies(states, {}, sampling, options);
    times.push_back(secondsSince(start));
  }

  // The BLAS rate on the kNN product's own shape: (M×d)·(N×d)ᵀ, in blocks of 4096 rows as the
  // backend runs it, and one ssyrk of the whole matrix (Σ's shape).
  const int64_t m = std::min<int64_t>(options.anchors, n);
  std::vector<float> a(data.begin(), data.begin() + m * d);
  const int64_t block = 4096;
  std::vector<float> c(static_cast<size_t>(m * block));
  std::vector<double> gemmTimes, syrkTimes;
  std::vector<float> sigma(static_cast<size_t>(d * d));
  for (int r = 0; r < runs; ++r) {
    auto start = Clock::now();
    for (int64_t b = 0; b < n; b += block) {
      const int64_t nb = std::min(block, n - b);
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, int(m), int(nb), int(d), 1.0f, a.data(),
                  int(d), data.data() + b * d, int(d), 0.0f, c.data(), int(nb));
    }
    gemmTimes.push_back(secondsSince(start));
    start = Clock::now();
    cblas_ssyrk(CblasRowMajor, CblasLower, CblasTrans, int(d), int(n), 1.0f, data.data(), int(d),
                0.0f, sigma.data(), int(d));
    syrkTimes.push_back(secondsSince(start));
  }
  const double gemmFlops = 2.0 * double(m) * double(n) * double(d);
  const double sgemmRate = gemmFlops / median(gemmTimes);
  const double pairs = double(options.directions);
  // The products the definitions require: Σ by syrk (N·d² flops), the kNN distances
  // (2·M·N·d), the Cholesky (d³/3) and the triangular solve with M directions (d²·M).
  const double floorFlops =
      double(n) * d * d + gemmFlops + double(d) * d * d / 3.0 + double(d) * d * pairs;
  const double floorSeconds = floorFlops / sgemmRate;

  nlohmann::json out;
  out["backend"] = backend->description();
  out["rows"] = n;
  out["dims"] = d;
  out["anchors"] = options.anchors;
  out["neighbours"] = options.neighbours;
  out["directions"] = options.directions;
  out["spectrum_size"] = options.spectrumSize;
  out["runs"] = runs;
  out["seconds"] = median(times);
  out["seconds_all"] = times;
  out["sgemm_gflops"] = sgemmRate / 1e9;
  out["ssyrk_gflops"] = double(n) * d * d / median(syrkTimes) / 1e9;
  out["floor_gflop"] = floorFlops / 1e9;
  out["floor_seconds"] = floorSeconds;
  out["over_floor"] = median(times) / floorSeconds;
  out["curvature"] = result.values.curvature;
  out["monotonicity"] = result.values.monotonicity;
  out["effective_rank"] = result.values.effectiveRank;
  out["spectrum_head"] =
      std::vector<double>(result.spectrum.begin(),
                          result.spectrum.begin() + std::min<size_t>(4, result.spectrum.size()));

  if (phases) {
    // The backend's stages one by one (same code, timed separately).
    namespace cpu = geo::cpu;
    nlohmann::json p;
    cpu::Workspace workspace;
    for (int pass = 0; pass < 2;
         ++pass) {  // the second pass reuses the buffers, as the backend does
      auto start = Clock::now();
      const cpu::RowNormalisation norm = cpu::normaliseRows(states, {});
      p["normalise"] = secondsSince(start);
      start = Clock::now();
      float* normalised = workspace.normalised.take<float>(norm.rows.size() * d);
      cpu::normalisedRows(states, norm, normalised);
      p["normalised_copy"] = secondsSince(start);
      start = Clock::now();
      double* s = workspace.sigma.take<double>(d * d);
      cpu::normalisedCovariance(normalised, norm, workspace, s);
      p["covariance_syrk"] = secondsSince(start);
      start = Clock::now();
      const auto spectrum = cpu::leadingEigenvalues(s, d, options.spectrumSize);
      p["spectrum_lanczos"] = secondsSince(start);
      start = Clock::now();
      for (int64_t j = 0; j < d; ++j) s[j * d + j] += 1e-3;
      cpu::choleskyInPlace(s, d);
      p["cholesky"] = secondsSince(start);
      start = Clock::now();
      (void)cpu::meanRayleighQuotient(s, states, norm, sampling.pairs, workspace.directions);
      p["rayleigh_trsm"] = secondsSince(start);
      start = Clock::now();
      const auto lists =
          cpu::nearestNeighbours(normalised, norm, sampling.anchors, options.neighbours, workspace);
      p["knn"] = secondsSince(start);
      start = Clock::now();
      (void)cpu::neighbourhoodLambdaMax(normalised, norm, lists);
      p["neighbour_gram"] = secondsSince(start);
    }
    out["phases"] = p;
  }
  std::cout << out.dump(2) << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "strata-geometry-bench: " << e.what() << "\n";
  return 1;
}
