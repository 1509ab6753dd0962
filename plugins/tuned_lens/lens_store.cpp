// LensStore: the few parts of an activation store the tuned lens needs (see lens_store.h).

#include "lens_store.h"

#include <hdf5.h>

#include <stdexcept>

namespace tuned_lens {
namespace {

/** Closes an HDF5 identifier with its own close function when it leaves scope. */
struct Handle {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Handle() {
    if (id >= 0) close(id);
  }
  explicit operator bool() const { return id >= 0; }
};

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw std::runtime_error("store " + path + ": " + what);
}

int64_t int64Attribute(hid_t file, const std::string& path, const char* name) {
  const Handle attribute{H5Aopen_by_name(file, "meta", name, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
  int64_t value = 0;
  if (!attribute || H5Aread(attribute.id, H5T_NATIVE_INT64, &value) < 0)
    fail(path, std::string("has no integer attribute /meta@") + name +
                   " (is it an activation store written by strata-cli capture?)");
  return value;
}

/** The dims of dataset `name`; fails unless it has `rank` dimensions. */
std::vector<hsize_t> dims(hid_t dataset, const std::string& path, const std::string& name,
                          int rank) {
  const Handle space{H5Dget_space(dataset), H5Sclose};
  std::vector<hsize_t> out(static_cast<size_t>(rank));
  if (!space || H5Sget_simple_extent_ndims(space.id) != rank ||
      H5Sget_simple_extent_dims(space.id, out.data(), nullptr) != rank)
    fail(path, "/" + name + " is not a " + std::to_string(rank) + "-D dataset");
  return out;
}

/** IEEE binary16, as Strata and h5py write it (core/io/store/hdf5_handle.cpp: halfType). */
hid_t halfType() {
  const hid_t type = H5Tcopy(H5T_IEEE_F32LE);
  H5Tset_fields(type, 15, 10, 5, 0, 10);
  H5Tset_size(type, 2);
  H5Tset_ebias(type, 15);
  return type;
}

}  // namespace

LensStore::LensStore(const std::string& path) : m_path(path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // errors become exceptions here, not prints
  // SWMR read opens a store whose capture still runs or was killed; a file written without
  // SWMR refuses it, and a plain read-only open is then right.
  hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY | H5F_ACC_SWMR_READ, H5P_DEFAULT);
  if (file < 0) file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) fail(path, "cannot be opened as an HDF5 file");
  m_file = file;
  try {
    m_numLayers = int64Attribute(file, path, "num_layers");
    m_hidden = int64Attribute(file, path, "hidden_size");
    if (m_numLayers < 1 || m_hidden < 1) fail(path, "needs num_layers >= 1 and hidden_size >= 1");
    const Handle doc{H5Dopen2(file, "tokens/doc", H5P_DEFAULT), H5Dclose};
    if (!doc) fail(path, "has no /tokens/doc");
    m_tokens = static_cast<int64_t>(dims(doc.id, path, "tokens/doc", 1)[0]);
    m_complete.assign(static_cast<size_t>(m_numLayers + 1), 0);
    const Handle flags{H5Dopen2(file, "layers_complete", H5P_DEFAULT), H5Dclose};
    if (!flags || dims(flags.id, path, "layers_complete", 1)[0] != m_complete.size() ||
        H5Dread(flags.id, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, m_complete.data()) < 0)
      fail(path, "has no readable /layers_complete of num_layers + 1 flags");
  } catch (...) {
    H5Fclose(file);
    throw;
  }
}

LensStore::~LensStore() {
  if (m_file >= 0) H5Fclose(m_file);
}

std::vector<int32_t> LensStore::documents() const {
  const Handle doc{H5Dopen2(m_file, "tokens/doc", H5P_DEFAULT), H5Dclose};
  std::vector<int32_t> out(static_cast<size_t>(m_tokens));
  if (!doc || H5Dread(doc.id, H5T_NATIVE_INT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    fail(m_path, "cannot read /tokens/doc");
  return out;
}

Eigen::MatrixXf LensStore::layer(int64_t layer) const {
  const std::string name = "layers/" + std::to_string(layer);
  if (layer < 0 || layer > m_numLayers)
    fail(m_path, "has no layer " + std::to_string(layer) + " (layers 0.." +
                     std::to_string(m_numLayers) + ")");
  if (!m_complete[static_cast<size_t>(layer)])
    fail(m_path, "layer " + std::to_string(layer) + " was not finished by its capture");
  const Handle dataset{H5Dopen2(m_file, name.c_str(), H5P_DEFAULT), H5Dclose};
  if (!dataset) fail(m_path, "has no /" + name);
  const auto shape = dims(dataset.id, m_path, name, 2);
  if (static_cast<int64_t>(shape[0]) != m_tokens || static_cast<int64_t>(shape[1]) != m_hidden)
    fail(m_path, "/" + name + " is not [N, d] = [" + std::to_string(m_tokens) + ", " +
                     std::to_string(m_hidden) + "]");
  const Handle fileType{H5Dget_type(dataset.id), H5Tclose};
  if (!fileType || H5Tget_class(fileType.id) != H5T_FLOAT)
    fail(m_path, "/" + name + " is not a float dataset");

  // Row-major N×d is column-major d×N: one column per token.
  Eigen::MatrixXf out(m_hidden, m_tokens);
  herr_t status = 0;
  if (H5Tget_size(fileType.id) == 2) {
    const Handle half{halfType(), H5Tclose};
    std::vector<Eigen::half> staging(static_cast<size_t>(out.size()));
    status = H5Dread(dataset.id, half.id, H5S_ALL, H5S_ALL, H5P_DEFAULT, staging.data());
    for (Eigen::Index i = 0; i < out.size(); ++i)
      out.data()[i] = static_cast<float>(staging[static_cast<size_t>(i)]);
  } else {
    status = H5Dread(dataset.id, H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  }
  if (status < 0) fail(m_path, "cannot read /" + name);
  return out;
}

}  // namespace tuned_lens
