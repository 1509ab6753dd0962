// ActivationStore: the reading side of the activation store (the writer is in
// activation_store_writer.cpp, the shared layout checks in activation_store_layout.cpp).

#include "io/store/activation_store.h"

#include <algorithm>

#include "common/error.h"
#include "io/store/activation_store_layout.h"
#include "io/store/float16.h"
#include "io/store/hdf5_handle.h"
#include "io/store/hdf5_open_error.h"

namespace strata::io {

namespace layout = store_layout;

const char* storeDTypeName(StoreDType dtype) {
  return dtype == StoreDType::Float16 ? "float16" : "float32";
}

struct ActivationStore::State {
  std::filesystem::path file;
  StoreMeta meta;
  TokenTable tokens;
  std::vector<uint8_t> complete;  // one flag per layer 0..L
  bool swmr = false;              // opened in SWMR-read mode: refresh before reading
  hdf5::File h5;
};

namespace {

// SWMR read first: it is the only mode that opens a file whose writer is still running or
// was killed. A file written without SWMR support (e.g. by h5py with default settings)
// refuses it, and then a plain read-only open is right.
hdf5::File openFile(const std::filesystem::path& path, bool& swmr) {
  // In SWMR-read mode HDF5 takes a checksum failure for a read racing the writer and retries,
  // by default 100 times with growing sleeps per damaged object: a corrupt store then "opens"
  // for many minutes. A few attempts still ride out a live writer (a reader polls again).
  const hdf5::PropertyList access(H5Pcreate(H5P_FILE_ACCESS));
  if (access) H5Pset_metadata_read_attempts(access.get(), 4);
  hdf5::File file(H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ,
                          access ? access.get() : H5P_DEFAULT));
  swmr = file.valid();
  if (swmr) return file;
  const std::string swmrDetail = hdf5::takeErrorDetail();
  file.reset(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  if (!file) {
    const std::string plainDetail = hdf5::takeErrorDetail();
    hdf5::throwOpenFailure(path, plainDetail + "; in SWMR mode: " + swmrDetail, "open the store");
  }
  return file;
}

}  // namespace

ActivationStore ActivationStore::open(const std::filesystem::path& file) {
  hdf5::quietErrors();
  layout::requireHdf5File(file);
  auto state = std::make_unique<State>();
  state->file = file;
  state->h5 = openFile(file, state->swmr);
  const hid_t h5 = state->h5.get();
  state->meta = layout::readMeta(h5, file);
  state->tokens = layout::readTokens(h5, file);
  layout::checkLayers(h5, file, state->meta, static_cast<int64_t>(state->tokens.size()));
  state->complete = layout::readCompleteFlags(h5, file, state->meta.numLayers, state->swmr);
  return ActivationStore(std::move(state));
}

ActivationStore::ActivationStore(std::unique_ptr<State> state) : m_state(std::move(state)) {}
ActivationStore::ActivationStore(ActivationStore&&) noexcept = default;
ActivationStore& ActivationStore::operator=(ActivationStore&&) noexcept = default;
ActivationStore::~ActivationStore() = default;

const StoreMeta& ActivationStore::meta() const { return m_state->meta; }
const TokenTable& ActivationStore::tokens() const { return m_state->tokens; }
int64_t ActivationStore::numTokens() const { return static_cast<int64_t>(m_state->tokens.size()); }
const std::filesystem::path& ActivationStore::path() const { return m_state->file; }

std::vector<int64_t> ActivationStore::completedLayers() const {
  std::vector<int64_t> layers;
  for (size_t layer = 0; layer < m_state->complete.size(); ++layer) {
    if (m_state->complete[layer] != 0) layers.push_back(static_cast<int64_t>(layer));
  }
  return layers;
}

bool ActivationStore::layerComplete(int64_t layer) const {
  return layer >= 0 && layer <= m_state->meta.numLayers &&
         m_state->complete[static_cast<size_t>(layer)] != 0;
}

void ActivationStore::refresh() {
  hdf5::quietErrors();
  m_state->complete = layout::readCompleteFlags(m_state->h5.get(), m_state->file,
                                                m_state->meta.numLayers, m_state->swmr);
}

std::vector<float> ActivationStore::readLayer(int64_t layer) const {
  return readRows(layer, 0, numTokens());
}

std::vector<float> ActivationStore::readRows(int64_t layer, int64_t firstRow, int64_t count) const {
  hdf5::quietErrors();
  const State& s = *m_state;
  const std::string name = layout::layerName(layer);
  if (layer < 0 || layer > s.meta.numLayers) {
    throw FormatError(
        s.file, "no such layer: the store holds layers 0.." + std::to_string(s.meta.numLayers),
        name, "dataset");
  }
  if (!layerComplete(layer)) {
    throw FormatError(s.file, "layer was not finished (its writer stopped before completing it)",
                      name, "dataset");
  }
  if (firstRow < 0 || count < 0 || firstRow + count > numTokens()) {
    throw FormatError(s.file,
                      "rows [" + std::to_string(firstRow) + ", " +
                          std::to_string(firstRow + count) + ") are outside [0, " +
                          std::to_string(numTokens()) + ")",
                      name, "dataset");
  }
  const hdf5::Dataset dataset(H5Dopen2(s.h5.get(), name.c_str(), H5P_DEFAULT));
  // A SWMR reader may hold metadata cached before the writer finished this layer.
  if (!dataset || (s.swmr && H5Drefresh(dataset.get()) < 0)) {
    throw FormatError(s.file, "cannot open" + hdf5::detailSuffix(), name, "dataset");
  }
  const int64_t d = s.meta.hiddenSize;
  const hdf5::PropertyList dcpl(H5Dget_create_plist(dataset.get()));
  hsize_t chunk[2] = {1, 1};
  if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) H5Pget_chunk(dcpl.get(), 2, chunk);
  const int64_t blockRows = layout::transferRowsFor(d, static_cast<int64_t>(chunk[0]));

  std::vector<float> values(static_cast<size_t>(count * d));
  const hdf5::Datatype half =
      layout::elementSize(s.meta.dtype) == 2 ? hdf5::halfType() : hdf5::Datatype();
  std::vector<uint16_t> staging;
  // Block by block so that a float16 layer needs only one block of staging memory.
  for (int64_t done = 0; done < count; done += blockRows) {
    const int64_t rows = std::min(blockRows, count - done);
    const hsize_t memDims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(d)};
    const hdf5::Dataspace memSpace(H5Screate_simple(2, memDims, nullptr));
    const hdf5::Dataspace fileSpace = layout::selectRows(dataset.get(), firstRow + done, rows, d);
    float* out = values.data() + done * d;
    herr_t status = -1;
    if (half) {
      staging.resize(static_cast<size_t>(rows * d));
      status = H5Dread(dataset.get(), half.get(), memSpace.get(), fileSpace.get(), H5P_DEFAULT,
                       staging.data());
      fromFloat16(staging, out);
    } else {
      status = H5Dread(dataset.get(), H5T_NATIVE_FLOAT, memSpace.get(), fileSpace.get(),
                       H5P_DEFAULT, out);
    }
    if (status < 0 || !fileSpace) {
      throw FormatError(s.file, "cannot read rows" + hdf5::detailSuffix(), name, "dataset");
    }
  }
  return values;
}

}  // namespace strata::io
