#include "model/backbone/weight_loader.h"

#include <ATen/ops/index_select.h>

#include <set>

#include "common/error.h"
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
    : m_files(io::WeightFiles::open(folder)),
      m_layout(weightLayoutOf(config, m_files)),
      m_numLayers(config.numLayers),
      m_device(device),
      m_dtype(dtype),
      m_borrowMapped(borrowMapped) {
  for (const OuterSlot& slot : m_layout.outerSlots) check(slot.name, slot.shape);
  for (int64_t layer = 0; layer < m_numLayers; ++layer)
    for (const BlockSlot& slot : m_layout.blockSlots) {
      const std::string name = m_layout.blockTensorName(layer, slot);
      if (slot.required || m_files.find(name)) check(name, slot.shape);
    }
  collectUnused(config);
}

void WeightLoader::check(const std::string& name, const std::vector<int64_t>& shape) const {
  const io::TensorEntry* entry = m_files.find(name);
  if (!entry) throw FormatError(m_files.folder(), "the checkpoint has no such tensor", name);
  if (!isFloat(entry->dtype))
    throw FormatError(m_files.shardOf(name), "weights must be F32, F16, BF16 or F64", name);
  if (entry->shape != shape)
    throw FormatError(
        m_files.shardOf(name),
        "shape " + shapeText(entry->shape) + " where config.json implies " + shapeText(shape),
        name);
}

void WeightLoader::collectUnused(const io::ModelConfig& config) {
  std::set<std::string> used;
  for (const OuterSlot& slot : m_layout.outerSlots) used.insert(slot.name);
  for (int64_t layer = 0; layer < m_numLayers; ++layer)
    for (const BlockSlot& slot : m_layout.blockSlots)
      used.insert(m_layout.blockTensorName(layer, slot));
  for (const std::string& name : m_files.tensorNames()) {
    if (used.count(name)) continue;
    bool ignored = false;
    for (const std::string& ending : m_layout.ignoredSuffixes)
      ignored = ignored || endsWith(name, ending);
    if (!ignored)
      m_warnings.push_back("tensor '" + name + "' is not used by " + config.architectureName);
  }
}

at::Tensor WeightLoader::mapped(const std::string& name) const {
  return tensorView(m_files.shard(m_files.shardOf(name)), m_files.entry(name));
}

at::Tensor WeightLoader::tensor(const std::string& name) const {
  const at::Tensor view = mapped(name);
  if (m_borrowMapped && m_device.is_cpu() && view.scalar_type() == m_dtype) return view;
  // copy = true: never hand out the read-only mapping by accident (a source already in m_dtype).
  return view.to(m_device, m_dtype, /*non_blocking=*/false, /*copy=*/true);
}

at::Tensor WeightLoader::rows(const std::string& name, const at::Tensor& indices) const {
  const at::Tensor view = mapped(name);
  const at::Tensor flat = indices.reshape({-1}).to(at::kCPU, at::kLong);
  const at::Tensor picked = at::index_select(view, 0, flat).to(m_device, m_dtype);
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(view.size(1));
  return picked.view(shape);
}

BlockWeights WeightLoader::block(int64_t layer) const {
  if (layer < 0 || layer >= m_numLayers)
    throw std::out_of_range("block " + std::to_string(layer) + " of " +
                            std::to_string(m_numLayers));
  BlockWeights weights;
  // Hold each shard across the block's tensors so it is mapped once, not once per tensor.
  std::set<std::shared_ptr<const io::SafetensorsFile>> held;
  for (const BlockSlot& slot : m_layout.blockSlots) {
    const std::string name = m_layout.blockTensorName(layer, slot);
    if (!slot.required && !m_files.find(name)) continue;
    held.insert(m_files.shard(m_files.shardOf(name)));
    weights.*slot.field = tensor(name);
  }
  return weights;
}

OuterWeights WeightLoader::outer() const {
  OuterWeights weights;
  for (const OuterSlot& slot : m_layout.outerSlots) weights.*slot.field = tensor(slot.name);
  if (m_layout.tiedHead) weights.head = weights.tokens;
  return weights;
}

}  // namespace strata::model
