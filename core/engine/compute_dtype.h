#pragma once
// What a job's forward passes compute in: `--compute-dtype auto|fp32|bf16`, a capture's config.
// `auto`, the default, is bf16 on CUDA, and on a CPU that has native bf16 instructions
// (AVX512-BF16, AMX or Armv8.6 BF16) *and* multiplies faster with them than in float32 —
// measured, since the instructions alone do not make it faster (engine/cpu_bf16_speed.h);
// float32 elsewhere. docs/geometry.md ("Compute precision") has what bf16 changes in the
// geometry. Torch-free: configs carry it.

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
  /** "this CPU has native bf16 (avx512_bf16) and a bf16 matmul ran at 3.80x float32's speed" */
  std::string reason;
};

/** bf16 must multiply at least this much faster than float32 for `auto` to pick it. */
inline constexpr double kLeastBf16Speedup = 1.2;

/** The choice for a job on CUDA (`cuda`) or on a CPU with `cpu`'s bf16 support, where a bf16
 *  matmul runs `bf16Speedup` times float32's speed (asked only when `cpu` has bf16). */
ComputeChoice chooseComputeDType(ComputeDType requested, bool cuda, const CpuBf16Support& cpu,
                                 double bf16Speedup);
/** The same for this machine; `device` is a resolved device ("cpu" or "cuda"). The first
 *  call on a CPU with bf16 instructions measures their speed (~0.1 s). */
ComputeChoice chooseComputeDType(ComputeDType requested, const std::string& device);

}  // namespace strata::engine
