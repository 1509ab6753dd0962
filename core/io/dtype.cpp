#include "io/dtype.h"

#include <array>
#include <utility>

namespace strata::io {

namespace {

struct DTypeInfo {
  DType dtype;
  std::string_view name;
  std::size_t size;
};

constexpr std::array<DTypeInfo, 10> kDTypes{{
    {DType::F64, "F64", 8},
    {DType::F32, "F32", 4},
    {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2},
    {DType::I64, "I64", 8},
    {DType::I32, "I32", 4},
    {DType::I16, "I16", 2},
    {DType::I8, "I8", 1},
    {DType::U8, "U8", 1},
    {DType::Bool, "BOOL", 1},
}};

const DTypeInfo& infoOf(DType dtype) { return kDTypes[static_cast<std::size_t>(dtype)]; }

}  // namespace

std::string_view dtypeName(DType dtype) { return infoOf(dtype).name; }
std::size_t dtypeSize(DType dtype) { return infoOf(dtype).size; }

std::optional<DType> parseDType(std::string_view name) {
  for (const auto& info : kDTypes)
    if (info.name == name) return info.dtype;
  return std::nullopt;
}

}  // namespace strata::io
