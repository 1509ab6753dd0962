// strata-geometry-bench: times a geometry backend's computeProxies on a float32 .npy matrix
// (N×d, C order) or a random one, against the GEMM floor of its device measured in the same
// process (the BLAS's sgemm on the CPU, cuBLAS's through LibTorch, TF32 off, on CUDA), and
// prints one JSON object. bench/geometry_throughput.py drives it (and the NumPy reference),
// bench/device_benchmarks.py on the GPU machine (CUDA against the CPU backend there).
//
// usage: strata-geometry-bench DATA.npy|--random N D [--device cpu|cuda] [--runs R]
//                              [--anchors M] [--neighbours k] [--directions M] [--spectrum S]
//                              [--phases] [--sampling-out FILE]   (anchors and pairs, as JSON)
//                              [--layer B G]
// --layer B G: also times one layer's whole geometry (computeLayerGeometry: the point, B bootstrap
// resamples, G jackknife blocks) with the CPU backend's lanes and with the same evaluations one
// after another (the BLAS threaded), and the largest relative difference of their replicates.
// --random N D: N×d float32 with a decaying spectrum (column scales 3 → 0.3, offset 7.5), seed 1.

#include <ATen/ATen.h>
#include <ATen/Context.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/runtime_tuning.h"
#include "geometry/backend.h"
#include "geometry/cpu/covariance.h"
#include "geometry/cpu/local_curvature.h"
#include "geometry/cpu/nearest_neighbours.h"
#include "geometry/cpu/row_normalisation.h"
#include "geometry/cpu/workspace.h"
#include "geometry/layer_geometry.h"
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

/** N×d float32, row-major: N(0, 1) columns scaled from 3 down to 0.3, plus 7.5 (centring
 *  matters, the spectrum decays as hidden states' do). */
std::vector<float> randomLayer(int64_t rows, int64_t cols) {
  at::manual_seed(1);
  const at::Tensor scale =
      3.0 * at::pow(0.1, at::linspace(0.0, 1.0, cols, at::kDouble)).to(at::kFloat);
  const at::Tensor x = (at::randn({rows, cols}, at::kFloat) * scale + 7.5f).contiguous();
  return std::vector<float>(x.data_ptr<float>(), x.data_ptr<float>() + rows * cols);
}

/** Median seconds of `product` over `runs` runs on the GPU (after one warm-up). Reading one
 *  element back waits for the stream, so the time covers the whole product. */
double gpuSeconds(int runs, const std::function<at::Tensor()>& product) {
  product().flatten()[0].item<float>();
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    product().flatten()[0].item<float>();
    times.push_back(secondsSince(start));
  }
  return median(times);
}

}  // namespace

/** The CPU backend's stages one by one (same code, timed separately). */
nlohmann::json cpuPhases(const geo::HiddenStates& states, const geo::TokenSampling& sampling,
                         const geo::ProxyOptions& options) {
  const int64_t d = states.cols;
  namespace cpu = geo::cpu;
  nlohmann::json p;
  cpu::Workspace workspace;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass reuses the buffers, as the backend does
    auto start = Clock::now();
    const cpu::RowNormalisation norm = cpu::normaliseRows(states, {});
    p["normalise"] = secondsSince(start);
    start = Clock::now();
    float* normalised = workspace.normalised.take<float>(norm.rows.size() * d);
    cpu::normalisedRows(states, norm, normalised);
    p["normalised_copy"] = secondsSince(start);
    start = Clock::now();
    double* s = workspace.sigma.take<double>(d * d);
    const float* floatSigma = cpu::normalisedCovariance(normalised, norm, false, workspace, s);
    p["covariance_syrk"] = secondsSince(start);
    start = Clock::now();
    const auto spectrum = cpu::leadingEigenvalues(s, d, options.spectrumSize, floatSigma);
    p["spectrum_lanczos"] = secondsSince(start);
    start = Clock::now();
    for (int64_t j = 0; j < d; ++j) s[j * d + j] += 1e-3;
    cpu::choleskyInPlace(s, d);
    p["cholesky"] = secondsSince(start);
    start = Clock::now();
    (void)cpu::meanRayleighQuotient(s, states, norm, sampling.pairs, workspace.directions,
                                    workspace.lower);
    p["rayleigh_trsm"] = secondsSince(start);
    start = Clock::now();
    const auto lists =
        cpu::nearestNeighbours(normalised, norm, sampling.anchors, options.neighbours, workspace);
    p["knn"] = secondsSince(start);
    start = Clock::now();
    (void)cpu::neighbourhoodLambdaMax(normalised, norm, lists);
    p["neighbour_gram"] = secondsSince(start);
  }
  return p;
}

/** The CPU backend with the interface's own computeBatch: the evaluations one after another. */
class SerialCpuBackend final : public geo::GeometryBackend {
 public:
  std::string description() const override { return m_cpu->description() + ", serial batch"; }
  geo::ProxyResult computeProxies(const geo::HiddenStates& states, std::span<const float> weights,
                                  const geo::TokenSampling& sampling,
                                  const geo::ProxyOptions& options) override {
    return m_cpu->computeProxies(states, weights, sampling, options);
  }

