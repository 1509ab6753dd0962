#include "model/backbone/device_dequantize.h"

#include <ATen/ATen.h>

#include <stdexcept>
#include <string>

#include "io/gguf/gguf_types.h"

namespace strata::model {

namespace {

using io::GgmlType;

/** Bytes [from, from + count) of every block, [n, count]. */
at::Tensor field(const at::Tensor& blocks, int64_t from, int64_t count) {
  return blocks.narrow(1, from, count);
}

/** The float16 at byte `from` of every block, widened exactly: [n, 1] float32. */
at::Tensor half(const at::Tensor& blocks, int64_t from) {
  return field(blocks, from, 2).contiguous().view(at::kHalf).to(at::kFloat);
}

at::Tensor low(const at::Tensor& bytes) { return at::bitwise_and(bytes, 0x0F); }
at::Tensor high(const at::Tensor& bytes) { return at::bitwise_right_shift(bytes, 4); }

/** 32-element blocks: elements 0-15 the low nibbles of the 16 bytes, 16-31 the high ones. */
at::Tensor nibbles(const at::Tensor& qs) { return at::cat({low(qs), high(qs)}, 1); }

/** Shift counts [from, to) by `step` as int32 on `like`'s device. */
at::Tensor shiftCounts(int64_t from, int64_t to, int64_t step, const at::Tensor& like) {
  return at::arange(from, to, step, at::TensorOptions().dtype(at::kInt).device(like.device()));
}

/** Bit j of each block's u32 `qh` for j = first … first + 15, as [n, 16] uint8 (0 or 1). */
at::Tensor fifthBits(const at::Tensor& qh32, int64_t first) {
  const at::Tensor shifts = shiftCounts(first, first + 16, 1, qh32);
  return at::bitwise_and(at::bitwise_right_shift(qh32, shifts), 1).to(at::kByte);
}

/** Q4_K / Q5_K's eight 6-bit scales and mins from 12 bytes (gguf-py's get_scale_min). */
std::pair<at::Tensor, at::Tensor> scaleMin(const at::Tensor& packed) {
  const at::Tensor p0 = field(packed, 0, 4), p1 = field(packed, 4, 4), p2 = field(packed, 8, 4);
  const at::Tensor scale =
      at::cat({at::bitwise_and(p0, 0x3F),
               at::bitwise_or(low(p2), at::bitwise_and(at::bitwise_right_shift(p0, 2), 0x30))},
              1);
  const at::Tensor min =
      at::cat({at::bitwise_and(p1, 0x3F),
               at::bitwise_or(high(p2), at::bitwise_and(at::bitwise_right_shift(p1, 2), 0x30))},
              1);
  return {scale.to(at::kFloat), min.to(at::kFloat)};
}

/** Q4_K / Q5_K: element 64 c + 32 s + j is nibble s of qs[32 c + j]; sub-block g = 2 c + s. */
at::Tensor kNibbles(const at::Tensor& qs) {
  const at::Tensor q = qs.reshape({qs.size(0), 4, 1, 32});
  return at::cat({low(q), high(q)}, 2).reshape({qs.size(0), 8, 32});
}

at::Tensor q8_0(const at::Tensor& b) {
  return field(b, 2, 32).contiguous().view(at::kChar).to(at::kFloat) * half(b, 0);
}

at::Tensor q4_0(const at::Tensor& b) {
  return half(b, 0) * (nibbles(field(b, 2, 16)).to(at::kInt) - 8).to(at::kFloat);
}

at::Tensor q4_1(const at::Tensor& b) {
  return half(b, 0) * nibbles(field(b, 4, 16)).to(at::kFloat) + half(b, 2);
}

at::Tensor q5_0(const at::Tensor& b) {
  const at::Tensor qh = field(b, 2, 4).contiguous().view(at::kInt);  // [n, 1], little-endian
  const at::Tensor qs = field(b, 6, 16);
  const at::Tensor fifth = at::cat({fifthBits(qh, 0), fifthBits(qh, 16)}, 1);
  const at::Tensor q = at::bitwise_or(nibbles(qs), at::bitwise_left_shift(fifth, 4));
  return half(b, 0) * (q.to(at::kInt) - 16).to(at::kFloat);
}

at::Tensor qK(const at::Tensor& b, bool fifthBit) {
  const int64_t n = b.size(0);
  const at::Tensor d = half(b, 0).unsqueeze(2), dmin = half(b, 2).unsqueeze(2);
  const auto [scale, min] = scaleMin(field(b, 4, 12));
  const at::Tensor factor = d * scale.unsqueeze(2), offset = dmin * min.unsqueeze(2);
  at::Tensor q = kNibbles(field(b, fifthBit ? 48 : 16, 128));
  if (fifthBit) {  // bit g of qh[j] is element 32 g + j's fifth bit
    const at::Tensor qh = field(b, 16, 32).unsqueeze(1);  // [n, 1, 32]
    const at::Tensor shifts = shiftCounts(0, 8, 1, b).view({1, 8, 1});
    q = at::bitwise_or(
        q, at::bitwise_left_shift(at::bitwise_and(at::bitwise_right_shift(qh, shifts), 1), 4));
  }
  return (factor * q.to(at::kFloat) - offset).reshape({n, 256});
}

at::Tensor q6_K(const at::Tensor& b) {
  const int64_t n = b.size(0);
  // Element 128 h + r: low bits nibble r / 64 of ql[64 h + r % 64], high bits pair r / 32 of
  // qh[32 h + r % 32]; value − 32; sub-block e / 16 with an int8 scale.
  const at::Tensor ql = field(b, 0, 128).reshape({n, 2, 1, 64});
  const at::Tensor lows = at::cat({low(ql), high(ql)}, 2).reshape({n, 2, 128});
  const at::Tensor qh = field(b, 128, 64).reshape({n, 2, 1, 32});
  const at::Tensor shifts = shiftCounts(0, 8, 2, b).view({1, 1, 4, 1});
  const at::Tensor highs =
      at::bitwise_and(at::bitwise_right_shift(qh, shifts), 3).reshape({n, 2, 128});
  const at::Tensor q = (at::bitwise_or(lows, at::bitwise_left_shift(highs, 4)).to(at::kInt) - 32)
                           .to(at::kFloat)
                           .reshape({n, 16, 16});
  const at::Tensor scales = field(b, 192, 16).contiguous().view(at::kChar).to(at::kFloat);
  const at::Tensor factor = half(b, 208) * scales;  // [n, 16]
  return (factor.unsqueeze(2) * q).reshape({n, 256});
}

}  // namespace

bool dequantizableOnDevice(uint32_t typeId) {
  switch (static_cast<GgmlType>(typeId)) {
    case GgmlType::F32:
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::Q8_0:
    case GgmlType::Q4_0:
    case GgmlType::Q4_1:
    case GgmlType::Q5_0:
    case GgmlType::Q4_K:
    case GgmlType::Q5_K:
    case GgmlType::Q6_K:
      return true;
    default:
      return false;
  }
}

at::Tensor dequantizeOnDevice(uint32_t typeId, const at::Tensor& blocks, int64_t elements) {
  const auto traits = io::ggmlTypeTraits(typeId);
  if (!traits || !dequantizableOnDevice(typeId))
    throw std::invalid_argument("no device dequantisation for " + io::ggmlTypeName(typeId));
  if (elements % traits->blockSize != 0 ||
      blocks.numel() != elements / traits->blockSize * traits->typeSize)
    throw std::invalid_argument(std::to_string(blocks.numel()) + " bytes are not " +
                                std::to_string(elements) + " elements of " + traits->name);
  const at::Tensor bytes = blocks.contiguous();
  switch (traits->type) {
    case GgmlType::F32:
      return bytes.view(at::kFloat).clone();
    case GgmlType::F16:
      return bytes.view(at::kHalf).to(at::kFloat);
    case GgmlType::BF16:
      return bytes.view(at::kBFloat16).to(at::kFloat);
    default:
      break;
  }
  const at::Tensor b = bytes.view({elements / traits->blockSize, traits->typeSize});
  at::Tensor values;
  switch (traits->type) {
    case GgmlType::Q8_0:
      values = q8_0(b);
      break;
    case GgmlType::Q4_0:
      values = q4_0(b);
      break;
    case GgmlType::Q4_1:
      values = q4_1(b);
      break;
    case GgmlType::Q5_0:
      values = q5_0(b);
      break;
    case GgmlType::Q4_K:
      values = qK(b, false);
      break;
    case GgmlType::Q5_K:
      values = qK(b, true);
      break;
    default:
      values = q6_K(b);
      break;
  }
  return values.reshape({elements});
}

}  // namespace strata::model
