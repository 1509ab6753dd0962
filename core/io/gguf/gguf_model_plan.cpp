#include "io/gguf/gguf_model_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <set>

#include "common/error.h"
#include "io/arch/architecture_spec.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_model_plan_parts.h"

namespace strata::io {

using Json = GgufJson;

int64_t ggufPositive(const GgufFile& gguf, const std::string& key) {
  const int64_t value = gguf.integer(key);
  if (value <= 0 || value > (int64_t{1} << 31))
    throw FormatError(gguf.path(), "must be a positive count, not " + std::to_string(value), key,
                      "key");
  return value;
}

GgufHyper readGgufHyper(const GgufFile& gguf, const std::string& arch) {
  const std::string p = arch + ".";
  GgufHyper h;
  h.arch = arch;
  h.layers = ggufPositive(gguf, p + "block_count");
  h.width = ggufPositive(gguf, p + "embedding_length");
  h.ffn = ggufPositive(gguf, p + "feed_forward_length");
  h.heads = ggufPositive(gguf, p + "attention.head_count");
  h.kvHeads = gguf.has(p + "attention.head_count_kv")
                  ? ggufPositive(gguf, p + "attention.head_count_kv")
                  : h.heads;
  h.context = ggufPositive(gguf, p + "context_length");
  h.eps = gguf.number(p + "attention.layer_norm_rms_epsilon");
  if (!(h.eps > 0))
    throw FormatError(gguf.path(), "must be positive", p + "attention.layer_norm_rms_epsilon",
                      "key");
  if (gguf.has(p + "rope.freq_base")) h.ropeTheta = gguf.number(p + "rope.freq_base");
  // transformers: vocab_size from the key, else the tokenizer's token count.
  if (gguf.has(p + "vocab_size"))
    h.vocab = ggufPositive(gguf, p + "vocab_size");
  else if (gguf.has("tokenizer.ggml.tokens"))
    h.vocab = static_cast<int64_t>(gguf.stringArray("tokenizer.ggml.tokens").size());
  else
    throw FormatError(gguf.path(), "is missing (and there is no tokenizer.ggml.tokens to count)",
                      p + "vocab_size", "key");
  if (h.heads % h.kvHeads != 0)
    throw FormatError(gguf.path(),
                      std::to_string(h.heads) + " query heads are not a multiple of " +
                          std::to_string(h.kvHeads) + " key/value heads",
                      p + "attention.head_count_kv", "key");
  // Tied unless the file has its own output matrix (transformers' rule).
  h.tied = gguf.findTensor("output.weight") == nullptr;
  return h;
}

void putGgufTokenIds(const GgufFile& gguf, Json& config) {
  for (const auto& [key, field] : {std::pair{"tokenizer.ggml.bos_token_id", "bos_token_id"},
                                   std::pair{"tokenizer.ggml.eos_token_id", "eos_token_id"},
                                   std::pair{"tokenizer.ggml.padding_token_id", "pad_token_id"}})
    if (gguf.has(key)) config[field] = gguf.integer(key);
}

Json ggufCommonConfig(const GgufFile& gguf, const GgufHyper& h, const std::string& className,
                      const std::string& modelType) {
  Json c;
  c["architectures"] = {className};
  c["model_type"] = modelType;
  c["vocab_size"] = h.vocab;
  c["hidden_size"] = h.width;
  c["intermediate_size"] = h.ffn;
  c["num_hidden_layers"] = h.layers;
  c["num_attention_heads"] = h.heads;
  c["num_key_value_heads"] = h.kvHeads;
  c["head_dim"] = h.headDim;
  c["max_position_embeddings"] = h.context;
  c["rms_norm_eps"] = h.eps;
  c["tie_word_embeddings"] = h.tied;
  putGgufTokenIds(gguf, c);
  c["torch_dtype"] = "float32";
  return c;
}

namespace {

/** The row-major shape a Hugging Face tensor must have, by its name. */
std::vector<int64_t> expectedShape(const std::string& hf, const GgufHyper& h) {
  const int64_t q = h.heads * h.headDim, kv = h.kvHeads * h.headDim;
  auto ends = [&](const std::string& s) {
    return hf.size() >= s.size() && hf.compare(hf.size() - s.size(), s.size(), s) == 0;
  };
  if (hf == "model.embed_tokens.weight" || hf == "lm_head.weight") return {h.vocab, h.width};
  if (ends("q_proj.weight")) return {q, h.width};
  if (ends("k_proj.weight") || ends("v_proj.weight")) return {kv, h.width};
  if (ends("q_proj.bias")) return {q};
  if (ends("k_proj.bias") || ends("v_proj.bias")) return {kv};
  if (ends("o_proj.weight")) return {h.width, q};
  if (ends("gate_proj.weight") || ends("up_proj.weight")) return {h.ffn, h.width};
  if (ends("down_proj.weight")) return {h.width, h.ffn};
  if (ends("q_norm.weight") || ends("k_norm.weight")) return {h.headDim};
  return {h.width};  // every other norm
}

std::string shapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i)
    text.append(i ? ", " : "").append(std::to_string(shape[i]));
  return text + "]";
}

}  // namespace