 private:
  std::unique_ptr<geo::GeometryBackend> m_cpu = geo::makeCpuBackend();
};

/** One layer's whole geometry with lanes and serially, timed (medians of `runs`), compared. */
nlohmann::json layerTimes(const geo::HiddenStates& states, geo::ProxyOptions options,
                          int64_t resamples, int64_t blocks, int runs) {
  options.bootstrapResamples = resamples;
  options.jackknifeBlocks = blocks;
  nlohmann::json out;
  std::vector<geo::LayerGeometry> results;
  for (const bool lanes : {true, false}) {
    std::unique_ptr<geo::GeometryBackend> backend =
        lanes ? geo::makeCpuBackend() : std::make_unique<SerialCpuBackend>();
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) {
      const auto start = Clock::now();
      geo::LayerGeometry g = geo::computeLayerGeometry(*backend, states, 0, options);
      times.push_back(secondsSince(start));
      if (r == 0) results.push_back(std::move(g));
    }
    out[lanes ? "lanes_seconds" : "serial_seconds"] = median(times);
    out[lanes ? "lanes_seconds_all" : "serial_seconds_all"] = times;
  }
  double worst = 0;
  const auto compare = [&](double a, double b) {
    if (std::isfinite(a) && std::isfinite(b) && b != 0)
      worst = std::max(worst, std::abs(a - b) / std::abs(b));
  };
  for (size_t r = 0; r < results[0].replicates.size(); ++r) {
    compare(results[0].replicates[r].monotonicity, results[1].replicates[r].monotonicity);
    compare(results[0].replicates[r].effectiveRank, results[1].replicates[r].effectiveRank);
    compare(results[0].replicates[r].curvature, results[1].replicates[r].curvature);
  }
  for (auto [a, b] : {std::pair{results[0].monotonicity, results[1].monotonicity},
                      std::pair{results[0].effectiveRank, results[1].effectiveRank}})
    compare(a.low, b.low), compare(a.high, b.high);
  out["resamples"] = resamples;
  out["jackknife_blocks"] = blocks;
  out["speedup"] = out["serial_seconds"].get<double>() / out["lanes_seconds"].get<double>();
  out["max_relative_difference"] = worst;
  return out;
}

/** The command line (see the usage at the top of this file). */
struct BenchArguments {
  std::string npy;  // empty with --random
  int64_t randomRows = 0, randomCols = 0;
  std::string device = "cpu";
  geo::ProxyOptions options;
  int runs = 3;
  bool phases = false;
  std::string samplingOut;
  int64_t layerResamples = -1, layerBlocks = 0;  // --layer B G; -1: not asked for
};

BenchArguments parseArguments(int argc, char** argv) {
  BenchArguments args;
  args.options.bootstrapResamples = 0;
  const bool random = std::string(argv[1]) == "--random";
  if (random && argc < 4) throw std::runtime_error("--random needs N and D");
  if (random) {
    args.randomRows = std::stoll(argv[2]);
    args.randomCols = std::stoll(argv[3]);
  } else {
    args.npy = argv[1];
  }
  for (int i = random ? 4 : 2; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> int64_t {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return std::stoll(argv[++i]);
    };
    if (a == "--runs")
      args.runs = int(value());
    else if (a == "--anchors")
      args.options.anchors = value();
    else if (a == "--neighbours")
      args.options.neighbours = value();
    else if (a == "--directions")
      args.options.directions = value();
    else if (a == "--spectrum")
      args.options.spectrumSize = value();
    else if (a == "--device" && i + 1 < argc)
      args.device = argv[++i];
    else if (a == "--phases")
      args.phases = true;
    else if (a == "--sampling-out" && i + 1 < argc)
      args.samplingOut = argv[++i];
    else if (a == "--layer" && i + 2 < argc)
      args.layerResamples = value(), args.layerBlocks = value();
    else
      throw std::runtime_error("unknown option " + a);
  }
  return args;
}

/** Seconds (medians) of the floor's two products on this device: sgemm and syrk. */
struct FloorTimes {
  double gemm = 0, syrk = 0;
};

/**
 * The BLAS rate on the kNN product's own shape: (M×d)·(N×d)ᵀ, in blocks of 4096 rows as the
 * backend runs it, and one ssyrk of the whole matrix (Σ's shape). On the GPU: cuBLAS's float32
 * GEMM (TF32 off, as the backend computes) on the same products, the layer resident there.
 */
