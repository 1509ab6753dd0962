#pragma once
// The geometry of every layer of one activation store, as a scan computes it, the store
// keeps it (/geometry) and the CLI and views show it.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "geometry/layer_geometry.h"

namespace strata {
class ActivationStore;
class JobContext;
}

namespace strata::geometry {

struct GeometryReport {
  ProxyOptions options;
  std::string backend;       // GeometryBackend::description() of the run
  std::string modelId;       // from the store's /meta
  int64_t numLayers = 0;     // L of the store (layers 0..L exist)
  int64_t numTokens = 0;     // N rows per layer
  std::vector<LayerGeometry> layers;  // ascending layer index

  std::vector<int64_t> layerIndices() const;
  std::vector<ProxyValues> values() const;
};

/**
 * Computes every completed layer of `store` (or only `layers` when given), one layer in memory
 * at a time, reporting progress per layer and per bootstrap resample through `ctx`.
 */
GeometryReport scanStore(const ActivationStore& store, GeometryBackend& backend,
                         const ProxyOptions& options, JobContext& ctx,
                         const std::vector<int64_t>& layers = {});

/**
 * Writes the report into the store file as /geometry (replacing an earlier one). The store
 * must not be open for writing elsewhere. Throws IoError / FormatError naming the file.
 */
void writeGeometry(const std::filesystem::path& storeFile, const GeometryReport& report);

/** The /geometry a scan left in the store, or nullopt when it has none. */
std::optional<GeometryReport> readGeometry(const std::filesystem::path& storeFile);

}  // namespace strata::geometry
