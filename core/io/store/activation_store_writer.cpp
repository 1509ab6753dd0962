// ActivationStoreWriter: creates a store with every object up front, switches it to SWMR
// mode, then fills it layer by layer (layout in activation_store.h).
//
// Why SWMR: a writer killed without SWMR leaves a file HDF5 refuses to open. In SWMR mode
// HDF5 orders its metadata writes so that what has been flushed is always a consistent file,
// but SWMR forbids creating objects or attributes afterwards — hence everything is created
// first, and completion is a flag dataset, not an attribute. The window before SWMR starts
// (an empty or half-made file) is closed by building the file under a staging name and
// renaming it into place after: a CI run killed a capture in that window and left a file that
// neither opened nor could be resumed or re-created without --overwrite.
//
// No HDF5 file-locking override is needed (HDF5_USE_FILE_LOCKING is left alone): a SWMR
// writer drops HDF5's own lock, so readers can open the file while it is written. That also
// means HDF5 no longer stops a second writer; this writer takes its own WriterLock for that.

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <utility>

#include "common/build_info.h"
#include "common/error.h"
#include "common/provenance.h"
#include "io/store/activation_store.h"
#include "io/store/activation_store_layout.h"
#include "io/store/hdf5_handle.h"
#include "io/store/hdf5_open_error.h"
#include "io/store/layer_values_writer.h"
#include "io/writer_lock.h"

namespace strata::io {

namespace layout = store_layout;

namespace {

// Where create() builds a store before it is complete enough to be seen: beside it, hidden,
// and always the same name, so a killed create's leftover is reused by the next one.
std::filesystem::path stagingPath(const std::filesystem::path& file) {
  return file.parent_path() / ("." + file.filename().string() + ".creating");
}

IoError alreadyExists(const std::filesystem::path& file) {
  return IoError(file,
                 "already exists; refusing to overwrite it (--overwrite replaces it; --resume "
                 "finishes an interrupted capture)");
}

// Moves the staged store to `file`. Without overwrite, a file that appeared there meanwhile is
// kept and the create fails (RENAME_NOREPLACE; filesystems without it get a checked rename).
void publishStaged(const std::filesystem::path& staging, const std::filesystem::path& file,
                   bool overwrite) {
  if (!overwrite) {
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, file.c_str(), RENAME_NOREPLACE) == 0) {
      return;
    }
    if (errno == EEXIST) throw alreadyExists(file);
    if (errno != EINVAL && errno != ENOSYS) {
      throw IoError(file, "cannot move the new store into place: " + lastSystemError());
    }
    std::error_code ignored;
    if (std::filesystem::exists(file, ignored)) throw alreadyExists(file);
  }
  if (::rename(staging.c_str(), file.c_str()) != 0) {
    throw IoError(file, "cannot move the new store into place: " + lastSystemError());
  }
}