/** Plans every tensor of the model; `used` starts with the tensors already read into the config
 *  (rope_freqs.weight), and whatever else the file holds gets a warning line. */
void addGgufTensors(const GgufFile& gguf, const GgufHyper& h,
                    const std::vector<GgufBlockName>& blockNames, const GgufFixes& fixes,
                    std::set<std::string> used, GgufModelPlan& plan) {
  auto add = [&](const std::string& ggufName, const std::string& hf, bool required) {
    const GgufTensorInfo* t = gguf.findTensor(ggufName);
    if (!t) {
      if (required) throw FormatError(gguf.path(), "is missing", ggufName);
      return;
    }
    const auto expected = expectedShape(hf, h);
    if (t->shape != expected)
      throw FormatError(
          gguf.path(),
          "has shape " + shapeText(t->shape) + " but the metadata implies " + shapeText(expected),
          ggufName);
    GgufTensorPlan p{ggufName, hf, GgufTensorFix::None, 0};
    if (fixes.unpermuteQk && ggufName.ends_with("attn_q.weight"))
      p = {ggufName, hf, GgufTensorFix::UnpermuteRotaryRows, h.heads};
    else if (fixes.unpermuteQk && ggufName.ends_with("attn_k.weight"))
      p = {ggufName, hf, GgufTensorFix::UnpermuteRotaryRows, h.kvHeads};
    else if (fixes.normsPlusOne && ggufName.find("norm.weight") != std::string::npos)
      p.fix = GgufTensorFix::SubtractOne;
    plan.tensors.push_back(p);
    used.insert(ggufName);
  };
  add("token_embd.weight", "model.embed_tokens.weight", true);
  for (int64_t l = 0; l < h.layers; ++l) {
    const std::string block = "blk." + std::to_string(l) + ".";
    const std::string layer = "model.layers." + std::to_string(l) + ".";
    for (const GgufBlockName& n : blockNames) add(block + n.gguf, layer + n.hf, n.required);
  }
  add("output_norm.weight", "model.norm.weight", true);
  if (!h.tied) add("output.weight", "lm_head.weight", true);
  for (const GgufTensorInfo& t : gguf.tensors())
    if (!used.count(t.name))
      plan.warnings.push_back("tensor '" + t.name + "' is not used by the " + h.arch +
                              " model (ignored, as transformers ignores it)");
}

/** The head width, as llama.cpp reads it: `attention.key_length`, else (rules.fromRotaryCount)
 *  `rope.dimension_count`, else width / heads. Strata's attention has one width for keys and
 *  values, as llama.cpp requires of the architectures it reads. */
