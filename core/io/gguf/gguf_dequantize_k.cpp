// The K-quant kernels: 256-element super-blocks with per-sub-block scales (ggml-common.h's
// block_q2_K ... block_q6_K). Each mirrors gguf-py 0.19.0's dequantize_blocks bit for bit: the
// scale decoding (Q4_K.get_scale_min, Q3_K's 12-byte 6-bit scales, Q6_K's int8 scales, Q2_K's
// 4-bit scale/min pairs), then the sub-block factors in float32 (`d * sc`, `dmin * m`) and only
// then the elements (`factor * q - offset`; see gguf_dequantize_blocks.h for where that rounds).
// Element e of a super-block follows gguf-py's reshapes; each kernel names the mapping it uses.

#include "io/gguf/gguf_dequantize_blocks.h"

namespace strata::io::gguf_blocks {

// 84 bytes: scales[16] (low nibble scale, high nibble min), qs[64] (2 bits), f16 d, f16 dmin.
// Element e = 128 h + 32 s + j holds (qs[32 h + j] >> 2 s) & 3; its sub-block is e / 16.
void dequantizeQ2_K(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 84, out += 256) {
    const std::byte* scales = in;
    const std::byte* qs = in + 16;
    const float d = loadHalf(in + 80);
    const float dmin = loadHalf(in + 82);
    float dl[16], ml[16];
    for (int g = 0; g < 16; ++g) {
      dl[g] = d * static_cast<float>(byteAt(scales, g) & 0x0F);
      ml[g] = dmin * static_cast<float>(byteAt(scales, g) >> 4);
    }
    for (int g = 0; g < 16; ++g) {
      const int h = g / 8, shift = 2 * ((g / 2) % 4), j0 = 16 * (g % 2);
      float* y = out + 16 * g;
      for (int j = 0; j < 16; ++j)
        y[j] = dl[g] * static_cast<float>((byteAt(qs, 32 * h + j0 + j) >> shift) & 3) - ml[g];
    }
  }
}

// 110 bytes: hmask[32], qs[64] (2 low bits), scales[12] (sixteen 6-bit scales), f16 d.
// Scale k: low 4 bits from byte k (k < 8) or the high nibble of byte k - 8, high 2 bits from
// byte 8 + k % 4 at shift 2 (k / 4); minus 32. Element e = 128 h + 32 s + j: low bits
// (qs[32 h + j] >> 2 s) & 3, high bit (hmask[e % 32] >> e / 32) & 1, and q = low - 4 when that
// bit is clear (gguf-py: "the offset is zero when the bitmask is 1"). Sub-block e / 16.
void dequantizeQ3_K(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 110, out += 256) {
    const std::byte* hmask = in;
    const std::byte* qs = in + 32;
    const std::byte* scales = in + 96;
    const float d = loadHalf(in + 108);
    float dl[16];
    for (int k = 0; k < 16; ++k) {
      const int low = k < 8 ? byteAt(scales, k) & 0x0F : byteAt(scales, k - 8) >> 4;
      const int high = (byteAt(scales, 8 + k % 4) >> (2 * (k / 4))) & 3;
      dl[k] = d * static_cast<float>((low | (high << 4)) - 32);
    }
    for (int g = 0; g < 16; ++g) {
      const int h = g / 8, shift = 2 * ((g / 2) % 4), j0 = 16 * (g % 2), bit = g / 2;
      float* y = out + 16 * g;
      for (int j = 0; j < 16; ++j) {
        const int low = (byteAt(qs, 32 * h + j0 + j) >> shift) & 3;
        const int high = (byteAt(hmask, j0 + j) >> bit) & 1;
        y[j] = dl[g] * static_cast<float>(low - ((high ^ 1) << 2));
      }
    }
  }
}

