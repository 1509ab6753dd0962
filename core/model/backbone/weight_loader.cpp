#include "model/backbone/weight_loader.h"

#include <ATen/Parallel.h>
#include <ATen/TensorOperators.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/from_blob.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/tensor.h>

#include <set>
#include <stdexcept>
#include <utility>

#include "common/error.h"
#include "io/gguf/gguf_types.h"
#include "model/backbone/device_dequantize.h"
#include "model/backbone/safetensors_torch.h"

namespace strata::model {

namespace {

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

bool endsWith(const std::string& text, const std::string& ending) {
  return text.size() >= ending.size() &&
         text.compare(text.size() - ending.size(), ending.size(), ending) == 0;
}

bool isFloat(io::DType dtype) {
  return dtype == io::DType::F32 || dtype == io::DType::F16 || dtype == io::DType::BF16 ||
         dtype == io::DType::F64;
}

}  // namespace

WeightLoader::WeightLoader(const std::filesystem::path& folder, const io::ModelConfig& config,
                           at::Device device, at::ScalarType dtype, bool borrowMapped)
    : m_numLayers(config.numLayers),
      m_device(device),
      m_dtype(dtype),
      m_borrowMapped(borrowMapped) {
  if (const auto gguf = io::ggufWeightSource(folder)) {
    m_gguf = io::GgufWeights::open(*gguf);
    m_gguf->checkData();  // a damaged data region is refused now, not half-way through a job
  } else {
    m_files.emplace(io::WeightFiles::open(folder));
  }
  m_layout = weightLayoutOf(
      config, [this](const std::string& name) { return has(name); }, source());
  for (const OuterSlot& slot : m_layout.outerSlots) check(slot.name, slot.shape);
  for (int64_t layer = 0; layer < m_numLayers; ++layer)
    for (const BlockSlot& slot : m_layout.blockSlots) {
      const std::string name = m_layout.blockTensorName(layer, slot);
      if (slot.required || has(name)) check(name, slot.shape);
    }
  collectUnused(config);
}

const std::filesystem::path& WeightLoader::source() const {
  return m_gguf ? m_gguf->path() : m_files->folder();
}

bool WeightLoader::has(const std::string& name) const {
  return m_gguf ? m_gguf->find(name) != nullptr : m_files->find(name) != nullptr;
}

std::vector<std::string> WeightLoader::tensorNames() const {
  if (!m_gguf) return m_files->tensorNames();
  std::vector<std::string> names;
  for (const io::GgufWeight& w : m_gguf->weights()) names.push_back(w.name);
  return names;
}

void WeightLoader::check(const std::string& name, const std::vector<int64_t>& shape) const {
  if (m_gguf) {
    // Types were checked with the data (GgufWeights::checkData) when the loader opened.
    const io::GgufWeight* w = m_gguf->find(name);
    if (!w) throw FormatError(source(), "the model has no such tensor", name);
    if (w->shape != shape)
      throw FormatError(
          source(),
          "shape " + shapeText(w->shape) + " where the metadata implies " + shapeText(shape),
          w->plan.ggufName);
    return;
  }
  const io::TensorEntry* entry = m_files->find(name);
  if (!entry) throw FormatError(m_files->folder(), "the checkpoint has no such tensor", name);
  if (!isFloat(entry->dtype))
    throw FormatError(m_files->shardOf(name), "weights must be F32, F16, BF16 or F64", name);
  if (entry->shape != shape)
    throw FormatError(
        m_files->shardOf(name),
        "shape " + shapeText(entry->shape) + " where config.json implies " + shapeText(shape),
        name);
}

void WeightLoader::collectUnused(const io::ModelConfig& config) {
  std::set<std::string> used;
  for (const OuterSlot& slot : m_layout.outerSlots) used.insert(slot.name);
  for (int64_t layer = 0; layer < m_numLayers; ++layer)
    for (const BlockSlot& slot : m_layout.blockSlots)
      used.insert(m_layout.blockTensorName(layer, slot));
  if (m_gguf) m_warnings = m_gguf->plan().warnings;
  for (const std::string& name : tensorNames()) {
    if (used.count(name)) continue;
    bool ignored = false;
    for (const std::string& ending : m_layout.ignoredSuffixes)
      ignored = ignored || endsWith(name, ending);
    if (!ignored)
      m_warnings.push_back("tensor '" + name + "' is not used by " + config.architectureName);
  }
}

at::Tensor WeightLoader::mapped(const std::string& name) const {
  return tensorView(m_files->shard(m_files->shardOf(name)), m_files->entry(name));
}

at::Tensor WeightLoader::dequantised(const io::GgufWeight& w, at::Tensor into) const {
  // Converted piece by piece straight into the result: the float32 working set is one piece,
  // not the tensor (an 8B model's embedding is 2 GiB in float32).
  const bool reusable = into.defined() && into.device().is_cpu() && into.scalar_type() == m_dtype &&
                        into.sizes() == at::IntArrayRef(w.shape) && into.is_contiguous() &&
                        into.storage_offset() == 0 && into.use_count() == 1 &&
                        into.storage().use_count() == 1;
  at::Tensor out =
      reusable ? std::move(into) : at::empty(w.shape, at::TensorOptions().dtype(m_dtype));
  const at::Tensor rows = out.view({w.rows, w.columns});
  const int64_t step = io::ggufRowsPerPiece(w);
  at::Tensor piece;
  if (m_dtype != at::kFloat) piece = at::empty({std::min(step, w.rows), w.columns}, at::kFloat);
  const int threads = at::get_num_threads();
  for (int64_t first = 0; first < w.rows; first += step) {
    const int64_t count = std::min(step, w.rows - first);
    at::Tensor target =
        m_dtype == at::kFloat ? rows.narrow(0, first, count) : piece.narrow(0, 0, count);
    m_gguf->readRows(w, first, count,
                     {target.data_ptr<float>(), static_cast<std::size_t>(count * w.columns)},
                     threads);
    if (m_dtype != at::kFloat) rows.narrow(0, first, count).copy_(target);
  }
  m_gguf->release(w);
  return m_device.is_cpu() ? out : out.to(m_device);
}

at::Tensor WeightLoader::dequantisedOn(const io::GgufWeight& w, at::Device device) const {
  if (!dequantizableOnDevice(w.info->typeId)) return dequantised(w).to(device);
  const std::span<const std::byte> bytes = m_gguf->file().tensorData(*w.info);
  // The mapped bytes, read only: copied by the upload (into pinned memory first for a GPU).
  const at::Tensor mapped = at::from_blob(const_cast<std::byte*>(bytes.data()),
                                          {static_cast<int64_t>(bytes.size())}, at::kByte);
  const at::Tensor uploaded = device.is_cuda()
                                  ? mapped.pin_memory().to(device, at::kByte, /*non_blocking=*/true)
                                  : mapped.to(device, at::kByte, false, /*copy=*/true);
  m_gguf->release(w);
  at::Tensor values =
      dequantizeOnDevice(w.info->typeId, uploaded, w.info->elementCount).view({w.rows, w.columns});
  if (w.plan.fix == io::GgufTensorFix::UnpermuteRotaryRows) {
    std::vector<int64_t> order(static_cast<std::size_t>(w.rows));
    for (int64_t r = 0; r < w.rows; ++r)
      order[static_cast<std::size_t>(r)] = io::ggufStoredRow(w, r);
    values = values.index_select(0, at::tensor(order, at::kLong).to(device));
  } else if (w.plan.fix == io::GgufTensorFix::SubtractOne) {
    values = values - 1.0f;  // float32, as transformers' `weights - 1`
  }
  return values.to(m_dtype).view(w.shape);
}

at::Tensor WeightLoader::tensorOn(const std::string& name, at::Device device) const {
  if (!m_gguf) throw std::logic_error("tensorOn: " + name + " is not read from a GGUF file");
  return dequantisedOn(m_gguf->weight(name), device);
}

at::Tensor WeightLoader::tensor(const std::string& name) const { return tensor(name, {}); }

at::Tensor WeightLoader::tensor(const std::string& name, at::Tensor into) const {
  // A GPU gets the quantised bytes and expands them itself; the CPU converts piece by piece.
  if (m_gguf)
    return m_device.is_cpu() ? dequantised(m_gguf->weight(name), std::move(into))
                             : dequantisedOn(m_gguf->weight(name), m_device);
  const at::Tensor view = mapped(name);
  if (m_borrowMapped && m_device.is_cpu() && view.scalar_type() == m_dtype) return view;
  // copy = true: never hand out the read-only mapping by accident (a source already in m_dtype).
  return view.to(m_device, m_dtype, /*non_blocking=*/false, /*copy=*/true);
}

at::Tensor WeightLoader::rows(const std::string& name, const at::Tensor& indices) const {
  const at::Tensor flat = indices.reshape({-1}).to(at::kCPU, at::kLong);
  std::vector<int64_t> shape = indices.sizes().vec();
  if (m_gguf) {
    // Only the rows asked for are dequantised: an embedding lookup reads a few pages.
    const io::GgufWeight& w = m_gguf->weight(name);
    at::Tensor picked = at::empty({flat.numel(), w.columns}, at::kFloat);
    const auto* ids = flat.data_ptr<int64_t>();
    for (int64_t i = 0; i < flat.numel(); ++i)
      m_gguf->readRows(
          w, ids[i], 1,
          {picked.data_ptr<float>() + i * w.columns, static_cast<std::size_t>(w.columns)});
    shape.push_back(w.columns);
    return picked.to(m_device, m_dtype).view(shape);
  }
  const at::Tensor view = mapped(name);
  const at::Tensor picked = at::index_select(view, 0, flat).to(m_device, m_dtype);
  shape.push_back(view.size(1));
  return picked.view(shape);
}

BlockWeights WeightLoader::block(int64_t layer) const { return block(layer, BlockWeights{}); }

BlockWeights WeightLoader::block(int64_t layer, BlockWeights recycled) const {
  if (layer < 0 || layer >= m_numLayers)
    throw std::out_of_range("block " + std::to_string(layer) + " of " +
                            std::to_string(m_numLayers));
  BlockWeights weights;
  // Hold each shard across the block's tensors so it is mapped once, not once per tensor.
  std::set<std::shared_ptr<const io::SafetensorsFile>> held;
  for (const BlockSlot& slot : m_layout.blockSlots) {
    const std::string name = m_layout.blockTensorName(layer, slot);
    if (!slot.required && !has(name)) continue;
    if (m_files) held.insert(m_files->shard(m_files->shardOf(name)));
    weights.*slot.field = tensor(name, std::move(recycled.*slot.field));
  }
  return weights;
}

BlockWeights WeightLoader::blockOn(int64_t layer, at::Device device) const {
  if (!m_gguf) throw std::logic_error("blockOn: the weights are not read from a GGUF file");
  if (layer < 0 || layer >= m_numLayers)
    throw std::out_of_range("block " + std::to_string(layer) + " of " +
                            std::to_string(m_numLayers));
  BlockWeights weights;
  for (const BlockSlot& slot : m_layout.blockSlots) {
    const std::string name = m_layout.blockTensorName(layer, slot);
    if (!slot.required && !has(name)) continue;
    weights.*slot.field = tensorOn(name, device);
  }
  return weights;
}

OuterWeights WeightLoader::outer() const {
  OuterWeights weights;
  for (const OuterSlot& slot : m_layout.outerSlots) weights.*slot.field = tensor(slot.name);
  if (m_layout.tiedHead) weights.head = weights.tokens;
  return weights;
}

OuterWeights WeightLoader::outerWithoutTables() const {
  OuterWeights weights;
  for (const OuterSlot& slot : m_layout.outerSlots)
    if (slot.field != &OuterWeights::tokens && slot.field != &OuterWeights::head)
      weights.*slot.field = tensor(slot.name);
  return weights;
}

}  // namespace strata::model
