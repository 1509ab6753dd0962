// `strata-cli compare-dlm`: mdlm, bdlm and dcdm (and the K / routing ablations) trained with the
// same budget on the same corpus, then one comparison table.

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/text_file.h"
#include "device_arguments.h"
#include "studies/comparison_studies.h"
#include "terminal_progress.h"
#include "training_arguments.h"

namespace strata::cli {

int runCompareDlm(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  CommandLine cli(
      "compare-dlm",
      "Train the masked diffusion LM variants with the same budget on the same corpus —\n"
      "mdlm, bdlm (B = 8), dcdm (K = 8, h = 4), and the ablations dcdm K = 4 and 16 and\n"
      "point routing h = 1 — each a resumable run in OUT/runs/<name>-s<seed>, run as a\n"
      "study (OUT/study.json, OUT/study.md: no claims, it decides nothing) — then write\n"
      "OUT/compare.{md,csv,json}: best validation ELBO, perplexity bound, masked-token\n"
      "accuracy, chunk-load entropy and largest chunk share, throughput, and the\n"
      "sample quality of N samples per run: word and token diversity and, with\n"
      "--judge, Gen.PPL under that separate autoregressive model (named in the\n"
      "table). Running it again continues an interrupted study.");
  cli.option("corpus", "PATH", "the training corpus")
      .option("steps", "N", "optimizer steps of every run", "300")
      .option("seeds", "N",
              "seeds per variant: the --set seed (0 when none) and the next N − 1; with more "
              "than one, study.md gives each metric's mean and interval",
              "1")
      .option("out", "DIR", "the study folder", "compare-dlm")
      .option("set", "KEY=VALUE", "a dcdm setting shared by every run (repeatable), e.g. dim=64")
      .option("samples", "N", "samples per run for diversity and Gen.PPL (0 = none)", "8")
      .option("judge", "MODEL_DIR",
              "an autoregressive Hugging Face model folder that scores the "
              "samples (Gen.PPL); e.g. one pretrained on the same corpus");
  addDeviceOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  recipes::DlmComparisonConfig config;
  config.corpus = cli.value("corpus");
  config.folder = cli.value("out");
  config.steps = cli.integer("steps");
  config.seeds = cli.integer("seeds");
  if (config.seeds < 1) throw UsageError("--seeds must be at least 1");
  config.settings = sets;
  config.device = deviceFrom(cli);
  config.samples = cli.integer("samples");
  if (config.samples < 0) throw UsageError("--samples must be >= 0");
  if (cli.has("judge")) config.judge = cli.value("judge");
  if (runWithTerminalProgress([&](JobContext& job) { studies::runDlmComparison(config, job); }) ==
      JobOutcome::Cancelled) {
    std::cerr << "stopped: run the same command again to continue\n";
    return 130;
  }
  std::cout << readWholeFile(config.folder / "compare.md");
  return 0;
}

}  // namespace strata::cli
