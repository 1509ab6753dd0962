#pragma once
// What a job's forward passes compute in: `--compute-dtype auto|fp32|bf16`, the GUI's
// Preferences, a capture's config. `auto`, the default, is bf16 where bf16 is native (CUDA, and
// CPUs with AVX512-BF16, AMX or Armv8.6 BF16: ~4x float32's matmul rate on such a CPU) and
// float32 elsewhere, where bf16 would only be emulated. docs/geometry.md ("Compute precision")
// has what bf16 changes in the geometry. Torch-free: configs carry it.

#include <string>
#include <string_view>

#include "common/cpu_features.h"

namespace strata::engine {

enum class ComputeDType { Auto, Float32, BFloat16 };

/** "auto", "fp32", "bf16": the words of --compute-dtype. */
const char* computeDTypeOption(ComputeDType dtype);
/** "float32" / "bfloat16", as a store's /meta@compute_dtype names what ran ("auto" for Auto). */
const char* computeDTypeName(ComputeDType dtype);
/** The option's word (or the /meta name) → the dtype; ConfigError naming `origin` otherwise. */
ComputeDType parseComputeDType(std::string_view text, const std::string& origin);

/** What `auto` (or an explicit choice) became, and why, in words for logs and `about`. */
struct ComputeChoice {
  ComputeDType dtype = ComputeDType::Float32;  ///< never Auto
  std::string reason;  ///< "this CPU multiplies bf16 natively (avx512_bf16)"
};

/** The choice for a job on CUDA (`cuda`) or on a CPU with `cpu`'s bf16 support. */
ComputeChoice chooseComputeDType(ComputeDType requested, bool cuda, const CpuBf16Support& cpu);
/** The same for this machine's CPU; `device` is a resolved device ("cpu" or "cuda"). */
ComputeChoice chooseComputeDType(ComputeDType requested, const std::string& device);

}  // namespace strata::engine
