// A study's default corpus is found from the source tree or STRATA_SHARED_DATA_DIR, not from
// the working directory: `strata-cli study …` runs the same from any folder.

#include "studies/study_settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "studies/study_protocol.h"
#include "support/temp_dir.h"

namespace strata::studies {
namespace {

namespace fs = std::filesystem;

/** Runs with the working directory `dir` while it lives. */
class InFolder {
 public:
  explicit InFolder(const fs::path& dir) : m_saved(fs::current_path()) { fs::current_path(dir); }
  ~InFolder() { fs::current_path(m_saved); }

 private:
  fs::path m_saved;
};

TEST(StudyCorpus, DefaultIsFoundFromAnyWorkingDirectory) {
  TempDir elsewhere;
  InFolder cd(elsewhere.path());
  const std::string corpus = studyCorpus(StudyOptions{});
  // Both sides canonical: ../shared may be a link to the data elsewhere.
  EXPECT_EQ(fs::weakly_canonical(corpus),
            fs::weakly_canonical(fs::path(STRATA_SOURCE_DIR) / ".." / "shared" / "data" /
                                 "corpora" / "tinyshakespeare.txt"));
}

TEST(StudyCorpus, SharedDataDirChoosesTheFolderAndAMissingCorpusNamesTheRemedy) {
  TempDir dir;
  fs::create_directories(dir.path() / "corpora");
  std::ofstream(dir.path() / "corpora" / "tinyshakespeare.txt") << "To be, or not to be.\n";
  ::setenv("STRATA_SHARED_DATA_DIR", dir.path().c_str(), 1);
  EXPECT_EQ(fs::path(studyCorpus(StudyOptions{})), dir.path() / "corpora" / "tinyshakespeare.txt");
  fs::remove(dir.path() / "corpora" / "tinyshakespeare.txt");
  try {
    (void)studyCorpus(StudyOptions{});
    ADD_FAILURE() << "a missing corpus was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("STRATA_SHARED_DATA_DIR"), std::string::npos) << e.what();
  }
  ::unsetenv("STRATA_SHARED_DATA_DIR");
  StudyOptions given;
  given.overrides = {"corpus=" + (dir.path() / "mine.txt").string()};
  std::ofstream(dir.path() / "mine.txt") << "text\n";
  EXPECT_EQ(fs::path(studyCorpus(given)), dir.path() / "mine.txt");
}

}  // namespace
}  // namespace strata::studies
