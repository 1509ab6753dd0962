// strata-gguf-bench: opening a GGUF file and dequantising every tensor, timed, and the whole
// import into a Hugging Face folder (bench/gguf_load.py runs it beside transformers' own GGUF
// loading of the same file).
//
//   strata-gguf-bench FILE.gguf [--threads N] [--import OUT_DIR]
//
// Prints one JSON object: {"open_s", "dequantise_s", "tensors", "elements", "input_bytes",
// "import_s" (with --import), "baseline_rss_mib" (before opening: the executable with LibTorch
// loaded), "peak_rss_mib", "load_rss_increase_mib" (peak − baseline), "threads"}.

#include <omp.h>
#include <sys/resource.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/memory_release.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_import.h"

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/** The resident set now (VmRSS): the process before loading, with LibTorch's libraries in. */
double currentRssMib() {
  const int64_t bytes = strata::residentBytes();
  return bytes > 0 ? double(bytes) / (1 << 20) : 0;
}

double peakRssMib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // kilobytes on Linux
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  if (argc < 2) {
    std::cerr << "usage: strata-gguf-bench FILE.gguf [--threads N] [--import OUT_DIR]\n";
    return 2;
  }
  int threads = omp_get_max_threads();
  std::string importTo;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads") threads = std::stoi(argv[i + 1]);
    if (flag == "--import") importTo = argv[i + 1];
  }
  omp_set_num_threads(threads);
  try {
    nlohmann::ordered_json out;
    const double baseline = currentRssMib();
    auto start = std::chrono::steady_clock::now();
    const io::GgufFile gguf(argv[1]);
    out["open_s"] = secondsSince(start);
    start = std::chrono::steady_clock::now();
    int64_t elements = 0;
    uint64_t bytes = 0;
    // Each tensor into its own buffer, kept, as a loader that hands the model over would.
    std::vector<std::vector<float>> tensors;
    for (const io::GgufTensorInfo& t : gguf.tensors()) {
      tensors.emplace_back(t.elementCount);
      io::dequantizeGgml(t.typeId, gguf.tensorData(t), tensors.back(), gguf.path(), t.name,
                         threads);
      elements += t.elementCount;
      bytes += t.byteSize;
    }
    out["dequantise_s"] = secondsSince(start);
    out["tensors"] = gguf.tensors().size();
    out["elements"] = elements;
    out["input_bytes"] = bytes;
    out["baseline_rss_mib"] = baseline;
    out["peak_rss_mib"] = peakRssMib();
    out["load_rss_increase_mib"] = peakRssMib() - baseline;
    tensors.clear();
    if (!importTo.empty()) {
      start = std::chrono::steady_clock::now();
      io::importGguf(argv[1], importTo, {.force = true, .threads = threads});
      out["import_s"] = secondsSince(start);
    }
    out["threads"] = threads;
    std::cout << out.dump() << "\n";
  } catch (const Error& e) {
    std::cerr << "strata-gguf-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