int64_t ggufHeadDim(const GgufFile& gguf, const GgufHyper& h, const GgufHeadDimRules& rules) {
  const std::string p = h.arch + ".";
  std::string from;  // the key the width came from, for the messages below
  int64_t headDim = 0;
  if (gguf.has(p + "attention.key_length")) {
    from = p + "attention.key_length";
    headDim = ggufPositive(gguf, from);
  } else if (rules.fromRotaryCount && gguf.has(p + "rope.dimension_count")) {
    from = p + "rope.dimension_count";
    headDim = ggufPositive(gguf, from);
  } else {
    if (h.width % h.heads != 0)
      throw FormatError(gguf.path(),
                        "the width is not a multiple of the head count (and there is no " + p +
                            "attention.key_length)",
                        p + "attention.head_count", "key");
    headDim = h.width / h.heads;
  }
  const auto mustMatch = [&](const std::string& key, const std::string& what) {
    if (gguf.has(key) && ggufPositive(gguf, key) != headDim)
      throw FormatError(gguf.path(),
                        std::to_string(ggufPositive(gguf, key)) + " " + what + ", but heads are " +
                            std::to_string(headDim) + " wide" +
                            (from.empty() ? std::string() : " (" + from + ")") + "; Strata's " +
                            h.arch + " needs them equal",
                        key, "key");
  };
  mustMatch(p + "attention.value_length", "values per head");
  if (rules.checkRotaryCount) mustMatch(p + "rope.dimension_count", "rotated dimensions per head");
  return headDim;
}

namespace {

/** Llama 3's RoPE scaling: transformers' `_compute_llama3_parameters` (and Strata's
 *  model/backbone/rope.cpp) for one inverse frequency. */
struct Llama3Rope {
  double factor = 1, lowFreqFactor = 1, highFreqFactor = 4, originalContext = 8192;

  double scaled(double inverse) const {
    const double wavelength = 2.0 * std::numbers::pi / inverse;
    if (wavelength < originalContext / highFreqFactor) return inverse;
    if (wavelength > originalContext / lowFreqFactor) return inverse / factor;
    const double smooth =
        (originalContext / wavelength - lowFreqFactor) / (highFreqFactor - lowFreqFactor);
    return (1.0 - smooth) * inverse / factor + smooth * inverse;
  }
};

/** `value` to `digits` significant digits: the parameters found below come out of float32
 *  factors as 3.9999983 where the model's config said 4. */
double roundSignificant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  // Powers of ten above one are exact doubles: divide or multiply by one, never by 10^-k.
  const int shift = digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(value))));
  if (shift >= 0) {
    const double scale = std::pow(10.0, shift);
    return std::round(value * scale) / scale;
  }
  const double unit = std::pow(10.0, -shift);
  return std::round(value / unit) * unit;
}

/**
 * The Llama 3 scaling whose frequencies are llama.cpp's `inverse[i] / factors[i]`, or nullopt
 * where the factors do not come from one.
 *
 * llama.cpp's convert_hf_to_gguf (LlamaModel.generate_extra_tensors) writes a Llama-3.1/3.2
 * config's rope_scaling as rope_freqs.weight, one factor per frequency: 1 where the wavelength
 * 2π/inverse is below L/high_freq_factor, `factor` where it is above L/low_freq_factor, and
 * 1 / ((1 − s)/factor + s) between, s = (L/wavelength − low_freq_factor) / (high − low) — and no
 * rope.scaling.* key. ggml's rope divides each frequency by its factor, which is exactly
 * transformers' llama3 formula. The factors determine `factor` (the lowest frequency's) and s
 * on the transition frequencies, s linear in L/wavelength; L itself is free (scaling L, low and
 * high together changes nothing), so it is taken from `context` and low/high solved from the
 * first and last transition frequency. With fewer than two of those, any low/high that sorts
 * every frequency into its group gives the same frequencies; one in the middle of the free
 * interval is taken. The result is checked against every factor.
 */
