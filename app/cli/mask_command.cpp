// `strata-cli mask --variant mdlm|bdlm|dcdm --seq-len L [--block-size B] [--model RUN --text T]
// [--json]`: the attention mask a masked diffusion LM of the dcdm recipe trains with — the
// 2L×2L matrix of the dual stream [x_t ; x_0] and the chunk ids (recipes/dcdm/training_mask.h).

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "command_line.h"
#include "commands.h"
#include "engine/run_folder.h"
#include "recipes/dcdm/training_mask.h"

namespace strata::cli {
namespace {

void printJson(const recipes::TrainingMaskPicture& picture) {
  nlohmann::ordered_json out;
  out["variant"] = model::dlmVariantName(picture.variant);
  out["length"] = picture.length;
  out["order"] = {"noisy", "clean"};
  out["chunk_ids"] = picture.chunkIds;
  out["mask"] = picture.allowed;
  if (!picture.tokenTexts.empty()) out["tokens"] = picture.tokenTexts;
  std::cout << out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

/** One character per entry ('#' = may attend, '.' = not), a bar between the noisy and the
 *  clean halves, each row labelled with its stream, position and chunk. */
void printPicture(const recipes::TrainingMaskPicture& picture) {
  const auto length = static_cast<size_t>(picture.length);
  std::cout << model::dlmVariantName(picture.variant) << " training mask, L = " << length
            << " (rows attend columns; noisy x_t first, then clean x_0)\n";
  std::cout << "chunk ids:";
  for (const int64_t id : picture.chunkIds) std::cout << " " << id;
  std::cout << "\n";
  for (size_t q = 0; q < 2 * length; ++q) {
    if (q == length)
      std::cout << std::string(16 + length, ' ') << "+" << std::string(length, '-') << "\n";
    char label[64];  // "noisy" + two 20-digit numbers at most
    std::snprintf(label, sizeof label, "%s %4zu c%-3lld ", q < length ? "noisy" : "clean",
                  q % length, static_cast<long long>(picture.chunkIds[q % length]));
    std::string row = label;
    for (size_t k = 0; k < 2 * length; ++k) {
      if (k == length) row += '|';
      row += picture.allowed[q][k] ? '#' : '.';
    }
    std::cout << row << "\n";
  }
}

}  // namespace

int runMask(const Arguments& args) {
  CommandLine cli(
      "mask",
      "Print the attention mask a masked diffusion LM trains with: block diffusion\n"
      "(BD3-LM) over chunks on the dual stream [x_t ; x_0]. Noisy tokens attend the\n"
      "noisy tokens of their own chunk and every clean token of earlier chunks; clean\n"
      "tokens attend clean tokens of their own and earlier chunks; clean never attends\n"
      "noisy. mdlm is one chunk, bdlm positional blocks of B; dcdm's chunks depend on\n"
      "the content, so it needs a trained run and a text (routed chunk-sequentially,\n"
      "as training routes its clean tokens).");
  cli.option("variant", "NAME", "mdlm, bdlm or dcdm (with --model: must match the run)")
      .option("seq-len", "L",
              "sequence length (mdlm, bdlm); with --model, an upper bound on the text's tokens")
      .option("block-size", "B", "bdlm: tokens per block", "8")
      .option("model", "RUN", "a trained dcdm-recipe run folder (needed for dcdm)")
      .option("text", "T", "with --model: the sequence whose chunks are routed")
      .flag("json", "print {\"order\", \"mask\" (2L×2L of 0/1), \"chunk_ids\"} as JSON");
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  if (!cli.has("variant")) throw UsageError("mask needs --variant mdlm|bdlm|dcdm");
  const std::string variant = cli.value("variant");
  model::DlmVariant chosen = model::DlmVariant::Mdlm;
  try {
    chosen = model::parseDlmVariant(variant);
  } catch (const ConfigError&) {
    throw UsageError("--variant must be mdlm, bdlm or dcdm, not '" + variant + "'");
  }
  recipes::TrainingMaskPicture picture;
  if (cli.has("model")) {
    if (!cli.has("text"))
      throw UsageError("--model needs --text: the sequence whose chunks are routed");
    const std::filesystem::path run = cli.value("model");
    if (!engine::isRunFolder(run)) throw IoError(run, "is not a run folder (no run.json)");
    picture = recipes::runTrainingMask(run, cli.value("text"));
    if (picture.variant != chosen)
      throw UsageError("--variant " + variant + " does not match the run, which trained " +
                       model::dlmVariantName(picture.variant));
    if (cli.has("seq-len")) {
      const int64_t limit = cli.integer("seq-len");
      if (limit < 1) throw UsageError("--seq-len must be at least 1");
      if (picture.length >
          limit)  // not cut: a prefix would be routed differently (chunk K−1 collects the rest)
        throw UsageError("the text has " + std::to_string(picture.length) +
                         " tokens, more than --seq-len " + std::to_string(limit) +
                         ": shorten the text or raise --seq-len");
    }
  } else {
    if (chosen == model::DlmVariant::Dcdm)
      throw UsageError(
          "dcdm's chunks depend on the content: give --model RUN (a trained dcdm run) and --text "
          "T");
    if (!cli.has("seq-len")) throw UsageError("mask --variant " + variant + " needs --seq-len L");
    picture =
        recipes::positionalTrainingMask(chosen, cli.integer("seq-len"), cli.integer("block-size"));
  }
  if (cli.isSet("json"))
    printJson(picture);
  else
    printPicture(picture);
  return 0;
}

}  // namespace strata::cli
