#pragma once
// How much faster this CPU multiplies matrices in bf16 than in float32, measured once per
// process with LibTorch's own kernels (~0.1 s). Native bf16 instructions are necessary but not
// enough: on AMD Zen 4 a bf16 linear layer ran ~4x float32's speed, on an Intel Xeon with
// AVX512-BF16 but no AMX 0.7x (docs/capture.md, "Device, precision"). `auto` asks this.

namespace strata::engine {

/**
 * float32 time / bf16 time of a linear layer of 512 rows by 1,024 → 1,024 at the job's thread
 * count, the fastest of a few interleaved runs of each. Measured once per machine (CPU model,
 * its bf16 instructions, LibTorch version and thread count) and remembered in the user's data
 * folder (cpu-bf16-speed.txt), so that a machine always decides alike; delete the file to
 * measure again. STRATA_CPU_BF16_SPEEDUP (a number) replaces it (tests, and machines where a
 * user knows better).
 */
double cpuBf16MatmulSpeedup();

}  // namespace strata::engine
