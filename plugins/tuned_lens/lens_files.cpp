// The tuned lens's checkpoint and result files (see lens_files.h).

#include "lens_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tuned_lens {
namespace {

constexpr char kMagic[] = "TLENSCK1";
constexpr char kEnd[] = "TLENSEND";

/** Writes through `fill(FILE*)` into `<file>.tmp`, then fsync + rename + fsync of the folder. */
template <typename Fill>
void replaceAtomically(const std::string& file, Fill fill) {
  const std::string temporary = file + ".tmp";
  std::FILE* out = std::fopen(temporary.c_str(), "wb");
  if (!out) throw std::runtime_error("cannot write " + temporary + ": " + std::strerror(errno));
  bool ok = true;
  try {
    fill(out);
  } catch (...) {
    std::fclose(out);
    std::remove(temporary.c_str());
    throw;
  }
  ok = std::fflush(out) == 0 && ::fsync(::fileno(out)) == 0;
  ok = std::fclose(out) == 0 && ok;
  if (!ok || std::rename(temporary.c_str(), file.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(temporary.c_str());
    throw std::runtime_error("cannot write " + file + ": " + why);
  }
  const std::string folder = std::filesystem::path(file).parent_path().string();
  const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void put(std::FILE* out, const void* data, size_t bytes) {
  if (bytes && std::fwrite(data, 1, bytes, out) != bytes)
    throw std::runtime_error(std::string("write failed: ") + std::strerror(errno));
}
template <typename T>
void putValue(std::FILE* out, T value) {
  put(out, &value, sizeof value);
}
void putText(std::FILE* out, const std::string& text) {
  putValue<uint64_t>(out, text.size());
  put(out, text.data(), text.size());
}
template <typename M>
void putFloats(std::FILE* out, const M& m) {
  put(out, m.data(), sizeof(float) * static_cast<size_t>(m.size()));
}

class Reader {
 public:
  explicit Reader(const std::string& file) : m_file(file), m_in(file, std::ios::binary) {
    if (!m_in) throw std::runtime_error("cannot read " + file);
  }
  void get(void* data, size_t bytes) {
    if (bytes && !m_in.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes)))
      throw std::runtime_error(m_file + " is truncated or damaged");
  }
  template <typename T>
  T value() {
    T v{};
    get(&v, sizeof v);
    return v;
  }
  std::string text(uint64_t limit) {
    const auto n = value<uint64_t>();
    if (n > limit)
      throw std::runtime_error(m_file + " is damaged (a length of " + std::to_string(n) + ")");
    std::string s(n, '\0');
    get(s.data(), n);
    return s;
  }
  template <typename M>
  void floats(M& m) {
    get(m.data(), sizeof(float) * static_cast<size_t>(m.size()));
  }

 private:
  std::string m_file;
  std::ifstream m_in;
};

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace

void saveCheckpoint(const std::string& file, const LensData& data, const LensState& state) {
  replaceAtomically(file, [&](std::FILE* out) {
    put(out, kMagic, 8);
    putText(out, data.fingerprint);
    putValue<int64_t>(out, state.step);
    std::ostringstream engine;
    engine << state.sampler.engine;
    putText(out, engine.str());
    putValue<uint64_t>(out, state.sampler.position);
    putValue<uint64_t>(out, state.sampler.order.size());
    put(out, state.sampler.order.data(), sizeof(int64_t) * state.sampler.order.size());
    for (size_t k = 0; k < data.layers.size(); ++k) {
      putFloats(out, state.weight[k]);
      putFloats(out, state.weightM[k]);
      putFloats(out, state.weightV[k]);
      putFloats(out, state.bias[k]);
      putFloats(out, state.biasM[k]);
      putFloats(out, state.biasV[k]);
    }
    put(out, kEnd, 8);
  });
}

void loadCheckpoint(const std::string& file, const LensData& data, LensState& state) {
  Reader in(file);
  char magic[8];
  in.get(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0)
    throw std::runtime_error(file + " is not a tuned-lens checkpoint");
  const std::string fingerprint = in.text(1 << 20);
  if (fingerprint != data.fingerprint)
    throw std::runtime_error(file + " was written for other data or settings (" + fingerprint +
                             "; now " + data.fingerprint + "): train into a new run folder");
  LensState loaded = state;
  loaded.step = in.value<int64_t>();
  std::istringstream engine(in.text(1 << 16));
  engine >> loaded.sampler.engine;
  if (!engine) throw std::runtime_error(file + " holds a damaged random-number state");
  loaded.sampler.position = in.value<uint64_t>();
  const auto orderSize = in.value<uint64_t>();
  if (orderSize != data.train.size() || loaded.sampler.position > orderSize)
    throw std::runtime_error(file + " is damaged (its sampler does not fit the training split)");
  in.get(loaded.sampler.order.data(), sizeof(int64_t) * orderSize);
  for (size_t k = 0; k < data.layers.size(); ++k) {
    in.floats(loaded.weight[k]);
    in.floats(loaded.weightM[k]);
    in.floats(loaded.weightV[k]);
    in.floats(loaded.bias[k]);
    in.floats(loaded.biasM[k]);
    in.floats(loaded.biasV[k]);
  }
  in.get(magic, 8);
  if (std::memcmp(magic, kEnd, 8) != 0) throw std::runtime_error(file + " is truncated or damaged");
  state = std::move(loaded);
}

void writeTranslators(const std::string& file, const LensData& data, const LensState& state,
                      const LensSettings& settings, const HeldOutScores& scores) {
  const int64_t d = data.hidden;
  std::string layers, r2;
  for (size_t k = 0; k < data.layers.size(); ++k) {
    // Appended piece by piece: operator+ here trips a false GCC 12 -Wrestrict warning.
    if (k) layers += ',';
    layers += std::to_string(data.layers[k]);
    char value[48];
    std::snprintf(value, sizeof value, "%s%lld=%.9g", k ? "," : "",
                  static_cast<long long>(data.layers[k]), scores.r2[k]);
    r2 += value;
  }
  // Header: tensors in the order of their bytes, then the metadata.
  std::string header = "{";
  uint64_t offset = 0;
  auto entry = [&](const std::string& name, const char* dtype, const std::string& shape,
                   uint64_t bytes) {
    header += jsonString(name) + ":{\"dtype\":\"" + dtype + "\",\"shape\":[" + shape +
              "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + bytes) + "]},";
    offset += bytes;
  };
  const uint64_t matrixBytes = sizeof(float) * static_cast<uint64_t>(d * d);
  for (size_t k = 0; k < data.layers.size(); ++k) {
    const std::string prefix = "layers." + std::to_string(data.layers[k]);
    entry(prefix + ".weight", "F32", std::to_string(d) + "," + std::to_string(d), matrixBytes);
    entry(prefix + ".bias", "F32", std::to_string(d), sizeof(float) * static_cast<uint64_t>(d));
  }
  entry("held_out", "I64", std::to_string(data.heldOut.size()),
        sizeof(int64_t) * data.heldOut.size());
  header += "\"__metadata__\":{\"format\":\"strata-tuned-lens-1\",\"store\":" +
            jsonString(settings.store) + ",\"target_layer\":\"" + std::to_string(data.numLayers) +
            "\",\"layers\":\"" + layers + "\",\"steps\":\"" + std::to_string(state.step) +
            "\",\"held_out_r2\":\"" + r2 + "\"}}";
  header.append((8 - header.size() % 8) % 8, ' ');  // the data starts 8-byte aligned

  replaceAtomically(file, [&](std::FILE* out) {
    putValue<uint64_t>(out, header.size());
    put(out, header.data(), header.size());
    for (size_t k = 0; k < data.layers.size(); ++k) {
      Eigen::MatrixXd a;
      Eigen::VectorXd b;
      storeUnits(data, state, k, a, b);
      const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rowMajor =
          a.cast<float>();
      putFloats(out, rowMajor);
      const Eigen::VectorXf bias = b.cast<float>();
      putFloats(out, bias);
    }
    put(out, data.heldOut.data(), sizeof(int64_t) * data.heldOut.size());
  });
}

}  // namespace tuned_lens
