#include "model/backbone/safetensors_torch.h"

#include <ATen/ATen.h>

#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "io/atomic_file.h"
#include "io/hf/safetensors_writer.h"

namespace strata::model {

namespace {

constexpr std::pair<io::DType, at::ScalarType> kScalarTypes[] = {
    {io::DType::F64, at::kDouble},    {io::DType::F32, at::kFloat}, {io::DType::F16, at::kHalf},
    {io::DType::BF16, at::kBFloat16}, {io::DType::I64, at::kLong},  {io::DType::I32, at::kInt},
    {io::DType::I16, at::kShort},     {io::DType::I8, at::kChar},   {io::DType::U8, at::kByte},
    {io::DType::Bool, at::kBool},
};

std::string shardName(std::size_t index, std::size_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index + 1, count);
  return name;
}

}  // namespace

at::ScalarType scalarTypeOf(io::DType dtype) {
  for (const auto& [ours, theirs] : kScalarTypes)
    if (ours == dtype) return theirs;
  throw std::logic_error("scalarTypeOf: DType without a LibTorch scalar type");
}

std::optional<io::DType> dtypeOf(at::ScalarType type) {
  for (const auto& [ours, theirs] : kScalarTypes)
    if (theirs == type) return ours;
  return std::nullopt;
}

at::Tensor tensorView(const std::shared_ptr<const io::SafetensorsFile>& file,
                      const io::TensorEntry& entry) {
  const auto bytes = file->bytes(entry);
  const auto options = at::TensorOptions().dtype(scalarTypeOf(entry.dtype)).device(at::kCPU);
  const auto address = reinterpret_cast<std::uintptr_t>(bytes.data());
  if (bytes.empty() || address % io::dtypeSize(entry.dtype) != 0) {
    at::Tensor copy = at::empty(entry.shape, options);
    if (!bytes.empty()) std::memcpy(copy.data_ptr(), bytes.data(), bytes.size());
    return copy;
  }
  // from_blob wants a mutable pointer; the tensor is documented read-only (PROT_READ pages).
  void* data = const_cast<std::byte*>(bytes.data());
  return at::from_blob(
      data, entry.shape, [keepAlive = file](void*) {}, options);
}

void writeSafetensors(const std::filesystem::path& target, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  io::SafetensorsWriter writer;
  for (const auto& [key, value] : metadata) writer.setMetadata(key, value);
  std::vector<at::Tensor> contiguous;  // keeps the bytes the writer references alive
  contiguous.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) {
    if (!tensor.defined()) throw FormatError(target, "tensor is undefined", name);
    const auto dtype = dtypeOf(tensor.scalar_type());
    if (!dtype)
      throw FormatError(target,
                        std::string("scalar type ") + at::toString(tensor.scalar_type()) +
                            " cannot be stored (supported: F64, F32, F16, BF16, I64, "
                            "I32, I16, I8, U8, BOOL)",
                        name);
    contiguous.push_back(tensor.detach().to(at::kCPU).contiguous());
    const at::Tensor& cpu = contiguous.back();
    const auto* data = static_cast<const std::byte*>(cpu.data_ptr());
    writer.add(name, *dtype, cpu.sizes().vec(), {data, cpu.nbytes()});
  }
  writer.write(target);
}

std::vector<std::filesystem::path> writeShardedSafetensors(
    const std::filesystem::path& folder, const NamedTensors& tensors, uint64_t maxShardBytes,
    const std::map<std::string, std::string>& metadata) {
  // Group consecutive tensors; a shard is closed when the next tensor would overflow it.
  std::vector<NamedTensors> groups;
  std::set<std::string> names;  // a name repeated in two shards would make a bad index
  uint64_t groupBytes = 0;
  uint64_t totalBytes = 0;
  for (const auto& named : tensors) {
    if (!names.insert(named.first).second)
      throw FormatError(folder, "tensor given twice to the sharded writer", named.first);
    const uint64_t size = named.second.defined() ? named.second.nbytes() : 0;
    if (groups.empty() || (!groups.back().empty() && groupBytes + size > maxShardBytes)) {
      groups.emplace_back();
      groupBytes = 0;
    }
    groups.back().push_back(named);
    groupBytes += size;
    totalBytes += size;
  }

  nlohmann::json weightMap = nlohmann::json::object();
  std::vector<std::filesystem::path> shards;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const std::string name = shardName(i, groups.size());
    shards.push_back(folder / name);
    writeSafetensors(shards.back(), groups[i], metadata);
    for (const auto& named : groups[i]) weightMap[named.first] = name;
  }

  const nlohmann::json index = {{"metadata", {{"total_size", totalBytes}}},
                                {"weight_map", weightMap}};
  const std::string text = index.dump(2) + "\n";
  const auto indexPath = folder / "model.safetensors.index.json";
  io::writeFileAtomically(indexPath,
                          [&](int fd) { io::writeAll(fd, text.data(), text.size(), indexPath); });
  return shards;
}

}  // namespace strata::model
