// ActivationStoreWriter: creates a store with every object up front, switches it to SWMR
// mode, then fills it layer by layer (layout in activation_store.h).
//
// Why SWMR: a writer killed without SWMR leaves a file HDF5 refuses to open. In SWMR mode
// HDF5 orders its metadata writes so that what has been flushed is always a consistent file,
// but SWMR forbids creating objects or attributes afterwards — hence everything is created
// first, and completion is a flag dataset, not an attribute.
//
// No HDF5 file-locking override is needed (HDF5_USE_FILE_LOCKING is left alone): a SWMR
// writer drops HDF5's own lock, so readers can open the file while it is written. That also
// means HDF5 no longer stops a second writer; this writer takes its own WriterLock for that.

#include <Eigen/Core>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <utility>

#include "common/build_info.h"
#include "common/error.h"
#include "io/activation_store.h"
#include "io/activation_store_layout.h"
#include "io/hdf5_handle.h"
#include "io/hdf5_open_error.h"
#include "io/writer_lock.h"

namespace strata {

namespace layout = store_layout;

namespace {

// Random-looking float data compresses little whatever the level (measured on 20,000×1024
// normal values: level 4 → 86% of raw in 2.0 s for float16, level 1 → 87% in 1.2 s). If
// capture becomes compression-bound, level 1 is the knob; readers need no change.
constexpr unsigned kDeflateLevel = 4;

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc = {};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

void checkArguments(const std::filesystem::path& file, const StoreMeta& meta,
                    const TokenTable& tokens) {
  if (meta.hiddenSize <= 0 || meta.numLayers < 0) {
    throw FormatError(file, "hidden_size must be positive and num_layers not negative", "meta",
                      "group");
  }
  if (tokens.size() == 0 || tokens.doc.size() != tokens.size() ||
      tokens.position.size() != tokens.size()) {
    throw FormatError(file,
                      "ids, doc and position must have one common, non-zero length (" +
                          std::to_string(tokens.ids.size()) + ", " +
                          std::to_string(tokens.doc.size()) + ", " +
                          std::to_string(tokens.position.size()) + ")",
                      layout::kTokensGroup, "group");
  }
  for (const auto& [name, value] : meta.extra) {
    if (name.empty() || layout::isReservedMetaName(name)) {
      throw FormatError(file, "extra attribute name is empty or reserved", "meta@" + name,
                        "attribute");
    }
  }
}

hdf5::Group createGroup(hid_t file, const std::filesystem::path& path, const char* name) {
  hdf5::Group group(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!group)
    throw IoError(path, std::string("cannot create group /") + name + hdf5::detailSuffix());
  return group;
}

// A chunked, shuffled, deflated dataset of fixed dimensions (SWMR cannot extend datasets
// anyway, and fixed dimensions give HDF5's compact fixed-array chunk index).
hdf5::Dataset createDataset(hid_t file, const std::filesystem::path& path, const std::string& name,
                            hid_t type, std::vector<hsize_t> dims, std::vector<hsize_t> chunk) {
  const hdf5::Dataspace space(
      H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  const hdf5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  const bool ok = space && dcpl &&
                  H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) >= 0 &&
                  H5Pset_shuffle(dcpl.get()) >= 0 && H5Pset_deflate(dcpl.get(), kDeflateLevel) >= 0;
  hdf5::Dataset dataset(
      ok ? H5Dcreate2(file, name.c_str(), type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT)
         : H5I_INVALID_HID);
  if (!dataset) throw IoError(path, "cannot create dataset /" + name + hdf5::detailSuffix());
  return dataset;
}

void writeAll(hid_t dataset, hid_t memType, const void* data, const std::filesystem::path& path,
              const std::string& name) {
  if (H5Dwrite(dataset, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    throw IoError(path, "cannot write dataset /" + name + hdf5::detailSuffix());
  }
}

// Everything before SWMR starts: groups, attributes, tokens, empty layers, zero flags.
void createLayout(hid_t file, const std::filesystem::path& path, const StoreMeta& meta,
                  const TokenTable& tokens) {
  {
    const hdf5::Group group = createGroup(file, path, layout::kMetaGroup);
    const hdf5::Location where{group.get(), path, layout::kMetaGroup};
    hdf5::writeStringAttribute(where, "model_id", meta.modelId);
    if (!meta.modelFingerprint.empty())
      hdf5::writeStringAttribute(where, "model_fingerprint", meta.modelFingerprint);
    hdf5::writeStringAttribute(where, "architecture", meta.architecture);
    hdf5::writeInt64Attribute(where, "hidden_size", meta.hiddenSize);
    hdf5::writeInt64Attribute(where, "num_layers", meta.numLayers);
    hdf5::writeStringAttribute(where, "dtype", storeDTypeName(meta.dtype));
    hdf5::writeStringAttribute(where, "corpus_hash", meta.corpusHash);
    hdf5::writeStringAttribute(where, "sampling_policy", meta.samplingPolicy);
    hdf5::writeStringAttribute(where, "strata_version", meta.strataVersion);
    hdf5::writeStringAttribute(where, "created_utc", meta.createdUtc);
    for (const auto& [name, value] : meta.extra) hdf5::writeStringAttribute(where, name, value);
  }
  const auto n = static_cast<hsize_t>(tokens.size());
  createGroup(file, path, layout::kTokensGroup);
  const std::vector<int32_t>* columns[] = {&tokens.ids, &tokens.doc, &tokens.position};
  for (size_t i = 0; i < 3; ++i) {
    const std::string name = std::string(layout::kTokensGroup) + "/" + layout::kTokenColumns[i];
    const hdf5::Dataset dataset =
        createDataset(file, path, name, H5T_STD_I32LE, {n}, {std::min<hsize_t>(n, 65536)});
    writeAll(dataset.get(), H5T_NATIVE_INT32, columns[i]->data(), path, name);
  }
  createGroup(file, path, layout::kLayersGroup);
  const hdf5::Datatype half = hdf5::halfType();
  const hid_t layerType = meta.dtype == StoreDType::Float16 ? half.get() : H5T_IEEE_F32LE;
  const auto chunkRows = static_cast<hsize_t>(
      layout::chunkRowsFor(meta.hiddenSize, meta.dtype, static_cast<int64_t>(n)));
  const auto d = static_cast<hsize_t>(meta.hiddenSize);
  for (int64_t layer = 0; layer <= meta.numLayers; ++layer) {
    createDataset(file, path, layout::layerName(layer), layerType, {n, d}, {chunkRows, d});
  }
  // Contiguous: 1 byte per layer, written here so its space exists before SWMR starts.
  const hsize_t flagCount = static_cast<hsize_t>(meta.numLayers) + 1;
  const hdf5::Dataspace space(H5Screate_simple(1, &flagCount, nullptr));
  const hdf5::Dataset flags(H5Dcreate2(file, layout::kCompleteFlags, H5T_STD_U8LE, space.get(),
                                       H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  if (!flags) throw IoError(path, std::string("cannot create dataset /") + layout::kCompleteFlags);
  const std::vector<uint8_t> zeros(flagCount, 0);
  writeAll(flags.get(), H5T_NATIVE_UINT8, zeros.data(), path, layout::kCompleteFlags);
}

}  // namespace

struct ActivationStoreWriter::State {
  std::filesystem::path file;
  StoreMeta meta;
  int64_t numTokens = 0;
  std::vector<uint8_t> complete;
  // Destroyed in reverse: datasets, then the file, then the lock.
  WriterLock lock;
  hdf5::File h5;
  hdf5::Dataset flags;

  void flush(hid_t dataset, const std::string& name) {
    // H5Dflush writes the dataset's data and metadata; H5Fflush also rewrites the superblock's
    // end-of-allocation, so even a non-SWMR tool finds the new chunks after a crash.
    if (H5Dflush(dataset) < 0 || H5Fflush(h5.get(), H5F_SCOPE_LOCAL) < 0) {
      throw IoError(file, "cannot flush dataset /" + name + hdf5::detailSuffix());
    }
  }
  void setComplete(int64_t layer, uint8_t value) {
    const hsize_t index = static_cast<hsize_t>(layer), one = 1;
    const hdf5::Dataspace memSpace(H5Screate_simple(1, &one, nullptr));
    const hdf5::Dataspace fileSpace(H5Dget_space(flags.get()));
    if (H5Sselect_hyperslab(fileSpace.get(), H5S_SELECT_SET, &index, nullptr, &one, nullptr) < 0 ||
        H5Dwrite(flags.get(), H5T_NATIVE_UINT8, memSpace.get(), fileSpace.get(), H5P_DEFAULT,
                 &value) < 0) {
      throw IoError(file, "cannot mark " + layout::layerName(layer) + " in /" +
                              layout::kCompleteFlags + hdf5::detailSuffix());
    }
    flush(flags.get(), layout::kCompleteFlags);
    complete[static_cast<size_t>(layer)] = value;
  }
};

ActivationStoreWriter ActivationStoreWriter::create(const std::filesystem::path& file,
                                                    const StoreMeta& meta, const TokenTable& tokens,
                                                    bool overwrite) {
  hdf5::quietErrors();
  checkArguments(file, meta, tokens);
  auto state = std::make_unique<State>();
  state->file = file;
  state->meta = meta;
  state->meta.strataVersion = build::kVersion;
  state->meta.createdUtc = utcNow();
  state->numTokens = static_cast<int64_t>(tokens.size());
  std::error_code ignored;
  const bool existed = std::filesystem::exists(file, ignored);
  state->lock = WriterLock::forNewFile(file, overwrite);
  bool truncated = false;
  try {
    const hdf5::PropertyList fapl = hdf5::latestFormatAccess();
    state->h5.reset(H5Fcreate(file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
    if (!state->h5) {
      const std::string detail = hdf5::takeErrorDetail();
      if (hdf5::isLockConflict(detail)) hdf5::throwOpenFailure(file, detail, "create the store");
      throw IoError(file, "cannot create the HDF5 file (HDF5: " + detail + ")");
    }
    truncated = true;
    createLayout(state->h5.get(), file, state->meta, tokens);
    if (H5Fstart_swmr_write(state->h5.get()) < 0) {
      throw IoError(file, "cannot start SWMR writing" + hdf5::detailSuffix());
    }
    state->flags.reset(H5Dopen2(state->h5.get(), layout::kCompleteFlags, H5P_DEFAULT));
    if (!state->flags) throw IoError(file, "cannot reopen /layers_complete" + hdf5::detailSuffix());
  } catch (...) {
    // A half-made store is worse than none: nothing could tell it from a real one. A file
    // that HDF5 refused to truncate (e.g. a reader has it open) is left as it was.
    state->flags.reset();
    state->h5.reset();
    if (truncated || !existed) std::filesystem::remove(file, ignored);
    throw;
  }
  state->complete.assign(static_cast<size_t>(meta.numLayers + 1), 0);
  return ActivationStoreWriter(std::move(state));
}

ActivationStoreWriter ActivationStoreWriter::resume(const std::filesystem::path& file) {
  hdf5::quietErrors();
  layout::requireHdf5File(file);
  auto state = std::make_unique<State>();
  state->file = file;
  state->lock = WriterLock::forExistingFile(file);
  {
    // A killed SWMR writer leaves the superblock marked "open for writing", and its recorded
    // end-of-allocation may lag behind data already flushed. Clear the mark as h5clear does
    // (HDF5 1.10 exposes it only as the fapl property "clear_status_flags"), then move the
    // end of allocation to the end of the file so no new chunk overwrites a finished layer.
    // The lock taken above is what makes clearing the mark safe.
    const hdf5::PropertyList fapl = hdf5::latestFormatAccess();
    hbool_t clear = true;
    if (H5Pset(fapl.get(), "clear_status_flags", &clear) < 0) hdf5::takeErrorDetail();
    hdf5::File repair(H5Fopen(file.c_str(), H5F_ACC_RDWR, fapl.get()));
    if (!repair) hdf5::throwOpenFailure(file, hdf5::takeErrorDetail(), "resume the store");
    if (H5Fincrement_filesize(repair.get(), 0) < 0) {
      throw IoError(file, "cannot extend the end of allocation" + hdf5::detailSuffix());
    }
    state->meta = layout::readMeta(repair.get(), file);
    const TokenTable tokens = layout::readTokens(repair.get(), file);
    state->numTokens = static_cast<int64_t>(tokens.size());
    layout::checkLayers(repair.get(), file, state->meta, state->numTokens);
    if (H5Fclose(repair.release()) < 0) {
      throw IoError(file, "cannot close after repair" + hdf5::detailSuffix());
    }
  }
  const hdf5::PropertyList fapl = hdf5::latestFormatAccess();
  state->h5.reset(H5Fopen(file.c_str(), H5F_ACC_RDWR | H5F_ACC_SWMR_WRITE, fapl.get()));
  if (!state->h5) {
    throw FormatError(file,
                      "cannot reopen for SWMR writing; only stores Strata created can be "
                      "resumed" +
                          hdf5::detailSuffix());
  }
  state->complete = layout::readCompleteFlags(state->h5.get(), file, state->meta.numLayers, false);
  state->flags.reset(H5Dopen2(state->h5.get(), layout::kCompleteFlags, H5P_DEFAULT));
  if (!state->flags) throw IoError(file, "cannot open /layers_complete" + hdf5::detailSuffix());
  return ActivationStoreWriter(std::move(state));
}

ActivationStoreWriter::ActivationStoreWriter(std::unique_ptr<State> state)
    : m_state(std::move(state)) {}
ActivationStoreWriter::ActivationStoreWriter(ActivationStoreWriter&&) noexcept = default;
ActivationStoreWriter& ActivationStoreWriter::operator=(ActivationStoreWriter&&) noexcept = default;

ActivationStoreWriter::~ActivationStoreWriter() {
  try {
    close();
  } catch (const std::exception&) {
    // Destructors must not throw; callers who care call close() themselves.
  }
}

void ActivationStoreWriter::writeLayer(int64_t layer, std::span<const float> rowsMajor) {
  hdf5::quietErrors();
  if (!m_state || !m_state->h5) {
    throw IoError(m_state ? m_state->file : std::filesystem::path(), "the store writer is closed");
  }
  State& s = *m_state;
  const std::string name = layout::layerName(layer);
  if (layer < 0 || layer > s.meta.numLayers) {
    throw FormatError(
        s.file, "no such layer: the store holds layers 0.." + std::to_string(s.meta.numLayers),
        name, "dataset");
  }
  const int64_t d = s.meta.hiddenSize;
  if (rowsMajor.size() != static_cast<size_t>(s.numTokens * d)) {
    throw FormatError(s.file,
                      "expected N×d = " + std::to_string(s.numTokens) + "×" + std::to_string(d) +
                          " values, got " + std::to_string(rowsMajor.size()),
                      name, "dataset");
  }
  // Rewriting a finished layer: unmark it first, so a crash midway cannot leave a layer that
  // is marked complete but only partly rewritten.
  if (s.complete[static_cast<size_t>(layer)] != 0) s.setComplete(layer, 0);

  const hdf5::Dataset dataset(H5Dopen2(s.h5.get(), name.c_str(), H5P_DEFAULT));
  const hdf5::PropertyList dcpl(dataset ? H5Dget_create_plist(dataset.get()) : H5I_INVALID_HID);
  hsize_t chunk[2] = {1, 1};
  if (!dcpl || H5Pget_chunk(dcpl.get(), 2, chunk) < 0) {
    throw IoError(s.file, "cannot open dataset /" + name + hdf5::detailSuffix());
  }
  // Whole chunks per call, so HDF5 never reads back and re-compresses a half-written chunk.
  const int64_t blockRows = layout::transferRowsFor(d, static_cast<int64_t>(chunk[0]));
  const bool toHalf = s.meta.dtype == StoreDType::Float16;
  const hdf5::Datatype half = toHalf ? hdf5::halfType() : hdf5::Datatype();
  std::vector<Eigen::half> staging;
  for (int64_t done = 0; done < s.numTokens; done += blockRows) {
    const int64_t rows = std::min(blockRows, s.numTokens - done);
    const std::span<const float> block = rowsMajor.subspan(done * d, rows * d);
    const hsize_t memDims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(d)};
    const hdf5::Dataspace memSpace(H5Screate_simple(2, memDims, nullptr));
    const hdf5::Dataspace fileSpace = layout::selectRows(dataset.get(), done, rows, d);
    const void* data = block.data();
    if (toHalf) {
      // Converted here (round to nearest even) so HDF5 does no slow soft conversion.
      staging.resize(block.size());
      for (size_t i = 0; i < block.size(); ++i) {
        staging[i] = static_cast<Eigen::half>(block[i]);
        if (std::isfinite(block[i]) && !std::isfinite(static_cast<float>(staging[i]))) {
          throw FormatError(s.file,
                            "value " + std::to_string(block[i]) + " at row " +
                                std::to_string(done + static_cast<int64_t>(i) / d) +
                                " is outside the float16 range (±65504); write this "
                                "model's store as float32",
                            name, "dataset");
        }
      }
      data = staging.data();
    }
    if (!fileSpace || H5Dwrite(dataset.get(), toHalf ? half.get() : H5T_NATIVE_FLOAT,
                               memSpace.get(), fileSpace.get(), H5P_DEFAULT, data) < 0) {
      throw IoError(s.file, "cannot write dataset /" + name + hdf5::detailSuffix());
    }
  }
  // Data first, flag second: a reader never sees a flag for data that is not in the file.
  s.flush(dataset.get(), name);
  s.setComplete(layer, 1);
}

std::vector<int64_t> ActivationStoreWriter::missingLayers() const {
  std::vector<int64_t> missing;
  for (size_t layer = 0; layer < m_state->complete.size(); ++layer) {
    if (m_state->complete[layer] == 0) missing.push_back(static_cast<int64_t>(layer));
  }
  return missing;
}

const StoreMeta& ActivationStoreWriter::meta() const { return m_state->meta; }
int64_t ActivationStoreWriter::numTokens() const { return m_state->numTokens; }
const std::filesystem::path& ActivationStoreWriter::path() const { return m_state->file; }

void ActivationStoreWriter::close() {
  if (!m_state || !m_state->h5) return;
  State& s = *m_state;
  s.flags.reset();
  const herr_t status = H5Fclose(s.h5.release());
  s.lock.release();
  if (status < 0) throw IoError(s.file, "cannot close the store" + hdf5::detailSuffix());
}

}  // namespace strata
