#include "io/store/activation_store_layout.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <system_error>

#include "common/error.h"
#include "io/store/hdf5_open_error.h"

namespace strata::io::store_layout {
namespace {

constexpr std::array<const char*, 10> kReservedMetaNames = {
    "model_id",    "architecture",    "hidden_size",    "num_layers",  "dtype",
    "corpus_hash", "sampling_policy", "strata_version", "created_utc", "model_fingerprint"};

[[noreturn]] void missing(const std::filesystem::path& path, const std::string& item,
                          const std::string& kind) {
  throw FormatError(path, "missing: this is not a complete Strata activation store", item, kind);
}

hdf5::Dataset openDataset(hid_t file, const std::filesystem::path& path, const std::string& name) {
  if (!hdf5::exists(file, name)) missing(path, name, "dataset");
  hdf5::Dataset dataset(H5Dopen2(file, name.c_str(), H5P_DEFAULT));
  if (!dataset) {
    throw FormatError(path, "cannot open" + hdf5::detailSuffix(), name, "dataset");
  }
  return dataset;
}

// The dataset's dimensions, after checking its rank and element class.
std::vector<hsize_t> shapeOf(hid_t dataset, const std::filesystem::path& path,
                             const std::string& name, int rank, H5T_class_t typeClass,
                             const std::string& expected) {
  const hdf5::Datatype type(H5Dget_type(dataset));
  const hdf5::Dataspace space(H5Dget_space(dataset));
  if (!type || !space || H5Tget_class(type.get()) != typeClass ||
      H5Sget_simple_extent_ndims(space.get()) != rank) {
    throw FormatError(path, "must be " + expected + hdf5::detailSuffix(), name, "dataset");
  }
  std::vector<hsize_t> dims(static_cast<size_t>(rank));
  H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return dims;
}

herr_t collectName(hid_t /*location*/, const char* name, const H5A_info_t* /*info*/, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

}  // namespace

std::string layerName(int64_t layer) {
  return std::string(kLayersGroup) + "/" + std::to_string(layer);
}

bool isReservedMetaName(const std::string& name) {
  return std::find(kReservedMetaNames.begin(), kReservedMetaNames.end(), name) !=
         kReservedMetaNames.end();
}

size_t elementSize(StoreDType dtype) { return dtype == StoreDType::Float16 ? 2 : 4; }

int64_t chunkRowsFor(int64_t hiddenSize, StoreDType dtype, int64_t numRows) {
  // ~512 KiB: large enough for deflate to work well and for few index entries, small enough
  // that reading a few rows decompresses little. Whole rows keep row-range reads simple.
  constexpr int64_t kTargetBytes = int64_t{512} * 1024;
  const int64_t rowBytes = hiddenSize * static_cast<int64_t>(elementSize(dtype));
  return std::clamp<int64_t>(kTargetBytes / std::max<int64_t>(rowBytes, 1), 1, numRows);
}

int64_t transferRowsFor(int64_t hiddenSize, int64_t chunkRows) {
  constexpr int64_t kTargetBytes = int64_t{16} * 1024 * 1024;
  const int64_t chunkBytes = chunkRows * hiddenSize * 4;
  return chunkRows * std::max<int64_t>(1, kTargetBytes / std::max<int64_t>(chunkBytes, 1));
}

void requireHdf5File(const std::filesystem::path& file) {
  // Permission is checked first (a folder this user may not enter included), so that the
  // message neither says "no such file" nor depends on how HDF5 words it.
  if (::access(file.c_str(), R_OK) != 0 && errno == EACCES)
    hdf5::throwOpenFailure(file, lastSystemError(), "read the store");
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) {
    throw IoError(file, "no such file (or not a regular file)");
  }
  const htri_t isHdf5 = H5Fis_hdf5(file.c_str());
  if (isHdf5 < 0) hdf5::throwOpenFailure(file, hdf5::takeErrorDetail(), "read the store");
  if (isHdf5 == 0) {
    throw FormatError(file,
                      "not an HDF5 file, so not a Strata activation store; give the .h5 "
                      "file that `strata-cli capture --out` wrote");
  }
}

StoreMeta readMeta(hid_t file, const std::filesystem::path& path) {
  if (!hdf5::exists(file, kMetaGroup)) missing(path, kMetaGroup, "group");
  const hdf5::Group group(H5Gopen2(file, kMetaGroup, H5P_DEFAULT));
  if (!group) throw FormatError(path, "cannot open" + hdf5::detailSuffix(), kMetaGroup, "group");
  const hdf5::Location where{group.get(), path, kMetaGroup};

  auto text = [&](const char* name) {
    std::optional<std::string> value = hdf5::readStringAttribute(where, name);
    if (!value) missing(path, std::string(kMetaGroup) + "@" + name, "attribute");
    return *value;
  };
  auto integer = [&](const char* name, int64_t minimum) {
    std::optional<int64_t> value = hdf5::readInt64Attribute(where, name);
    if (!value) missing(path, std::string(kMetaGroup) + "@" + name, "attribute");
    if (*value < minimum) {
      throw FormatError(
          path, "must be at least " + std::to_string(minimum) + ", is " + std::to_string(*value),
          std::string(kMetaGroup) + "@" + name, "attribute");
    }
    return *value;
  };

  StoreMeta meta;
  meta.modelId = text("model_id");
  meta.modelFingerprint = hdf5::readStringAttribute(where, "model_fingerprint").value_or("");
  meta.architecture = text("architecture");
  meta.hiddenSize = integer("hidden_size", 1);
  meta.numLayers = integer("num_layers", 0);
  const std::string dtype = text("dtype");
  if (dtype == "float16") {
    meta.dtype = StoreDType::Float16;
  } else if (dtype == "float32") {
    meta.dtype = StoreDType::Float32;
  } else {
    throw FormatError(path, "must be \"float16\" or \"float32\", is \"" + dtype + "\"",
                      std::string(kMetaGroup) + "@dtype", "attribute");
  }
  meta.corpusHash = text("corpus_hash");
  meta.samplingPolicy = text("sampling_policy");
  meta.strataVersion = text("strata_version");
  meta.createdUtc = text("created_utc");

  std::vector<std::string> names;
  hsize_t index = 0;
  if (H5Aiterate2(group.get(), H5_INDEX_NAME, H5_ITER_INC, &index, collectName, &names) < 0) {
    throw FormatError(path, "cannot list attributes" + hdf5::detailSuffix(), kMetaGroup, "group");
  }
  for (const std::string& name : names) {
    if (isReservedMetaName(name)) continue;
    // Free-form attributes are strings by contract; a number someone added with h5py is not
    // ours to interpret, so it is left out of `extra` rather than refused.
    const hdf5::Attribute attribute(H5Aopen(group.get(), name.c_str(), H5P_DEFAULT));
    const hdf5::Datatype type(attribute ? H5Aget_type(attribute.get()) : H5I_INVALID_HID);
    if (type && H5Tget_class(type.get()) == H5T_STRING) {
      meta.extra[name] = *hdf5::readStringAttribute(where, name);
    }
  }
  return meta;
}

TokenTable readTokens(hid_t file, const std::filesystem::path& path) {
  TokenTable tokens;
  std::vector<int32_t>* columns[] = {&tokens.ids, &tokens.doc, &tokens.position};
  hsize_t length = 0;
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = std::string(kTokensGroup) + "/" + kTokenColumns[i];
    const hdf5::Dataset dataset = openDataset(file, path, name);
    const hsize_t n =
        shapeOf(dataset.get(), path, name, 1, H5T_INTEGER, "a 1-D integer dataset")[0];
    if (i > 0 && n != length) {
      throw FormatError(path,
                        "has " + std::to_string(n) + " entries, " + kTokensGroup + "/" +
                            kTokenColumns[0] + " has " + std::to_string(length),
                        name, "dataset");
    }
    if (n == 0) throw FormatError(path, "is empty", name, "dataset");
    length = n;
    columns[i]->resize(n);
    if (H5Dread(dataset.get(), H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                columns[i]->data()) < 0) {
      throw FormatError(path, "cannot read" + hdf5::detailSuffix(), name, "dataset");
    }
  }
  return tokens;
}

