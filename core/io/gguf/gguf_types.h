#pragma once
// The element types of GGUF tensors (ggml's `ggml_type`), with the block geometry every reader
// needs before it touches tensor data: how many elements a block holds and how many bytes it
// takes. Numbers and sizes follow ggml.h / ggml-common.h (and gguf-py's GGML_QUANT_SIZES).

#include <cstdint>
#include <optional>
#include <string>

namespace strata::io {

/** ggml_type ids as stored in a GGUF tensor info. Ids 4 and 5 (Q4_2, Q4_3) were removed; ids
 *  31-33 (the Q4_0_4_4 family of repacked layouts) and 36-38 (IQ4_NL_x) were withdrawn from the
 *  file format. The list follows gguf-py 0.19.0's GGMLQuantizationType. */
enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  IQ2_XXS = 16,
  IQ2_XS = 17,
  IQ3_XXS = 18,
  IQ1_S = 19,
  IQ4_NL = 20,
  IQ3_S = 21,
  IQ2_S = 22,
  IQ4_XS = 23,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  IQ1_M = 29,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  MXFP4 = 39,
  NVFP4 = 40,
  Q1_0 = 41,
};

struct GgmlTypeTraits {
  GgmlType type;
  const char* name;    ///< as ggml and gguf-py spell it: "Q4_K", "BF16", ...
  int64_t blockSize;   ///< elements per block (1 for plain types)
  int64_t typeSize;    ///< bytes per block
  bool dequantizable;  ///< Strata turns it into float32 (gguf_dequantize.h)
};

/** Traits of ggml type id `id`; nullopt for an id ggml does not define. */
std::optional<GgmlTypeTraits> ggmlTypeTraits(uint32_t id);

/** "Q4_K" for a known id, "unknown type 99" otherwise: for error messages. */
std::string ggmlTypeName(uint32_t id);

/** The types Strata dequantises, comma-separated, for error messages and docs. */
std::string dequantizableGgmlTypes();

}  // namespace strata::io
