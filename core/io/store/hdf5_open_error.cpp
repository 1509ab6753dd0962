#include "io/store/hdf5_open_error.h"

#include <regex>

#include "common/error.h"
#include "io/file_lock_holders.h"

namespace strata::io::hdf5 {
namespace {

bool mentions(const std::string& detail, const char* text) {
  return detail.find(text) != std::string::npos;
}

// "truncated file: eof = 500000, sblock->base_addr = 0, stored_eof = 1128566": the bytes there
// and the bytes the superblock records.
std::string truncationSizes(const std::string& detail) {
  static const std::regex sizes(R"(eof = (\d+),.*stored_eof = (\d+))");
  std::smatch match;
  if (!std::regex_search(detail, match, sizes)) return {};
  return ": it has " + match[1].str() + " bytes of the " + match[2].str() +
         " its HDF5 header records";
}

}  // namespace

bool isLockConflict(const std::string& detail) {
  // HDF5 takes an exclusive flock() while a program has the file open for writing (h5py "r+"
  // or "w", another library); EAGAIN is what it gets when someone else holds it.
  return mentions(detail, "unable to lock file") ||
         mentions(detail, "Resource temporarily unavailable");
}

void throwOpenFailure(const std::filesystem::path& file, const std::string& detail,
                      const std::string& action) {
  if (isLockConflict(detail)) {
    const std::string holder = describeLockHolders(file);
    throw IoError(file, "cannot " + action + ": another program has the file open for writing" +
                            (holder.empty() ? std::string() : " (" + holder + ")") +
                            "; wait for it to finish or close the file, then try again");
  }
  // The superblock's status flags: set while a program has the file open for writing, and
  // left set when that program was killed.
  if (mentions(detail, "already open for write") || mentions(detail, "consistency flags")) {
    throw IoError(file, "cannot " + action +
                            ": the file is marked as open for writing by another program; wait "
                            "for it to close the file. If that program was killed: a capture "
                            "is finished by `strata-cli capture --resume`, any other file's "
                            "mark is cleared by `h5clear -s " +
                            file.string() + "` (hdf5-tools)");
  }
  if (mentions(detail, "Permission denied")) {
    throw IoError(file, "cannot " + action +
                            ": permission denied; check the file's owner and mode (ls -l) or "
                            "work on a copy you own");
  }
  if (mentions(detail, "No such file")) throw IoError(file, "cannot " + action + ": no such file");
  if (mentions(detail, "disk full")) throw IoError(file, "cannot " + action + ": " + detail);
  if (mentions(detail, "truncated file")) {
    throw FormatError(file, "is truncated" + truncationSizes(detail) +
                                " (an interrupted copy or download, or a disk that filled up "
                                "while it was written); copy it again or capture it again");
  }
  if (mentions(detail, "file signature not found")) {
    throw FormatError(file,
                      "is not an HDF5 file, so not a Strata activation store; give the "
                      ".h5 file that `strata-cli capture --out` wrote");
  }
  throw FormatError(file, "cannot " + action +
                              ": the file is damaged or not an HDF5 file Strata can read; copy "
                              "it again or capture it again" +
                              (detail.empty() ? std::string() : " (HDF5: " + detail + ")"));
}

}  // namespace strata::io::hdf5
