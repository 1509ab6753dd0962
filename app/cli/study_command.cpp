// `strata-cli study <name>`: one command per replication study — every (arm, seed) trained as a
// resumable run, one progress bar with an ETA over the whole study, statistics over seeds, the
// verdicts the protocol's decision rules give, DIR/study.json, and PNG plots through
// strata-study-plots when it is installed beside strata-cli.

#include <filesystem>
#include <iostream>

#include "command_line.h"
#include "commands.h"
#include "common/human_format.h"
#include "common/install_paths.h"
#include "common/job.h"
#include "device_arguments.h"
#include "studies/study_protocol.h"
#include "studies/study_registry.h"
#include "studies/study_runner.h"
#include "terminal_progress.h"
#include "training_arguments.h"
#include "verify/child_process.h"

namespace strata::cli {
namespace fs = std::filesystem;

namespace {

void printOutcome(const studies::StudyOutcome& outcome) {
  for (const studies::ClaimResult& c : outcome.analysis.claims)
    std::cout << c.claim.id << ": " << c.verdict.result << " — " << c.claim.statement << "\n    "
              << c.verdict.reason << "\n";
  std::cout << "verdict: " << outcome.analysis.verdict.result << " ("
            << outcome.analysis.verdict.reason << ")\nwritten: " << outcome.studyJson.string()
            << "\n";
}

/** Runs strata-study-plots when it sits beside this executable; otherwise says how to. */
void drawPlots(const fs::path& folder) {
  const fs::path plots = executableFile().parent_path() / "strata-study-plots";
  if (executableFile().empty() || !fs::exists(plots)) {
    std::cout
        << "plots: strata-study-plots was not found beside strata-cli (it is built with the GUI, "
           "STRATA_GUI=ON); draw them with: strata-study-plots "
        << folder.string() << "\n";
    return;
  }
  const verify::ChildProcessResult result =
      verify::runChildProcess({plots.string(), folder.string()});
  if (result.exitCode != 0)
    std::cerr << "warning: strata-study-plots failed (exit " << result.exitCode
              << "): " << result.stderrTail << "\n";
  else
    std::cout << "plots: " << (folder / "plots").string() << "\n";
}

}  // namespace

int runStudy(const Arguments& original) {
  Arguments args = original;
  const std::vector<std::string> sets = takeSetOptions(args);
  std::string names;
  for (const auto& n : studies::studyNames()) names += (names.empty() ? "" : ", ") + n;
  CommandLine cli(
      "study",
      "Run a replication study end to end: its protocol (arms × seeds on one budget, fixed\n"
      "before anything trains; docs/studies/<name>.md), every (arm, seed) a resumable run in\n"
      "OUT/runs/<arm>-s<seed>, then mean ± sd and 95 % bootstrap intervals over seeds, the\n"
      "paired differences behind each claim and its verdict (supported / not supported /\n"
      "inconclusive) in OUT/study.json, and PNG plots in OUT/plots. Running the same command\n"
      "again continues an interrupted study. Studies: " +
          names + ".");
  cli.positional("name", "the study (" + names + ")")
      .option("out", "DIR", "the study folder")
      .option("seeds", "N", "seeds 0..N−1 (a study may train some arms at the first few only)", "3")
      .option("budget", "full|smoke",
              "the protocol's budget (about an hour on 2 CPU cores), or a "
              "few seconds (tests)",
              "full")
      .option("set", "KEY=VALUE",
              "a setting of every run whose recipe has it (repeatable), e.g. "
              "corpus=PATH; it becomes part of the protocol")
      .option("samples", "N", "samples per run for Gen.PPL and diversity (default: the study's)")
      .flag("analyse-only",
            "train nothing: analyse the runs finished so far (also while the study "
            "runs in another process); the verdict stays inconclusive until it is complete")
      .option("from-record", "FILE",
              "train nothing and read no run folder: redo the analysis of a recorded study "
              "(its study.json, e.g. docs/studies/dihal-pretrained.json) with this build's "
              "claims and statistics across seeds, into OUT")
      .option("judge", "MODEL",
              "the model that judges generated text, for studies that judge with a pretrained "
              "model (dihal-generation: Gemma-3-270M's .gguf); part of the protocol")
      .option("pool-with", "FILE",
              "with --from-record: pool the layers of another study's record with this one's "
              "in the statistics across seeds (the DiHAL replication's pooled analysis, "
              "docs/studies/dihal-replication.md)");
  addDeviceOption(cli);
  if (!cli.parse(args)) {
    std::cout << cli.help();
    return 0;
  }
  if (!cli.has("out")) throw UsageError("study: --out DIR is required");
  studies::StudyOptions options;
  options.folder = cli.value("out");
  options.seeds = cli.integer("seeds");
  options.budget = cli.value("budget");
  options.device = deviceFrom(cli);
  options.overrides = sets;
  if (cli.has("samples")) options.measureSamples = cli.integer("samples");
  options.analyseOnly = cli.isSet("analyse-only");
  if (options.seeds < 1) throw UsageError("--seeds must be at least 1");
  std::unique_ptr<studies::Study> study = studies::makeStudy(cli.value("name"));
  studies::StudyOutcome outcome;
  if (cli.has("judge")) options.judge = cli.value("judge");
  if (cli.has("pool-with")) {
    if (!cli.has("from-record")) throw UsageError("study: --pool-with needs --from-record");
    options.poolWith = cli.value("pool-with");
  }
  if (cli.has("from-record")) {
    outcome = studies::reanalyseStudy(*study, options, cli.value("from-record"));
    printOutcome(outcome);
    drawPlots(options.folder);
    return 0;
  }
  if (runWithTerminalProgress([&](JobContext& job) {
        outcome = studies::runStudy(*study, options, job);
      }) == JobOutcome::Cancelled) {
    std::cerr << "stopped: run the same command again to continue\n";
    return 130;
  }
  printOutcome(outcome);
  if (!outcome.analysis.complete())
    std::cout << "partial: " << outcome.analysis.runsMeasured << " of "
              << outcome.analysis.runsPlanned << " runs finished\n";
  drawPlots(options.folder);
  return 0;
}

}  // namespace strata::cli
