#pragma once
// Autoregressive text generation with a Backbone: greedy decoding, or temperature sampling
// with nucleus (top-p) filtering from a seeded, portable random stream. No LibTorch in this
// header.
//
// There is no KV cache: each step runs the whole context (prompt + tokens so far) again and
// reads the logits of its last position. That is quadratic in the length, which is fine for
// the small models and contexts this is used with (stories260K: ~5 ms a step on one core).

#include <cstdint>
#include <functional>
#include <random>
#include <span>
#include <vector>

namespace strata::model {

class Backbone;

struct GenerationConfig {
  /** Tokens to generate at most (0 = none). */
  int maxNewTokens = 64;
  /** 0: greedy (argmax, the lowest id on ties). > 0: sample from softmax(logits / T). */
  double temperature = 0;
  /** Nucleus sampling: keep the most probable tokens until their probability reaches topP
   *  (always at least one); 1 keeps all. In (0, 1]. Ignored when greedy. */
  double topP = 1;
  /** Seed of the sampler's std::mt19937_64; same seed, model and prompt → same tokens, on
   *  every platform (uniform numbers are formed from 53 random bits here, not by the standard
   *  library's distributions, whose results differ between implementations). */
  uint64_t seed = 0;
  /** Stop after emitting one of the model's eos_token_id (which is then the last token
   *  returned, as in Hugging Face's generate). */
  bool stopAtEos = true;
};

/**
 * Continues `prompt` (token ids, usually starting with BOS) and returns the new tokens only.
 * `onToken` is called with each token as soon as it is chosen, on the calling thread.
 *
 * Context limit: generation stops (without error) once prompt + generated tokens reach the
 * model's max_position_embeddings; there is no sliding window, because a model trained with
 * seq_len positions has never seen later ones. A prompt that alone is longer than that, an
 * empty prompt, a negative temperature or maxNewTokens, or topP outside (0, 1] is a
 * strata::Error. Runs in inference mode on the backbone's device.
 */
std::vector<int32_t> generate(const Backbone& model, std::span<const int32_t> prompt,
                              const GenerationConfig& config,
                              std::function<void(int32_t)> onToken = {});

/**
 * The token the sampler picks from one row of logits: argmax when `temperature` is 0,
 * otherwise a draw from softmax(logits / temperature) restricted to the top-p nucleus
 * (probabilities sorted in decreasing order, ties by increasing id; the draw consumes exactly
 * one value of `rng`). Computed in double precision in plain C++, so the choice does not
 * depend on the BLAS or the device. Exposed for tests and other decoders.
 */
int32_t chooseToken(std::span<const float> logits, double temperature, double topP,
                    std::mt19937_64& rng);

/** A uniform double in [0, 1) from the top 53 bits of one draw of `rng`. */
double uniformUnit(std::mt19937_64& rng);

}  // namespace strata::model
