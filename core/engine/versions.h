#pragma once
// Versions of the libraries Strata runs on, for About dialogs, run.json and bug reports.

#include <string>

namespace strata {

struct LibraryVersions {
  std::string libtorch;
  std::string hdf5;
  std::string eigen;
};

LibraryVersions libraryVersions();

}  // namespace strata
