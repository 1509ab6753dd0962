// `strata-cli verify MODEL_DIR [--json] [--python PATH]`: Strata's backbone and tokenizer against
// Hugging Face transformers on a few fixed prompts (core/verify/, docs/verify.md). Exit codes:
// 0 with results (agreeing or not), 1 when either side cannot load the model, 3 when no Python
// with transformers is found, 130 when interrupted.

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "command_line.h"
#include "commands.h"
#include "terminal_progress.h"
#include "verify/python_environment.h"
#include "verify/transformers_verification.h"

namespace strata::cli {
namespace {

constexpr int kExitNoTransformers = 3;

nlohmann::ordered_json differenceJson(const verify::TensorDifference& difference) {
  return {{"max_abs", difference.maxAbs},
          {"max_rel", difference.maxRel},
          {"max_ref", difference.maxRef}};
}

nlohmann::ordered_json toJson(const verify::TransformersVerification& result) {
  nlohmann::ordered_json out;
  out["layers"] = nlohmann::ordered_json::array();
  for (const verify::LayerDifference& layer : result.layers)
    out["layers"].push_back({{"layer", layer.layer},
                             {"max_abs", layer.difference.maxAbs},
                             {"max_rel", layer.difference.maxRel},
                             {"max_ref", layer.difference.maxRef}});
  out["top1_agreement"] = result.top1Agreement;
  out["tokens_equal"] = result.tokensEqual;
  out["transformers_version"] = result.transformersVersion;
  out["final_norm"] = differenceJson(result.finalNorm);
  out["logits"] = differenceJson(result.logits);
  out["positions"] = result.positions;
  out["agrees"] = result.agrees();
  out["compute_dtype"] = result.computeDType;
  out["tolerance"] = verify::TransformersVerification::kTolerance;
  out["minimum_top1"] = result.minimumTop1();
  if (result.yardstick) {
    // transformers' own bf16 against its float32, the bound Strata's bf16 is held to.
    nlohmann::ordered_json yardstick;
    yardstick["layers"] = nlohmann::ordered_json::array();
    for (std::size_t l = 0; l < result.yardstick->layers.size(); ++l)
      yardstick["layers"].push_back(differenceJson(result.yardstick->layers[l]));
    yardstick["final_norm"] = differenceJson(result.yardstick->finalNorm);
    yardstick["logits"] = differenceJson(result.yardstick->logits);
    yardstick["top1_agreement"] = result.yardstick->top1Agreement;
    yardstick["slack"] = verify::TransformersVerification::kBFloat16Slack;
    out["transformers_bf16"] = yardstick;
  }
  out["verdict"] = result.verdict();
  out["model"] = result.model.string();
  out["architecture"] = result.architecture;
  out["python"] = result.python;
  out["torch_version"] = result.torchVersion;
  out["prompts"] = nlohmann::ordered_json::array();
  for (const verify::PromptTokens& prompt : result.prompts)
    out["prompts"].push_back({{"text", prompt.text},
                              {"tokens_equal", prompt.equal()},
                              {"strata_ids", prompt.strataIds},
                              {"transformers_ids", prompt.transformersIds}});
  if (result.bfloat16) out["bfloat16"] = toJson(*result.bfloat16);
  return out;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%10.2e", value);
  return text;
}

/** A row; in a bf16 check also transformers' own bf16 relative difference and the limit. */
void printRow(const verify::TransformersVerification& result, const std::string& name,
              const verify::TensorDifference& difference,
              const verify::TensorDifference* yardstick) {
  std::cout << name << std::string(name.size() < 12 ? 12 - name.size() : 1, ' ')
            << number(difference.maxAbs) << "  " << number(difference.maxRef) << "  "
            << number(difference.maxRel);
  if (yardstick)
    std::cout << "  " << number(yardstick->maxRel) << "  " << number(result.toleranceOf(name));
  std::cout << "\n";
}

/** Where two id lists first part, for the table. */
std::size_t firstDifference(const verify::PromptTokens& prompt) {
  std::size_t i = 0;
  while (i < prompt.strataIds.size() && i < prompt.transformersIds.size() &&
         prompt.strataIds[i] == prompt.transformersIds[i])
    ++i;
  return i;
}

/** One precision's rows: h_0 … h_L, the final norm, the logits, and top-1 agreement. */
void printDifferences(const verify::TransformersVerification& result) {
  const auto* y = result.yardstick ? &*result.yardstick : nullptr;
  if (y)
    std::cout << "\nStrata in bf16 against transformers in float32, beside transformers' own bf16\n"
              << "layer          max |Δ|   max |ref|    relative  HF bf16 rel       limit\n";
  else
    std::cout << "\nlayer          max |Δ|   max |ref|    relative\n";
  for (std::size_t l = 0; l < result.layers.size(); ++l)
    printRow(result, "h_" + std::to_string(result.layers[l].layer), result.layers[l].difference,
             y && l < y->layers.size() ? &y->layers[l] : nullptr);
  printRow(result, "final norm", result.finalNorm, y ? &y->finalNorm : nullptr);
  printRow(result, "logits", result.logits, y ? &y->logits : nullptr);
  char top1[64];
  std::snprintf(top1, sizeof top1, "%.1f%%", 100.0 * result.top1Agreement);
  std::cout << "\ntop-1 agreement " << top1 << " of " << result.positions << " positions";
  if (y) {
    std::snprintf(top1, sizeof top1, "%.1f%%", 100.0 * y->top1Agreement);
    std::cout << " (transformers' own bf16: " << top1 << ")";
  }
  std::cout << "\n";
}

void printTable(const verify::TransformersVerification& result) {
  std::cout << "Model         " << result.model.string() << "\n"
            << "transformers  " << result.transformersVersion << " (torch " << result.torchVersion
            << ", " << result.python << ")\n"
            << "Architecture  " << result.architecture << "\n"
            << "Prompts       " << result.prompts.size() << ", " << result.positions
            << " positions; tokens " << (result.tokensEqual ? "equal" : "DIFFER") << "\n";
  for (std::size_t p = 0; p < result.prompts.size(); ++p) {
    const verify::PromptTokens& prompt = result.prompts[p];
    if (prompt.equal()) continue;
    std::cout << "  prompt " << p + 1 << ": Strata " << prompt.strataIds.size()
              << " ids, transformers " << prompt.transformersIds.size()
              << ", first difference at position " << firstDifference(prompt) << "\n";
  }
  printDifferences(result);
  if (result.bfloat16) printDifferences(*result.bfloat16);
  std::cout << "\n" << result.verdict() << "\n";
}

}  // namespace

int runVerify(const Arguments& args) {
  CommandLine cli(
      "verify",
      "Run a model folder with Strata and with Hugging Face transformers on a few fixed prompts\n"
      "and compare: per-layer max |Δ| of the hidden states h_0 … h_L (absolute, and relative to\n"
      "that layer's max |h| under transformers), the final norm, the logits' top-1 agreement and\n"
      "whether both tokenizers give the same ids. Strata runs on the ids transformers' tokenizer\n"
      "produced. Needs a Python with torch and transformers (scripts/setup.sh makes one). Exit\n"
      "code 0 with results, 1 when either side cannot load the model, 3 without transformers.");
  cli.positional("model-dir",
                 "Hugging Face model folder (config.json, safetensors, tokenizer) or .gguf file")
      .flag("json", "print one JSON object instead of the table")
      .option("python", "PATH",
              "the Python with transformers (default: $STRATA_PYTHON, else Strata's environment, "
              "else python3)")
      .option("timeout", "S", "stop the transformers side after S seconds", "1800")
      .flag("fp32-only",
            "compare in float32 only (by default both sides are also compared in bfloat16, the "
            "precision --compute-dtype auto computes in on CUDA and on CPUs with native bf16)");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  verify::VerificationConfig config;
  config.modelFolder = cli.value("model-dir");
  config.python = cli.optionalValue("python").value_or("");
  config.timeoutSeconds = cli.integer("timeout");
  config.bfloat16 = !cli.isSet("fp32-only");
  if (config.timeoutSeconds < 1) throw UsageError("--timeout must be at least 1 second");

  verify::TransformersVerification result;
  std::optional<std::string> unavailable;
  const JobOutcome outcome = runWithTerminalProgress([&](JobContext& job) {
    try {
      result = verify::verifyAgainstTransformers(config, job);
    } catch (const verify::TransformersUnavailableError& error) {
      unavailable = error.what();  // its own exit code, not a failure of the model
    }
  });
  if (outcome == JobOutcome::Cancelled) {
    std::cerr << "strata-cli verify: interrupted\n";
    return 130;
  }
  if (unavailable) {
    std::cerr << "strata-cli verify: " << *unavailable << "\n";
    return kExitNoTransformers;
  }
  if (cli.isSet("json"))
    std::cout << toJson(result).dump(2) << "\n";
  else
    printTable(result);
  return 0;
}

}  // namespace strata::cli
