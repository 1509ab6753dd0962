#include "io/file_lock_holders.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace strata::io {

namespace {

namespace fs = std::filesystem;

// /proc/<pid>/cmdline, shown on one line and cut short.
std::string commandLine(const fs::path& process) {
  std::ifstream in(process / "cmdline", std::ios::binary);
  std::string command((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!command.empty() && command.back() == '\0') command.pop_back();
  // NULs between arguments, and newlines inside them (python -c "..."), become spaces.
  for (char& c : command)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  if (command.size() > 100) command = command.substr(0, 97) + "...";
  return command;
}

// The kernel lists a descriptor's locks in its fdinfo as "lock:\t1: FLOCK ADVISORY WRITE ...".
bool carriesALock(const fs::path& process, const std::string& fd) {
  std::ifstream info(process / "fdinfo" / fd);
  std::string line;
  while (std::getline(info, line))
    if (line.starts_with("lock:")) return true;
  return false;
}

bool holdsLockedDescriptor(const fs::path& process, const struct stat& target) {
  std::error_code error;
  for (fs::directory_iterator fd(process / "fd", error), end; !error && fd != end;
       fd.increment(error)) {
    struct stat st {};
    if (::stat(fd->path().c_str(), &st) != 0) continue;
    if (st.st_dev == target.st_dev && st.st_ino == target.st_ino &&
        carriesALock(process, fd->path().filename().string()))
      return true;
  }
  return false;
}

}  // namespace

std::string describeLockHolders(const std::filesystem::path& file) {
  struct stat target {};
  if (::stat(file.c_str(), &target) != 0) return {};
  const std::string self = std::to_string(::getpid());
  std::vector<std::string> holders;
  std::error_code error;
  for (fs::directory_iterator process("/proc", error), end; !error && process != end;
       process.increment(error)) {
    const std::string pid = process->path().filename().string();
    const auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
    if (pid == self || !std::all_of(pid.begin(), pid.end(), isDigit)) continue;
    if (holdsLockedDescriptor(process->path(), target))
      holders.push_back(pid + " (" + commandLine(process->path()) + ")");
  }
  if (holders.empty()) return {};
  std::ostringstream out;
  out << (holders.size() == 1 ? "process " : "processes ");
  for (size_t i = 0; i < holders.size(); ++i) out << (i > 0 ? ", " : "") << holders[i];
  return out.str();
}

}  // namespace strata::io
