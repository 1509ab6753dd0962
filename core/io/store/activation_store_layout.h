#pragma once
// Internal to core/io: the names and checks of the activation-store layout that the reader
// (activation_store.cpp) and the writer (activation_store_writer.cpp) share. The layout itself
// is described in activation_store.h.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "io/store/activation_store.h"
#include "io/store/hdf5_handle.h"

namespace strata::io::store_layout {

inline constexpr const char* kMetaGroup = "meta";
inline constexpr const char* kTokensGroup = "tokens";
inline constexpr const char* kLayersGroup = "layers";
inline constexpr const char* kCompleteFlags = "layers_complete";
inline constexpr const char* kTokenColumns[] = {"ids", "doc", "position"};

/** "layers/7": the dataset of one layer, relative to the root group. */
std::string layerName(int64_t layer);

/** Whether `name` is one of the /meta attributes the layout defines (not free-form extra). */
bool isReservedMetaName(const std::string& name);

/** Bytes per stored element: 2 for float16, 4 for float32. */
size_t elementSize(StoreDType dtype);

/** Rows per chunk: whole rows, about 512 KiB per chunk, at least 1 and at most numRows. */
int64_t chunkRowsFor(int64_t hiddenSize, StoreDType dtype, int64_t numRows);

/** Rows per read or write call: a multiple of `chunkRows` covering about 16 MiB of float32. */
int64_t transferRowsFor(int64_t hiddenSize, int64_t chunkRows);

/**
 * Throws IoError when `file` is missing or unreadable, FormatError when it is not HDF5 at all
 * (so the message can say "not an HDF5 file" instead of HDF5's internal wording).
 */
void requireHdf5File(const std::filesystem::path& file);

/** Reads and checks every /meta attribute, free-form string attributes into `extra`. */
StoreMeta readMeta(hid_t file, const std::filesystem::path& path);

/** Reads /tokens; the three columns must be 1-D integer datasets of one length N > 0. */
TokenTable readTokens(hid_t file, const std::filesystem::path& path);

/** Checks that /layers/0../layers/L exist as [N, d] datasets of the float type meta names. */
void checkLayers(hid_t file, const std::filesystem::path& path, const StoreMeta& meta,
                 int64_t numTokens);

/**
 * Reads /layers_complete (L+1 flags). `refresh` first drops cached metadata so that a
 * SWMR reader sees what the writer has flushed since.
 */
std::vector<uint8_t> readCompleteFlags(hid_t file, const std::filesystem::path& path,
                                       int64_t numLayers, bool refresh);

/** Selects rows [first, first + count) of an [N, d] dataset's file space. */
hdf5::Dataspace selectRows(hid_t dataset, int64_t first, int64_t count, int64_t hiddenSize);

}  // namespace strata::io::store_layout