std::optional<Llama3Rope> llama3FromFactors(const std::vector<double>& inverse,
                                            const std::vector<float>& factors, double context) {
  const std::size_t n = factors.size();
  const auto near = [](double a, double b) { return std::abs(a - b) <= 1e-6 * std::abs(b); };
  Llama3Rope r;
  r.originalContext = context;
  r.factor = factors[n - 1];
  if (!(r.factor > 1) || near(r.factor, 1.0)) return std::nullopt;
  // x = L / wavelength, decreasing with i; s = 1 for unscaled, 0 for fully scaled frequencies.
  const auto x = [&](std::size_t i) { return context * inverse[i] / (2.0 * std::numbers::pi); };
  const auto s = [&](std::size_t i) {
    return (1.0 / factors[i] - 1.0 / r.factor) / (1.0 - 1.0 / r.factor);
  };
  std::vector<std::size_t> middle;
  double scaledAbove = 0;  // largest x of a fully scaled one
  double unscaledBelow = std::numeric_limits<double>::infinity();  // smallest x of an unscaled
  for (std::size_t i = 0; i < n; ++i) {
    if (near(factors[i], 1.0))
      unscaledBelow = std::min(unscaledBelow, x(i));
    else if (near(factors[i], r.factor))
      scaledAbove = std::max(scaledAbove, x(i));
    else
      middle.push_back(i);
  }
  double width = 0;  // high − low
  if (middle.size() >= 2) {
    const std::size_t a = middle.front(), b = middle.back();
    width = (x(a) - x(b)) / (s(a) - s(b));
    r.lowFreqFactor = x(a) - s(a) * width;
  } else if (middle.size() == 1) {
    // low = x − s·width, high = x + (1 − s)·width: widths up to both bounds keep the groups.
    const std::size_t m = middle.front();
    double bound = std::numeric_limits<double>::infinity();
    if (s(m) > 0) bound = std::min(bound, (x(m) - scaledAbove) / s(m));
    if (s(m) < 1 && std::isfinite(unscaledBelow))
      bound = std::min(bound, (unscaledBelow - x(m)) / (1 - s(m)));
    width = std::isfinite(bound) ? bound / 2 : x(m);
    r.lowFreqFactor = x(m) - s(m) * width;
  } else {
    if (!std::isfinite(unscaledBelow)) unscaledBelow = 3 * scaledAbove;  // every one scaled
    width = (unscaledBelow - scaledAbove) / 3;
    r.lowFreqFactor = scaledAbove + width;
  }
  r.highFreqFactor = r.lowFreqFactor + width;
  if (!(width > 0) || !(r.lowFreqFactor > 0)) return std::nullopt;
  const auto reproduces = [&](const Llama3Rope& candidate) {
    for (std::size_t i = 0; i < n; ++i) {
      const double want = inverse[i] / factors[i];
      if (std::abs(candidate.scaled(inverse[i]) - want) > 1e-5 * want) return false;
    }
    return true;
  };
  Llama3Rope rounded = r;
  rounded.factor = roundSignificant(r.factor, 4);
  rounded.lowFreqFactor = roundSignificant(r.lowFreqFactor, 4);
  rounded.highFreqFactor = roundSignificant(r.highFreqFactor, 4);
  if (rounded.highFreqFactor > rounded.lowFreqFactor && reproduces(rounded)) return rounded;
  if (reproduces(r)) return r;
  return std::nullopt;
}

}  // namespace

/**
 * RoPE scaling as llama.cpp applies it, as a Hugging Face rope_scaling object (empty for none):
 *
 *  - `<arch>.rope.scaling.type` (llama.cpp's default when absent: linear) with
 *    `<arch>.rope.scaling.factor` (or the older `<arch>.rope.scale_linear`): positions are
 *    divided by the factor unless the type is "none"; transformers' "linear";
 *  - `ropeFreqs` (llama): `rope_freqs.weight`, per-frequency divisors (llama3FromFactors), with the
 *    original context from `<arch>.rope.scaling.original_context_length` when the file has it,
 *    else the 8192 llama.cpp's convert assumes;
 *  - YaRN, LongRoPE and the rest: not supported (ConfigError naming the key), rather than a model
 *    that runs with other frequencies than llama.cpp's.
 *
 * transformers' GGUF loader reads none of these for llama, qwen2, qwen3 or gemma3 (only for
 * gpt-oss) and drops rope_freqs.weight: it runs such files without their scaling.
 * `ropeFreqsUsed` is set when rope_freqs.weight went into the result.
 */
