// `strata-cli compare-align`: one model converted into a masked diffusion LM five ways with the
// same budget (λ = 0 vs 10, full vs frozen embeddings + MLPs, and a random-init student from
// scratch), then one comparison table with the quality of each student's samples.

#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/text_file.h"
#include "device_arguments.h"
#include "studies/comparison_studies.h"
#include "terminal_progress.h"
#include "training_arguments.h"

namespace strata::cli {

int runCompareAlign(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  CommandLine cli("compare-align",
                  "Convert MODEL into a masked diffusion LM with the repr_align recipe five ways\n"
                  "with the same budget — λ = 0 (plain adaptation) and λ = 10 (alignment), each\n"
                  "with everything trainable and with embeddings + LM head + MLPs frozen, and a\n"
                  "random-init student trained from scratch (λ = 0) — each a resumable run in\n"
                  "OUT/runs/<name>-s<seed>, run as a study (OUT/study.json, OUT/study.md: no\n"
                  "claims) — then write OUT/compare.{md,csv,json}: validation loss at every\n"
                  "evaluation, masked-token accuracy, mean alignment cosine, throughput, and for\n"
                  "N samples of each student Gen.PPL under MODEL (the judge) and word/token\n"
                  "diversity. Running it again continues an interrupted study.");
  cli.option("model", "DIR",
             "the autoregressive model: a Hugging Face folder with its tokenizer, or a .gguf file")
      .option("corpus", "PATH", "the training corpus")
      .option("steps", "N", "optimizer steps of every run", "200")
      .option("seeds", "N",
              "seeds per variant: the --set seed (0 when none) and the next N − 1; with more "
              "than one, study.md gives each metric's mean and interval",
              "1")
      .option("out", "DIR", "the study folder", "compare-align")
      .option("samples", "N",
              "continuations sampled per student for Gen.PPL and diversity (0 = none)", "8")
      .option("sample-tokens", "N", "tokens per sampled continuation", "32")
      .option("set", "KEY=VALUE",
              "a repr_align setting shared by every run (repeatable), e.g. lr=3e-4");
  addDeviceOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  recipes::AlignComparisonConfig config;
  config.model = cli.value("model");
  config.corpus = cli.value("corpus");
  config.folder = cli.value("out");
  config.steps = cli.integer("steps");
  config.seeds = cli.integer("seeds");
  if (config.seeds < 1) throw UsageError("--seeds must be at least 1");
  config.settings = sets;
  config.device = deviceFrom(cli);
  config.samples = cli.integer("samples");
  config.sampleTokens = cli.integer("sample-tokens");
  if (config.samples < 0) throw UsageError("--samples must be 0 or more");
  if (config.sampleTokens < 1) throw UsageError("--sample-tokens must be at least 1");
  if (runWithTerminalProgress([&](JobContext& job) { studies::runAlignComparison(config, job); }) ==
      JobOutcome::Cancelled) {
    std::cerr << "stopped: run the same command again to continue\n";
    return 130;
  }
  std::cout << readWholeFile(config.folder / "compare.md");
  return 0;
}

}  // namespace strata::cli
