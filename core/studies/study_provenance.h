#pragma once
// Which code a study's numbers came from, for study.json: the version and build of the running
// binary and, when it runs from a build tree, the source tree's git commit and the files that
// differed from it. The commit is read when the study starts (a build tree is not rebuilt
// under a running binary, but its checkout may move on: the executable's time tells which). No
// torch here.

#include <string>
#include <vector>

namespace strata::studies {

struct CodeProvenance {
  std::string version;         ///< the project version (common/build_info.h)
  std::string buildType;       ///< CMAKE_BUILD_TYPE
  std::string compiler;        ///< "GNU 12.2.0"
  bool withCuda = false;       ///< built with Strata's CUDA code
  std::string executable;      ///< the running binary's path
  std::string executableTime;  ///< its modification time, UTC ISO 8601 ("" when unknown)
  std::string sourceTree;      ///< the checkout it was built from ("" for an installed Strata)
  std::string commit;          ///< HEAD of that checkout ("" when it is not a git checkout)
  std::string commitTime;      ///< the commit's time, ISO 8601
  /// `git status --porcelain` lines: the files of the checkout that differ from the commit
  /// ("M core/x.cpp", "?? core/y.cpp"); empty when the checkout was clean.
  std::vector<std::string> changes;
};

/** The provenance of this process's code (runs git, well under a second, when there is a
 *  source tree; a missing git leaves the commit empty rather than failing). */
CodeProvenance codeProvenance();

}  // namespace strata::studies
