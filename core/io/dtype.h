#pragma once
// Element types of the tensors Strata reads and writes, named as safetensors names them.

#include <cstddef>
#include <optional>
#include <string_view>

namespace strata::io {

enum class DType { F64, F32, F16, BF16, I64, I32, I16, I8, U8, Bool };

/** "F32", "BF16", "BOOL", ... exactly as in a safetensors header. */
std::string_view dtypeName(DType dtype);
/** Bytes per element. */
std::size_t dtypeSize(DType dtype);
/** The dtype a safetensors header names, or nullopt for names Strata does not support. */
std::optional<DType> parseDType(std::string_view name);

}  // namespace strata::io
