// `strata-cli generate --model DIR --prompt TEXT`: continue a prompt with a model folder's
// backbone and tokenizer, streaming the text to stdout; speed on stderr.

#include <chrono>
#include <cstdio>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "device_arguments.h"
#include "diffusion_generate.h"
#include "engine/device_choice.h"
#include "engine/memory_plan.h"
#include "model/backbone/backbone.h"
#include "model/backbone/generation.h"
#include "model_argument.h"
#include "terminal_progress.h"
#include "tokenizer/tokenizer.h"

namespace strata::cli {
namespace {

/** Prints decoded text as tokens arrive. Decoding the whole sequence each time (not token by
 *  token) keeps the spaces SentencePiece-style decoders strip from a lone first piece and
 *  multi-byte characters split over byte tokens. */
class TextStream {
 public:
  TextStream(const tokenizer::Tokenizer& tokenizer, std::vector<int32_t> prompt)
      : m_tokenizer(tokenizer), m_ids(std::move(prompt)), m_printed(decodeAll()) {}

  void add(int32_t id) {
    m_ids.push_back(id);
    const std::string text = decodeAll();
    if (text.compare(0, m_printed.size(), m_printed) == 0) {
      std::cout << text.substr(m_printed.size());
      m_printed = text;
    } else {  // a decoder that rewrites earlier text: fall back to the token alone
      const std::string piece = m_tokenizer.decode(std::span<const int32_t>(&id, 1), true);
      std::cout << piece;
      m_printed += piece;
    }
    std::cout.flush();
  }

 private:
  std::string decodeAll() const { return m_tokenizer.decode(m_ids, true); }

  const tokenizer::Tokenizer& m_tokenizer;
  std::vector<int32_t> m_ids;
  std::string m_printed;
};

}  // namespace

int runGenerate(const Arguments& args) {
  CommandLine cli("generate",
                  "Continue a prompt with a model folder's language model, printing the prompt\n"
                  "and the continuation as it is generated, then the speed on stderr. Greedy by\n"
                  "default; --temperature > 0 samples (with --top-p and --seed). The prompt is\n"
                  "encoded with the tokenizer's special tokens (Llama: a leading <s>).\n"
                  "With --bridge RUN: hybrid generation with a trained DiHAL bridge (bridge +\n"
                  "upper layers + LM head) beside the original model, with Gen.PPL under a judge\n"
                  "model (--judge; default the source model itself), word and token diversity\n"
                  "and latency per token; it samples by default (temperature 1, top-p 0.95).");
  cli.option("model", "DIR",
             "Hugging Face model folder (config.json, safetensors, tokenizer) or .gguf file")
      .option("bridge", "RUN", "a bridge run folder: generate with the hybrid model")
      .option("dlm", "RUN",
              "a masked diffusion LM run (dcdm recipe) or a converted model "
              "(repr_align recipe): confidence-ordered unmasking")
      .option("block", "B",
              "with --dlm on a repr_align run: positions per block, left to right "
              "(0 = all at once; default: the run's sample_block)")
      .flag("show-chunks", "with --dlm: also print each token's chunk id and reveal step")
      .option("judge", "MODEL_DIR",
              "with --dlm: Gen.PPL of the continuation under this separate "
              "autoregressive model folder, plus word and token diversity")
      .option("prompt", "TEXT", "text to continue")
      .option("prompts", "FILE", "with --bridge: prompts, one per line")
      .option("steps", "S",
              "with --bridge: DDIM steps; with --dlm: unmasking steps per chunk or block "
              "(default: the run's sample_steps)")
      .flag("hybrid-only", "with --bridge: skip the original model")
      .option("judge", "DIR",
              "with --bridge: the model folder that judges Gen.PPL (default: the "
              "bridge's source model, reported as self-judged)")
      .option("max-new-tokens", "N", "tokens to generate at most", "64")
      .option("temperature", "T",
              "0 = greedy; > 0 samples from softmax(logits / T) (default 0; "
              "1 with --bridge)")
      .option("top-p", "P",
              "nucleus sampling: keep the most likely tokens up to mass P (default "
              "1; 0.95 with --bridge)")
      .option("seed", "S", "seed of the sampler (same seed, same text)", "0");
  addDeviceOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  model::GenerationConfig config;
  const int64_t maxNewTokens = cli.integer("max-new-tokens");
  if (maxNewTokens < 0 || maxNewTokens > 1'000'000)
    throw UsageError("--max-new-tokens must be in 0..1000000");
  config.maxNewTokens = static_cast<int>(maxNewTokens);
  // Gen.PPL is only comparable at matched sampling and diversity, and greedy decoding of the
  // original collapses into repetition: the bridge comparison samples unless told otherwise.
  const bool bridge = cli.has("bridge");
  config.temperature = cli.has("temperature") ? cli.number("temperature") : (bridge ? 1.0 : 0.0);
  if (!(config.temperature >= 0)) throw UsageError("--temperature must be >= 0");
  config.topP = cli.has("top-p") ? cli.number("top-p") : (bridge ? 0.95 : 1.0);
  if (!(config.topP > 0 && config.topP <= 1)) throw UsageError("--top-p must be in (0, 1]");
  const int64_t seed = cli.integer("seed");
  if (seed < 0) throw UsageError("--seed must be >= 0");
  config.seed = static_cast<uint64_t>(seed);
  const std::string device = deviceFrom(cli);
  if (bridge) return runBridgeGeneration(cli, config, device);
  if (cli.has("dlm")) return runDlmGeneration(cli, config, device);
  const std::string folder = modelFolderArgument(cli.value("model")).string();
  const std::string prompt = cli.value("prompt");

  const std::unique_ptr<tokenizer::Tokenizer> tokenizer = tokenizer::loadTokenizer(folder);
  const std::vector<int32_t> promptIds = tokenizer->encode(prompt, true);
  // Refused before the model is planned and loaded (minutes for a large one).
  if (promptIds.empty())
    throw UsageError(
        "--prompt gives no tokens (and this model adds no BOS): give text to continue");
  const at::Device computeDevice = engine::computeDevice(device, "--device");
  // Planned before loading (the plan printed): streams the layers when the model would not
  // fit, refuses (with what to change) when even that would not.
  bool streamLayers = false;
  runWithTerminalProgress([&](JobContext& job) {
    streamLayers = engine::frozenBackboneStreams(
        folder, computeDevice.is_cuda(), 1,
        static_cast<int64_t>(promptIds.size()) + config.maxNewTokens, /*logits=*/true, &job);
  });
  const std::unique_ptr<model::Backbone> model =
      model::Backbone::load(folder, {.device = computeDevice, .streamLayers = streamLayers});

  std::cout << prompt << std::flush;
  TextStream stream(*tokenizer, promptIds);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int32_t> generated =
      generate(*model, promptIds, config, [&](int32_t id) { stream.add(id); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "\n" << std::flush;
  char speed[160];
  std::snprintf(speed, sizeof speed, "%zu prompt tokens, %zu generated in %.2f s (%.1f tokens/s)\n",
                promptIds.size(), generated.size(), seconds,
                seconds > 0 ? static_cast<double>(generated.size()) / seconds : 0.0);
  std::cerr << speed;
  return 0;
}

}  // namespace strata::cli