namespace {

/** gguf-py's Q4_K.get_scale_min: eight 6-bit scales and mins packed in 12 bytes. */
void scaleMin(const std::byte* packed, int (&scale)[8], int (&min)[8]) {
  for (int i = 0; i < 4; ++i) {
    scale[i] = byteAt(packed, i) & 0x3F;
    min[i] = byteAt(packed, i + 4) & 0x3F;
    scale[i + 4] = (byteAt(packed, i + 8) & 0x0F) | ((byteAt(packed, i) >> 2) & 0x30);
    min[i + 4] = (byteAt(packed, i + 8) >> 4) | ((byteAt(packed, i + 4) >> 2) & 0x30);
  }
}

}  // namespace

// 144 bytes: f16 d, f16 dmin, scales[12], qs[128] (nibbles). Element e = 64 c + 32 s + j holds
// (qs[32 c + j] >> 4 s) & 15; its sub-block is e / 32 = 2 c + s.
void dequantizeQ4_K(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 144, out += 256) {
    const float d = loadHalf(in);
    const float dmin = loadHalf(in + 2);
    int scale[8], min[8];
    scaleMin(in + 4, scale, min);
    const std::byte* qs = in + 16;
    for (int g = 0; g < 8; ++g) {
      const float factor = d * static_cast<float>(scale[g]);
      const float offset = dmin * static_cast<float>(min[g]);
      const std::byte* q = qs + 32 * (g / 2);
      const int shift = 4 * (g % 2);
      float* y = out + 32 * g;
      for (int j = 0; j < 32; ++j)
        y[j] = factor * static_cast<float>((byteAt(q, j) >> shift) & 0x0F) - offset;
    }
  }
}

// 176 bytes: f16 d, f16 dmin, scales[12], qh[32], qs[128]. As Q4_K, plus a fifth bit
// (qh[j] >> e / 32) & 1 for element e = 32 g + j.
void dequantizeQ5_K(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 176, out += 256) {
    const float d = loadHalf(in);
    const float dmin = loadHalf(in + 2);
    int scale[8], min[8];
    scaleMin(in + 4, scale, min);
    const std::byte* qh = in + 16;
    const std::byte* qs = in + 48;
    for (int g = 0; g < 8; ++g) {
      const float factor = d * static_cast<float>(scale[g]);
      const float offset = dmin * static_cast<float>(min[g]);
      const std::byte* q = qs + 32 * (g / 2);
      const int shift = 4 * (g % 2);
      float* y = out + 32 * g;
      for (int j = 0; j < 32; ++j) {
        const int value = ((byteAt(q, j) >> shift) & 0x0F) | (((byteAt(qh, j) >> g) & 1) << 4);
        y[j] = factor * static_cast<float>(value) - offset;
      }
    }
  }
}

// 210 bytes: ql[128] (low 4 bits), qh[64] (high 2 bits), int8 scales[16], f16 d. Element
// e = 128 h + r: low bits (ql[64 h + r % 64] >> 4 (r / 64)) & 15, high bits
// (qh[32 h + r % 32] >> 2 (r / 32)) & 3, q = value - 32; sub-block e / 16.
void dequantizeQ6_K(const std::byte* in, int64_t count, float* out) {
  for (int64_t b = 0; b < count; ++b, in += 210, out += 256) {
    const std::byte* ql = in;
    const std::byte* qh = in + 128;
    const std::byte* scales = in + 192;
    const float d = loadHalf(in + 208);
    for (int g = 0; g < 16; ++g) {
      const float factor = d * static_cast<float>(static_cast<int8_t>(byteAt(scales, g)));
      const int h = g / 8, r0 = 16 * (g % 8);
      const int lowShift = 4 * (r0 / 64), highShift = 2 * (r0 / 32);
      const std::byte* low = ql + 64 * h + r0 % 64;
      const std::byte* high = qh + 32 * h + r0 % 32;
      float* y = out + 16 * g;
      for (int j = 0; j < 16; ++j) {
        const int value =
            ((byteAt(low, j) >> lowShift) & 0x0F) | (((byteAt(high, j) >> highShift) & 3) << 4);
        y[j] = factor * static_cast<float>(value - 32);
      }
    }
  }
}

}  // namespace strata::io::gguf_blocks
