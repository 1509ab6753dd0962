#include "engine/compute_dtype.h"

#include <cstdio>

#include "common/error.h"
#include "engine/cpu_bf16_speed.h"

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

ComputeChoice chooseComputeDType(ComputeDType requested, bool cuda, const CpuBf16Support& cpu,
                                 double bf16Speedup) {
  switch (requested) {
    case ComputeDType::Float32:
      return {ComputeDType::Float32, "--compute-dtype fp32"};
    case ComputeDType::BFloat16:
      return {ComputeDType::BFloat16, "--compute-dtype bf16"};
    case ComputeDType::Auto:
      break;
  }
  if (cuda) return {ComputeDType::BFloat16, "CUDA multiplies bf16 natively"};
  if (cpu.any()) {
    char measured[160];
    std::snprintf(measured, sizeof measured,
                  "this CPU has native bf16 (%s) and a bf16 matmul ran at %.2fx float32's speed",
                  cpu.names().c_str(), bf16Speedup);
    if (bf16Speedup >= kLeastBf16Speedup) return {ComputeDType::BFloat16, measured};
    return {ComputeDType::Float32, std::string(measured) + " here, so float32 is faster"};
  }
  return {ComputeDType::Float32,
          "this CPU has no native bf16 (AVX512-BF16, AMX or Arm BF16), where float32 is faster"};
}

ComputeChoice chooseComputeDType(ComputeDType requested, const std::string& device) {
  const bool cuda = device == "cuda";
  const CpuBf16Support& cpu = cpuBf16Support();
  const bool measure = requested == ComputeDType::Auto && !cuda && cpu.any();
  return chooseComputeDType(requested, cuda, cpu, measure ? cpuBf16MatmulSpeedup() : 1.0);
}

}  // namespace strata::engine
