#include "engine/versions.h"

#include <hdf5.h>
#include <torch/version.h>

#include <Eigen/Core>

namespace strata {

LibraryVersions libraryVersions() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return {
      TORCH_VERSION,
      std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release),
      std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
          std::to_string(EIGEN_MINOR_VERSION),
  };
}

}  // namespace strata
