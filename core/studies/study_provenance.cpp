// Which code a study's numbers came from (see study_provenance.h).

#include "studies/study_provenance.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>

#include "common/build_info.h"
#include "common/install_paths.h"

namespace strata::studies {

namespace fs = std::filesystem;

namespace {

/** Lines a shell command prints (stderr discarded); empty when it cannot run or fails. */
std::vector<std::string> commandLines(const std::string& command) {
  std::vector<std::string> lines;
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen((command + " 2>/dev/null").c_str(), "r"),
                                                   pclose);
  if (!pipe) return lines;
  std::string line;
  std::array<char, 512> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe.get())) {
    line += buffer.data();
    if (!line.empty() && line.back() == '\n') {
      line.pop_back();
      lines.push_back(line);
      line.clear();
    }
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::string quoted(const std::string& path) {
  std::string out = "'";
  for (char c : path) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string utcTime(fs::file_time_type time) {
  const auto system = std::chrono::file_clock::to_sys(time);
  const std::time_t seconds = std::chrono::system_clock::to_time_t(system);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

}  // namespace

CodeProvenance codeProvenance() {
  CodeProvenance p;
  p.version = build::kVersion;
  p.buildType = build::kBuildType;
  p.compiler = build::kCompiler;
  p.withCuda = build::kWithCuda;
  const fs::path exe = executableFile();
  p.executable = exe.string();
  std::error_code error;
  if (!exe.empty()) {
    const auto time = fs::last_write_time(exe, error);
    if (!error) p.executableTime = utcTime(time);
  }
  const fs::path source = sourceTreeFolder();
  if (source.empty()) return p;
  p.sourceTree = source.string();
  const std::string git = "git -C " + quoted(source.string()) + " ";
  const auto head = commandLines(git + "log -1 --format=%H%n%cI");
  if (head.size() < 2) return p;
  p.commit = head[0];
  p.commitTime = head[1];
  // Untracked files too: core's CMake globs every source file of a folder into the build.
  for (const auto& line : commandLines(git + "status --porcelain")) p.changes.push_back(line);
  return p;
}

}  // namespace strata::studies