Json ggufRopeScaling(const GgufFile& gguf, const GgufHyper& h, bool ropeFreqs,
                     bool& ropeFreqsUsed) {
  const std::string p = h.arch + ".rope.";
  ropeFreqsUsed = false;
  const std::string type =
      gguf.has(p + "scaling.type") ? gguf.string(p + "scaling.type") : std::string("linear");
  if (type != "none" && type != "linear")
    throw ConfigError(gguf.path(), p + "scaling.type",
                      "'" + type +
                          "' RoPE scaling is not supported (Strata applies none, linear, and "
                          "Llama 3's per-frequency factors)");
  std::string factorKey;
  for (const std::string& key : {p + "scaling.factor", p + "scale_linear"})
    if (factorKey.empty() && gguf.has(key)) factorKey = key;
  double linear = factorKey.empty() ? 0.0 : gguf.number(factorKey);
  if (!std::isfinite(linear) || linear < 0)
    throw FormatError(gguf.path(), "must be a positive factor", factorKey, "key");
  if (type == "none" || linear == 0) linear = 1;  // llama.cpp: 0 means unset

  Json scaling = Json::object();
  if (linear != 1) scaling = {{"rope_type", "linear"}, {"factor", linear}};
  const GgufTensorInfo* freqs = ropeFreqs ? gguf.findTensor("rope_freqs.weight") : nullptr;
  if (!freqs) return scaling;
  const std::string name = freqs->name;
  const int64_t rotary = h.headDim;
  if (freqs->shape != std::vector<int64_t>{rotary / 2})
    throw FormatError(gguf.path(),
                      "has shape " + shapeText(freqs->shape) + " but the metadata implies [" +
                          std::to_string(rotary / 2) + "] (one factor per rotary frequency)",
                      name);
  std::vector<float> factors(static_cast<std::size_t>(rotary / 2));
  dequantizeGgml(freqs->typeId, gguf.tensorData(*freqs), factors, gguf.path(), name);
  ropeFreqsUsed = true;
  if (std::all_of(factors.begin(), factors.end(), [](float f) { return f == 1.0f; }))
    return scaling;  // llama.cpp divides by one: the default frequencies
  if (linear != 1)
    throw ConfigError(gguf.path(), factorKey,
                      "a linear factor together with per-frequency factors (" + name +
                          ") has no Hugging Face rope_scaling");
  const std::string contextKey = p + "scaling.original_context_length";
  const double context =
      gguf.has(contextKey) ? static_cast<double>(ggufPositive(gguf, contextKey)) : 8192.0;
  std::vector<double> inverse(factors.size());
  for (std::size_t i = 0; i < inverse.size(); ++i)
    inverse[i] = std::pow(h.ropeTheta, -2.0 * static_cast<double>(i) / static_cast<double>(rotary));
  const auto llama3 = llama3FromFactors(inverse, factors, context);
  if (!llama3)
    throw FormatError(gguf.path(),
                      "holds per-frequency RoPE factors that Llama 3's rope scaling does not "
                      "produce (Strata reads them only as such)",
                      name);
  return {{"rope_type", "llama3"},
          {"factor", llama3->factor},
          {"low_freq_factor", llama3->lowFreqFactor},
          {"high_freq_factor", llama3->highFreqFactor},
          {"original_max_position_embeddings", static_cast<int64_t>(llama3->originalContext)}};
}

GgufModelPlan planGgufModel(const GgufFile& gguf) {
  const std::string arch = gguf.string("general.architecture");
  const ArchitectureSpec* spec = architectureOfGgufName(arch);
  if (!spec)
    throw ConfigError(gguf.path(), "general.architecture",
                      "'" + arch + "' is not supported (Strata reads GGUF models of " +
                          supportedGgufArchitectures() + ")");
  GgufModelPlan plan = spec->planGguf(gguf);
  Json generation;
  putGgufTokenIds(gguf, generation);
  plan.generationConfigJson = generation.dump(2) + "\n";
  return plan;
}

}  // namespace strata::io
