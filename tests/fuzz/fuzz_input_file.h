#pragma once
// Fuzz targets for readers that take a path: each run writes the input to a file in a private
// folder (in /dev/shm when it exists, so the "disk" is memory) and hands the reader its path.
// The folder is per process, so parallel fuzzer jobs (-jobs=N) never share a file.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace strata::fuzz {

/** The per-process scratch folder, created on first use. */
inline const std::filesystem::path& scratchFolder() {
  static const std::filesystem::path folder = [] {
    const std::filesystem::path base = std::filesystem::is_directory("/dev/shm")
                                           ? "/dev/shm"
                                           : std::filesystem::temp_directory_path();
    std::filesystem::path dir = base / ("strata-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
  }();
  return folder;
}

/** Writes `data` to scratchFolder()/`name` (replacing it) and returns the path. */
inline std::filesystem::path writeInput(const char* name, const uint8_t* data, size_t size) {
  const std::filesystem::path file = scratchFolder() / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return file;
}

}  // namespace strata::fuzz