FloorTimes measureFloor(const std::vector<float>& data, int64_t n, int64_t d, int64_t m, bool gpu,
                        int runs) {
  std::vector<double> gemmTimes, syrkTimes;
  if (gpu) {
    at::globalContext().setAllowTF32CuBLAS(false);
    const at::Tensor x =
        at::from_blob(const_cast<float*>(data.data()), {n, d}, at::kFloat).to(at::kCUDA);
    const at::Tensor anchors = x.narrow(0, 0, m);
    gemmTimes.push_back(gpuSeconds(runs, [&] { return at::mm(anchors, x.t()); }));
    syrkTimes.push_back(gpuSeconds(runs, [&] { return at::mm(x.t(), x); }) / 2.0);  // syrk: half
    return {median(gemmTimes), median(syrkTimes)};
  }
  const std::vector<float> a(data.begin(), data.begin() + m * d);
  const int64_t block = 4096;
  std::vector<float> c(static_cast<size_t>(m * block)), sigma(static_cast<size_t>(d * d));
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
  return {median(gemmTimes), median(syrkTimes)};
}

STRATA_TUNE_LIBRARIES_AT_LOAD

int main(int argc, char** argv) try {
  strata::runWithTunedLibraries(argv);  // the OpenBLAS kernels Strata's own programs ask for
  if (argc < 2) {
    std::cerr
        << "usage: strata-geometry-bench DATA.npy|--random N D [--device cpu|cuda] [--runs R] "
           "[--anchors M] [--neighbours k] [--directions M] [--spectrum S] [--phases]\n";
    return 2;
  }
  const BenchArguments args = parseArguments(argc, argv);
  const geo::ProxyOptions& options = args.options;
  const std::string& device = args.device;
  const int runs = args.runs;
  int64_t n = args.randomRows, d = args.randomCols;
  const std::vector<float> data = args.npy.empty() ? randomLayer(n, d) : loadNpy(args.npy, n, d);
  const geo::HiddenStates states{data.data(), n, d};
  const bool gpu = device == "cuda";
  auto backend = gpu ? geo::makeGeometryBackend(geo::DeviceChoice::Cuda) : geo::makeCpuBackend();
  const geo::TokenSampling sampling = geo::drawTokenSampling(n, {}, options, options.seed);
  if (!args.samplingOut.empty()) {
    nlohmann::json drawn;
    drawn["anchors"] = sampling.anchors;
    drawn["pairs"] = nlohmann::json::array();
    for (const auto& [x, y] : sampling.pairs) drawn["pairs"].push_back({x, y});
    std::ofstream(args.samplingOut) << drawn.dump();
  }

  std::vector<double> times;
  geo::ProxyResult result;
  for (int r = 0; r < runs; ++r) {
    const auto start = Clock::now();
    result = backend->computeProxies(states, {}, sampling, options);
    times.push_back(secondsSince(start));
  }

  const int64_t m = std::min<int64_t>(options.anchors, n);
  const FloorTimes floor = measureFloor(data, n, d, m, gpu, runs);
  const double gemmFlops = 2.0 * double(m) * double(n) * double(d);
  const double sgemmRate = gemmFlops / floor.gemm;
  const double pairs = double(options.directions);
  // The products the definitions require: Σ by syrk (N·d² flops), the kNN distances
  // (2·M·N·d), the Cholesky (d³/3) and the triangular solve with M directions (d²·M).
  const double floorFlops =
      double(n) * d * d + gemmFlops + double(d) * d * d / 3.0 + double(d) * d * pairs;
  const double floorSeconds = floorFlops / sgemmRate;

  nlohmann::json out;
  out["backend"] = backend->description();
  out["device"] = device;
  out["gemm_floor"] = gpu ? "cuBLAS sgemm (LibTorch at::mm, TF32 off)" : "BLAS cblas_sgemm";
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
  out["ssyrk_gflops"] = double(n) * d * d / floor.syrk / 1e9;
  out["floor_gflop"] = floorFlops / 1e9;
  out["floor_seconds"] = floorSeconds;
  out["over_floor"] = median(times) / floorSeconds;
  out["curvature"] = result.values.curvature;
  out["monotonicity"] = result.values.monotonicity;
  out["effective_rank"] = result.values.effectiveRank;
  out["spectrum_head"] =
      std::vector<double>(result.spectrum.begin(),
                          result.spectrum.begin() + std::min<size_t>(4, result.spectrum.size()));

  if (args.layerResamples >= 0 && !gpu)
    out["layer"] = layerTimes(states, options, args.layerResamples, args.layerBlocks, runs);
  if (args.phases && gpu) {
    // The backend times its own stages (waiting for the device after each), once more.
    backend->timeStages(true);
    const geo::ProxyResult timed = backend->computeProxies(states, {}, sampling, options);
    nlohmann::json p = nlohmann::json::array();
    for (const auto& [stage, seconds] : timed.stageSeconds)
      p.push_back({{"stage", stage}, {"seconds", seconds}});
    out["phases"] = p;
  } else if (args.phases) {
    out["phases"] = cpuPhases(states, sampling, options);
  }
  std::cout << out.dump(2) << std::endl;
  return 0;
} catch (const std::exception& e) {
  std::cerr << "strata-geometry-bench: " << e.what() << "\n";
  return 1;
}
