#include "io/gguf/gguf_types.h"

#include <algorithm>
#include <array>

namespace strata::io {

namespace {

constexpr int64_t kQkK = 256;  // QK_K: elements of a K-quant super-block

// Names as gguf-py 0.19.0 spells them (GGMLQuantizationType), sizes from its GGML_QUANT_SIZES,
// written the way it writes them so the two can be compared line by line.
constexpr std::array kTraits = {
    GgmlTypeTraits{GgmlType::F32, "F32", 1, 4, true},
    GgmlTypeTraits{GgmlType::F16, "F16", 1, 2, true},
    GgmlTypeTraits{GgmlType::Q4_0, "Q4_0", 32, 2 + 16, true},
    GgmlTypeTraits{GgmlType::Q4_1, "Q4_1", 32, 2 + 2 + 16, true},
    GgmlTypeTraits{GgmlType::Q5_0, "Q5_0", 32, 2 + 4 + 16, true},
    GgmlTypeTraits{GgmlType::Q5_1, "Q5_1", 32, 2 + 2 + 4 + 16, true},
    GgmlTypeTraits{GgmlType::Q8_0, "Q8_0", 32, 2 + 32, true},
    GgmlTypeTraits{GgmlType::Q8_1, "Q8_1", 32, 4 + 4 + 32, false},
    GgmlTypeTraits{GgmlType::Q2_K, "Q2_K", kQkK, 2 + 2 + kQkK / 16 + kQkK / 4, true},
    GgmlTypeTraits{GgmlType::Q3_K, "Q3_K", kQkK, 2 + kQkK / 4 + kQkK / 8 + 12, true},
    GgmlTypeTraits{GgmlType::Q4_K, "Q4_K", kQkK, 2 + 2 + kQkK / 2 + 12, true},
    GgmlTypeTraits{GgmlType::Q5_K, "Q5_K", kQkK, 2 + 2 + kQkK / 2 + kQkK / 8 + 12, true},
    GgmlTypeTraits{GgmlType::Q6_K, "Q6_K", kQkK, 2 + kQkK / 2 + kQkK / 4 + kQkK / 16, true},
    GgmlTypeTraits{GgmlType::Q8_K, "Q8_K", kQkK, 4 + kQkK + kQkK / 8, false},
    GgmlTypeTraits{GgmlType::IQ2_XXS, "IQ2_XXS", kQkK, 2 + kQkK / 4, false},
    GgmlTypeTraits{GgmlType::IQ2_XS, "IQ2_XS", kQkK, 2 + kQkK / 4 + kQkK / 32, false},
    GgmlTypeTraits{GgmlType::IQ3_XXS, "IQ3_XXS", kQkK, 2 + kQkK / 4 + kQkK / 8, false},
    GgmlTypeTraits{GgmlType::IQ1_S, "IQ1_S", kQkK, 2 + kQkK / 8 + kQkK / 16, false},
    GgmlTypeTraits{GgmlType::IQ4_NL, "IQ4_NL", 32, 2 + 16, false},
    GgmlTypeTraits{GgmlType::IQ3_S, "IQ3_S", kQkK, 2 + kQkK / 4 + kQkK / 8 + kQkK / 32 + 4, false},
    GgmlTypeTraits{GgmlType::IQ2_S, "IQ2_S", kQkK, 2 + kQkK / 4 + kQkK / 16, false},
    GgmlTypeTraits{GgmlType::IQ4_XS, "IQ4_XS", kQkK, 2 + 2 + kQkK / 2 + kQkK / 64, false},
    GgmlTypeTraits{GgmlType::I8, "I8", 1, 1, false},
    GgmlTypeTraits{GgmlType::I16, "I16", 1, 2, false},
    GgmlTypeTraits{GgmlType::I32, "I32", 1, 4, false},
    GgmlTypeTraits{GgmlType::I64, "I64", 1, 8, false},
    GgmlTypeTraits{GgmlType::F64, "F64", 1, 8, false},
    GgmlTypeTraits{GgmlType::IQ1_M, "IQ1_M", kQkK, kQkK / 8 + kQkK / 16 + kQkK / 32, false},
    GgmlTypeTraits{GgmlType::BF16, "BF16", 1, 2, true},
    GgmlTypeTraits{GgmlType::TQ1_0, "TQ1_0", kQkK, 2 + 4 * 13, false},
    GgmlTypeTraits{GgmlType::TQ2_0, "TQ2_0", kQkK, 2 + 64, false},
    GgmlTypeTraits{GgmlType::MXFP4, "MXFP4", 32, 1 + 16, false},
    GgmlTypeTraits{GgmlType::NVFP4, "NVFP4", 64, 4 + 32, false},
    GgmlTypeTraits{GgmlType::Q1_0, "Q1_0", 128, 2 + 16, false},
};

}  // namespace

std::optional<GgmlTypeTraits> ggmlTypeTraits(uint32_t id) {
  const auto found = std::ranges::find_if(kTraits, [id](const GgmlTypeTraits& traits) {
    return static_cast<uint32_t>(traits.type) == id;
  });
  if (found == kTraits.end()) return std::nullopt;
  return *found;
}

std::string ggmlTypeName(uint32_t id) {
  if (const auto traits = ggmlTypeTraits(id)) return traits->name;
  return "unknown type " + std::to_string(id);
}

std::string dequantizableGgmlTypes() {
  // Derived from the table, so the message can never disagree with what dequantizeGgml accepts.
  static const std::string list = [] {
    std::string joined;
    for (const GgmlTypeTraits& traits : kTraits) {
      if (!traits.dequantizable) continue;
      if (!joined.empty()) joined += ", ";
      joined += traits.name;
    }
    return joined;
  }();
  return list;
}

}  // namespace strata::io
