#pragma once
// A small float32 activation store whose layers have clearly different geometry (layer l is
// an anisotropic Gaussian cloud whose spectrum decays faster with depth), for the scan, the
// store's /geometry group and `strata-cli score`.

#include <cstdint>
#include <filesystem>
#include <vector>

namespace strata::testing {

struct GeometryStoreShape {
  int64_t tokens = 400;
  int64_t hidden = 12;
  int64_t layers = 4;  // layers 0..layers are written
};

/** The rows of one layer, N×d row-major, deterministic. */
std::vector<float> geometryFixtureLayer(const GeometryStoreShape& shape, int64_t layer);

/** Writes the whole store (all layers complete) to `file`. */
void writeGeometryFixtureStore(const std::filesystem::path& file,
                               const GeometryStoreShape& shape = {});

}  // namespace strata::testing
