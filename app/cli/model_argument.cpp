#include "model_argument.h"

#include "common/error.h"
#include "io/gguf/gguf_import.h"
#include "terminal_progress.h"

namespace strata::cli {

std::filesystem::path modelFolderArgument(const std::filesystem::path& given) {
  if (!io::isGgufModelFile(given)) return given;
  std::filesystem::path folder;
  const JobOutcome outcome = runWithTerminalProgress(
      [&](JobContext& job) { folder = io::resolveModelFolder(given, &job); });
  if (outcome == JobOutcome::Cancelled) throw CancelledError();
  return folder;
}

}  // namespace strata::cli