void checkArguments(const std::filesystem::path& file, const StoreMeta& meta,
                    const TokenTable& tokens, const StoreWriteOptions& options) {
  if (options.deflateLevel < 1 || options.deflateLevel > 9) {
    throw ConfigError(file, "deflate level",
                      "must be between 1 and 9, is " + std::to_string(options.deflateLevel));
  }
  if (options.threads < 0) {
    throw ConfigError(
        file, "write threads",
        "must be 0 (one per hardware thread) or more, is " + std::to_string(options.threads));
  }
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
                            hid_t type, std::vector<hsize_t> dims, std::vector<hsize_t> chunk,
                            int deflateLevel) {
  const hdf5::Dataspace space(
      H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
  const hdf5::PropertyList dcpl(H5Pcreate(H5P_DATASET_CREATE));
  const bool ok = space && dcpl &&
                  H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) >= 0 &&
                  H5Pset_shuffle(dcpl.get()) >= 0 &&
                  H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflateLevel)) >= 0;
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
                  const TokenTable& tokens, int deflateLevel) {
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
    const hdf5::Dataset dataset = createDataset(file, path, name, H5T_STD_I32LE, {n},
                                                {std::min<hsize_t>(n, 65536)}, deflateLevel);
    writeAll(dataset.get(), H5T_NATIVE_INT32, columns[i]->data(), path, name);
  }
  createGroup(file, path, layout::kLayersGroup);
  const hdf5::Datatype half = hdf5::halfType();
  const hid_t layerType = meta.dtype == StoreDType::Float16 ? half.get() : H5T_IEEE_F32LE;
  const auto chunkRows = static_cast<hsize_t>(
      layout::chunkRowsFor(meta.hiddenSize, meta.dtype, static_cast<int64_t>(n)));
  const auto d = static_cast<hsize_t>(meta.hiddenSize);
  for (int64_t layer = 0; layer <= meta.numLayers; ++layer) {
    createDataset(file, path, layout::layerName(layer), layerType, {n, d}, {chunkRows, d},
                  deflateLevel);
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
  StoreWriteOptions options;
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

void ActivationStoreWriter::checkCreatable(const std::filesystem::path& file, bool overwrite) {
  std::error_code error;
  const auto status = std::filesystem::status(file, error);
  if (std::filesystem::is_directory(status)) throw IoError(file, "is a folder, not a store file");
  if (std::filesystem::exists(status) && !overwrite) throw alreadyExists(file);
  const std::filesystem::path folder =
      file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  std::string problem;
  if (!std::filesystem::is_directory(folder, error))
    problem = "the folder " + folder.string() + " does not exist";
  else if (::access(folder.c_str(), W_OK | X_OK) != 0)
    problem = "the folder " + folder.string() + " cannot be written: " + std::strerror(errno);
  if (!problem.empty())
    throw IoError(file, "cannot create the store (as " + stagingPath(file).filename().string() +
                            " beside it): " + problem);
}

ActivationStoreWriter ActivationStoreWriter::create(const std::filesystem::path& file,
                                                    const StoreMeta& meta, const TokenTable& tokens,
                                                    bool overwrite,
                                                    const StoreWriteOptions& options) {
  hdf5::quietErrors();
  checkArguments(file, meta, tokens, options);
  auto state = std::make_unique<State>();
  state->file = file;
  state->meta = meta;
  state->options = options;
  state->meta.strataVersion = build::kVersion;
  state->meta.createdUtc = utcNow();
  state->numTokens = static_cast<int64_t>(tokens.size());
  // The store is built under a staging name and renamed into place once it is a valid SWMR
  // file: a kill before that leaves no file at `file` (an old store, with overwrite, intact).
  std::error_code ignored;
  const bool existed = std::filesystem::exists(file, ignored);
  if (existed && !overwrite) throw alreadyExists(file);
  // Another writer still writing the old store (a resume) must not lose it under its feet.
  const WriterLock oldStore = existed ? WriterLock::forExistingFile(file) : WriterLock();
  const std::filesystem::path staging = stagingPath(file);
  try {
    state->lock = WriterLock::forNewFile(staging, /*overwrite=*/true);
  } catch (const LockHeldError&) {
    throw LockHeldError(file, "another writer is creating this store (" +
                                  staging.filename().string() +
                                  "); wait for it to finish or stop it, then try again");
  } catch (const IoError& error) {
    // Name the store the user asked for; the staging file is an implementation detail.
    std::string problem = error.what();
    const std::string where = staging.string() + ": ";
    if (problem.rfind(where, 0) == 0) problem.erase(0, where.size());
    throw IoError(file, "cannot create the store (as " + staging.filename().string() +
                            " beside it): " + problem);
  }
  try {
    const hdf5::PropertyList fapl = hdf5::latestFormatAccess();
    state->h5.reset(H5Fcreate(staging.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
    if (!state->h5) {
      const std::string detail = hdf5::takeErrorDetail();
      if (hdf5::isLockConflict(detail)) hdf5::throwOpenFailure(file, detail, "create the store");
      throw IoError(file,
                    "cannot create the HDF5 file " + staging.string() + " (HDF5: " + detail + ")");
    }
    createLayout(state->h5.get(), file, state->meta, tokens, options.deflateLevel);
    if (H5Fstart_swmr_write(state->h5.get()) < 0) {
      throw IoError(file, "cannot start SWMR writing" + hdf5::detailSuffix());
    }
    state->flags.reset(H5Dopen2(state->h5.get(), layout::kCompleteFlags, H5P_DEFAULT));
    if (!state->flags) throw IoError(file, "cannot reopen /layers_complete" + hdf5::detailSuffix());
    // The open file and the lock follow the inode through the rename.
    publishStaged(staging, file, overwrite);
  } catch (...) {
    // A half-made store is worse than none: nothing could tell it from a real one.
    state->flags.reset();
    state->h5.reset();
    std::filesystem::remove(staging, ignored);
    throw;
  }
  state->complete.assign(static_cast<size_t>(meta.numLayers + 1), 0);
  return ActivationStoreWriter(std::move(state));
}

ActivationStoreWriter ActivationStoreWriter::resume(const std::filesystem::path& file,
                                                    const StoreWriteOptions& options) {
  hdf5::quietErrors();
  if (options.threads < 0) {
    throw ConfigError(
        file, "write threads",
        "must be 0 (one per hardware thread) or more, is " + std::to_string(options.threads));
  }
  layout::requireHdf5File(file);
  auto state = std::make_unique<State>();
  state->file = file;
  state->options = options;
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
  if (!dataset) throw IoError(s.file, "cannot open dataset /" + name + hdf5::detailSuffix());
  writeLayerValues(dataset.get(), rowsMajor, {s.numTokens, d, s.meta.dtype}, s.options, s.file,
                   name);
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

}  // namespace strata::io
