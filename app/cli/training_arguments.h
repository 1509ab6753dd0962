#pragma once
// What `train`, `resume` and `pretrain` share: repeated --set options, the data-parallel
// options (--nproc, or --rank/--world-size/--master-addr/--master-port), launching N local
// processes, and running a training job with Ctrl-C stopping it after a checkpoint.

#include <functional>
#include <string>
#include <vector>

#include "command_line.h"
#include "commands.h"
#include "engine/training_run.h"

namespace strata::cli {

/** Removes every `--set K=V` / `--set=K=V` from `args` and returns the assignments in order. */
std::vector<std::string> takeSetOptions(Arguments& args);

/** Declares --nproc, --rank, --world-size, --master-addr, --master-port. */
CommandLine& addDistributedOptions(CommandLine& cli);
engine::DistributedSetup distributedSetupFrom(const CommandLine& cli);

/** --nproc's N (1..256; a UsageError beside --rank or --world-size, which it sets itself). */
int localProcessCount(const CommandLine& cli);

/**
 * With --nproc N > 1: runs `strata-cli <command> <args> --rank i --world-size N --master-port P`
 * for i = 0..N-1 on this machine (a free loopback port), waits for all, and returns the first
 * non-zero exit code (0 when all succeed). Returns -1 without --nproc (run in this process).
 */
int launchLocalProcesses(const CommandLine& cli, const std::string& command, const Arguments& args);

/** Runs `train` with terminal progress (rank 0 prints; other ranks only warn). Returns the exit
 *  code: 0 finished or stopped by stop_after, 130 when Ctrl-C stopped it (checkpointed). */
int runTrainingJob(const std::function<engine::TrainingSummary(JobContext&)>& train,
                   const engine::DistributedSetup& setup, const std::filesystem::path& runFolder);

/** The command line as one shell-quoted string, for run.json. */
std::string commandLineText(const std::string& command, const Arguments& args);

}  // namespace strata::cli