void checkLayers(hid_t file, const std::filesystem::path& path, const StoreMeta& meta,
                 int64_t numTokens) {
  // Built by appending: GCC 12 warns falsely (-Wrestrict) on "[" + std::to_string(...).
  std::string expected = "[";
  expected.append(std::to_string(numTokens)).append(", ").append(std::to_string(meta.hiddenSize));
  expected.append("] ").append(storeDTypeName(meta.dtype));
  for (int64_t layer = 0; layer <= meta.numLayers; ++layer) {
    const std::string name = layerName(layer);
    const hdf5::Dataset dataset = openDataset(file, path, name);
    const std::vector<hsize_t> dims = shapeOf(dataset.get(), path, name, 2, H5T_FLOAT, expected);
    const hdf5::Datatype type(H5Dget_type(dataset.get()));
    if (dims[0] != static_cast<hsize_t>(numTokens) ||
        dims[1] != static_cast<hsize_t>(meta.hiddenSize) ||
        H5Tget_size(type.get()) != elementSize(meta.dtype)) {
      throw FormatError(path, "must be " + expected + " (the tokens and /meta say so)", name,
                        "dataset");
    }
  }
}

std::vector<uint8_t> readCompleteFlags(hid_t file, const std::filesystem::path& path,
                                       int64_t numLayers, bool refresh) {
  const hdf5::Dataset dataset = openDataset(file, path, kCompleteFlags);
  if (refresh && H5Drefresh(dataset.get()) < 0) {
    throw FormatError(path, "cannot refresh" + hdf5::detailSuffix(), kCompleteFlags, "dataset");
  }
  const std::vector<hsize_t> dims = shapeOf(dataset.get(), path, kCompleteFlags, 1, H5T_INTEGER,
                                            "a 1-D integer dataset of num_layers + 1 flags");
  if (dims[0] != static_cast<hsize_t>(numLayers) + 1) {
    throw FormatError(path,
                      "must hold num_layers + 1 = " + std::to_string(numLayers + 1) +
                          " flags, holds " + std::to_string(dims[0]),
                      kCompleteFlags, "dataset");
  }
  std::vector<uint8_t> flags(dims[0]);
  if (H5Dread(dataset.get(), H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, flags.data()) < 0) {
    throw FormatError(path, "cannot read" + hdf5::detailSuffix(), kCompleteFlags, "dataset");
  }
  return flags;
}

hdf5::Dataspace selectRows(hid_t dataset, int64_t first, int64_t count, int64_t hiddenSize) {
  hdf5::Dataspace space(H5Dget_space(dataset));
  const hsize_t start[2] = {static_cast<hsize_t>(first), 0};
  const hsize_t extent[2] = {static_cast<hsize_t>(count), static_cast<hsize_t>(hiddenSize)};
  if (space &&
      H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, extent, nullptr) < 0) {
    space.reset();
  }
  return space;
}

}  // namespace strata::io::store_layout
