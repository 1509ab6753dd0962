// strata-store-write-bench: the activation store's write path alone, timed: a store of
// L + 1 layers of N × d hidden-state-like values (bfloat16-rounded normals whose spread grows
// with depth, as a bf16 capture hands them over), written as capture writes it.
// bench/store_write.py runs it beside h5py writing the same values with the same filters.
//
//   strata-store-write-bench OUT.h5 [--tokens N] [--hidden d] [--layers L]
//       [--dtype float16|float32] [--threads T] [--deflate-level 1..9] [--path direct|filters]
//
// --path filters: HDF5 filters the chunks itself on the writing thread (the path before direct
// chunk writes; --threads is then unused). Prints one JSON object: {"seconds" (create, every
// writeLayer and close; generating the values is not timed), "cpu_seconds" and "cores_used"
// (the process's CPU time over the same spans, and over the seconds), "raw_bytes" (the layers
// uncompressed), "file_bytes", "raw_mb_per_s", "tokens_per_s" (stored rows per second, all
// layers of each), and the options}.

#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/store/activation_store.h"

namespace {

// Rounds to the nearest bfloat16 (ties to even), as a bf16 forward pass's outputs are.
float toBFloat16(float value) {
  uint32_t bits = 0;
  std::memcpy(&bits, &value, 4);
  bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000u;
  std::memcpy(&value, &bits, 4);
  return value;
}

void fillLayer(std::vector<float>& values, int64_t layer) {
  std::mt19937 rng(static_cast<unsigned>(layer) + 1);
  std::normal_distribution<float> normal(0.0f, 0.5f + 0.25f * static_cast<float>(layer));
  for (float& v : values) v = toBFloat16(normal(rng));
}

// User + system time of every thread of the process: over the wall time, how many cores the
// writing had (on a shared machine, fewer than its threads when others take them).
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace strata;
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: strata-store-write-bench OUT.h5 [--tokens N] [--hidden d] [--layers L] "
                 "[--dtype float16|float32] [--threads T] [--deflate-level 1..9] "
                 "[--path direct|filters]\n";
    return 2;
  }
  const std::string file = argv[1];
  int64_t tokens = 4096, hidden = 2048, layers = 16;
  std::string dtype = "float16", path = "direct";
  io::StoreWriteOptions options;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--tokens")
      tokens = std::stoll(value);
    else if (flag == "--hidden")
      hidden = std::stoll(value);
    else if (flag == "--layers")
      layers = std::stoll(value);
    else if (flag == "--dtype")
      dtype = value;
    else if (flag == "--threads")
      options.threads = std::stoi(value);
    else if (flag == "--deflate-level")
      options.deflateLevel = std::stoi(value);
    else if (flag == "--path")
      path = value;
    else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  options.directChunks = path == "direct";
  try {
    io::StoreMeta meta;
    meta.modelId = "bench/store-write";
    meta.architecture = "LlamaForCausalLM";
    meta.hiddenSize = hidden;
    meta.numLayers = layers;
    meta.dtype = dtype == "float32" ? io::StoreDType::Float32 : io::StoreDType::Float16;
    meta.corpusHash = "none";
    meta.samplingPolicy = "{}";
    io::TokenTable table;
    for (int64_t i = 0; i < tokens; ++i) {
      table.ids.push_back(static_cast<int32_t>(i % 32000));
      table.doc.push_back(static_cast<int32_t>(i / 255));
      table.position.push_back(static_cast<int32_t>(1 + i % 255));
    }
    std::vector<float> values(static_cast<size_t>(tokens * hidden));
    double seconds = 0, cpuSeconds = 0;
    auto timed = [&](auto&& body) {
      const auto start = std::chrono::steady_clock::now();
      const double cpuStart = processCpuSeconds();
      body();
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      cpuSeconds += processCpuSeconds() - cpuStart;
    };
    std::optional<io::ActivationStoreWriter> writer;
    timed([&] {
      writer.emplace(io::ActivationStoreWriter::create(file, meta, table, true, options));
    });
    for (int64_t layer = 0; layer <= layers; ++layer) {
      fillLayer(values, layer);
      timed([&] { writer->writeLayer(layer, values); });
    }
    timed([&] { writer->close(); });
    struct stat info {};
    ::stat(file.c_str(), &info);
    const double rawBytes =
        static_cast<double>(tokens * hidden * (layers + 1)) * (dtype == "float32" ? 4 : 2);
    nlohmann::ordered_json out;
    out["path"] = path;
    out["threads"] = options.directChunks ? io::writeThreadsFor(options) : 1;
    out["deflate_level"] = options.deflateLevel;
    out["tokens"] = tokens;
    out["hidden"] = hidden;
    out["layers"] = layers + 1;
    out["dtype"] = dtype;
    out["seconds"] = seconds;
    out["cpu_seconds"] = cpuSeconds;
    out["cores_used"] = cpuSeconds / seconds;
    out["raw_bytes"] = rawBytes;
    out["file_bytes"] = static_cast<double>(info.st_size);
    out["raw_mb_per_s"] = rawBytes / seconds / 1e6;
    out["tokens_per_s"] = static_cast<double>(tokens) / seconds;
    std::cout << out.dump(2) << "\n";
  } catch (const Error& error) {
    std::cerr << "strata-store-write-bench: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
