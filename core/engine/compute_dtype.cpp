#include "engine/compute_dtype.h"

#include "common/error.h"

namespace strata::engine {

const char* computeDTypeOption(ComputeDType dtype) {
  switch (dtype) {
    case ComputeDType::Auto:
      return "auto";
    case ComputeDType::Float32:
      return "fp32";
    case ComputeDType::BFloat16:
      return "bf16";
  }
  return "auto";
}

const char* computeDTypeName(ComputeDType dtype) {
  switch (dtype) {
    case ComputeDType::Auto:
      return "auto";
    case ComputeDType::Float32:
      return "float32";
    case ComputeDType::BFloat16:
      return "bfloat16";
  }
  return "auto";
}

ComputeDType parseComputeDType(std::string_view text, const std::string& origin) {
  if (text == "auto") return ComputeDType::Auto;
  if (text == "fp32" || text == "float32") return ComputeDType::Float32;
  if (text == "bf16" || text == "bfloat16") return ComputeDType::BFloat16;
  throw ConfigError({}, origin, "must be auto, fp32 or bf16, got '" + std::string(text) + "'");
}

ComputeChoice chooseComputeDType(ComputeDType requested, bool cuda, const CpuBf16Support& cpu) {
  switch (requested) {
    case ComputeDType::Float32:
      return {ComputeDType::Float32, "--compute-dtype fp32"};
    case ComputeDType::BFloat16:
      return {ComputeDType::BFloat16, "--compute-dtype bf16"};
    case ComputeDType::Auto:
      break;
  }
  if (cuda) return {ComputeDType::BFloat16, "CUDA multiplies bf16 natively"};
  if (cpu.any())
    return {ComputeDType::BFloat16, "this CPU multiplies bf16 natively (" + cpu.names() + ")"};
  return {ComputeDType::Float32,
          "this CPU has no native bf16 (AVX512-BF16, AMX or Arm BF16), where float32 is faster"};
}

ComputeChoice chooseComputeDType(ComputeDType requested, const std::string& device) {
  return chooseComputeDType(requested, device == "cuda", cpuBf16Support());
}

}  // namespace strata::engine
