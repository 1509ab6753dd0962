#pragma once
// The error for an HDF5 file that would not open, in the user's words. HDF5's own error stack
// speaks of its internals ("unable to lock file, errno = 11", "truncated file: eof = 500000,
// sblock->base_addr = 0, stored_eof = 1128566"); these messages say which file, what is wrong
// with it and what to do. No <hdf5.h> here: the detail comes in as text
// (hdf5::takeErrorDetail()), so tests can check every case.

#include <filesystem>
#include <string>

namespace strata::io::hdf5 {

/** Whether `detail` says that another process holds the file's HDF5 lock. */
bool isLockConflict(const std::string& detail);

/**
 * Throws the error for a failed H5Fopen / H5Fcreate / H5Fis_hdf5 of `file`, given the HDF5
 * error-stack `detail` of the failure and the `action` that was tried ("open the store", "write
 * the geometry into the store"):
 *  - IoError when another process holds the file locked (naming it when /proc shows it), when
 *    the file is marked as open for writing by a program that may be gone, or on permission
 *    denied, a missing file or a full disk;
 *  - FormatError when the file is truncated, is not HDF5, or is damaged otherwise (the HDF5
 *    detail is then kept, in parentheses, for whoever reports it).
 */
[[noreturn]] void throwOpenFailure(const std::filesystem::path& file, const std::string& detail,
                                   const std::string& action);

}  // namespace strata::io::hdf5
