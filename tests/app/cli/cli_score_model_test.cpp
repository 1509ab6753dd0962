// `strata-cli score --model` without --out scores each layer as it is captured: the report it
// prints is, byte for byte, the one --out's store gives, and nothing is written anywhere, not
// even a temporary store.

#include <gtest/gtest.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

// float32 forward passes: a bf16 capture's values would mostly fit float16 as they are, and the
// float16 rounding of the stored rows would go untested.
const std::string kSmall =
    " --anchors 64 --neighbours 8 --directions 64 --bootstrap 3 --spectrum 5 --device cpu"
    " --compute-dtype fp32";

class CliScoreModel : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::writeRandomBackbone(dir / "model");
    testing::writeLetterTokenizer(dir / "model");
    testing::writeLetterCorpus(dir / "corpus.txt");
    capture = "score --model " + (dir / "model").string() + " --corpus " +
              (dir / "corpus.txt").string() + " --tokens 120 --seq-len 16" + kSmall + " --json";
  }

  TempDir dir;
  std::string capture;
};

TEST_F(CliScoreModel, WithoutOutPrintsTheReportOfOutsStoreByteForByte) {
  for (const std::string layers : {"", " --layers 2..3"}) {
    SCOPED_TRACE(layers);
    const auto stored =
        testing::runCliSplit(capture + layers + " --out " + (dir / "acts.h5").string());
    ASSERT_EQ(stored.exitCode, 0) << stored.out << stored.err;
    const auto streamed = testing::runCliSplit(capture + layers);
    ASSERT_EQ(streamed.exitCode, 0) << streamed.out << streamed.err;
    EXPECT_NE(streamed.err.find("scoring each layer as it is captured"), std::string::npos)
        << streamed.err;
    // The capture's memory plan counts the scan beside it; a store's scoring plans its own.
    EXPECT_NE(streamed.err.find("; scoring "), std::string::npos) << streamed.err;
    EXPECT_NE(stored.err.find("memory plan for scoring acts.h5"), std::string::npos) << stored.err;
    EXPECT_EQ(streamed.out, stored.out);
  }
}

TEST_F(CliScoreModel, LayersAndCandidatesTheModelLacksAreRefusedBeforeAnythingIsCaptured) {
  const std::string L = std::to_string(testing::kRandomLayers);
  struct Bad {
    std::string arguments, option, why;
  };
  for (const std::string& out : {std::string(), " --out " + (dir / "acts.h5").string()})
    for (const Bad& bad :
         std::vector<Bad>{{" --layers 2..40", "--layers",
                           "layer " + std::to_string(testing::kRandomLayers + 1) +
                               " is not in the model: its hidden states are 0.." + L},
                          {" --candidates 1..100", "--candidates", "reach beyond the model"},
                          {" --layers 0..1 --candidates 2..3", "--candidates",
                           "hold none of the layers scored"}}) {
      SCOPED_TRACE(bad.arguments + out);
      const auto run = testing::runCliSplit(capture + bad.arguments + out);
      EXPECT_EQ(run.exitCode, 2) << run.err;
      EXPECT_NE(run.err.find(bad.option + ": "), std::string::npos) << run.err;
      EXPECT_NE(run.err.find(bad.why), std::string::npos) << run.err;
      EXPECT_EQ(run.err.find("memory plan"), std::string::npos) << "planned first: " << run.err;
      EXPECT_FALSE(fs::exists(dir / "acts.h5"));
    }
}

/** Watches folders for files created, moved in or written to (inotify). */
class FileWatch {
 public:
  explicit FileWatch(const std::vector<fs::path>& folders)
      : m_fd(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    for (const fs::path& folder : folders)
      ::inotify_add_watch(m_fd, folder.c_str(), IN_CREATE | IN_MOVED_TO | IN_MODIFY);
  }
  ~FileWatch() { ::close(m_fd); }
  FileWatch(const FileWatch&) = delete;
  FileWatch& operator=(const FileWatch&) = delete;
  bool valid() const { return m_fd >= 0; }
  /** The names of the files touched since the watch began. */
  std::vector<std::string> touched() const {
    std::vector<std::string> names;
    alignas(inotify_event) char buffer[8192];
    for (ssize_t n; (n = ::read(m_fd, buffer, sizeof buffer)) > 0;)
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
        names.push_back(event->len > 0 ? event->name : "(the folder)");
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    return names;
  }

 private:
  int m_fd;
};

TEST_F(CliScoreModel, WithoutOutWritesNothingNotEvenATemporaryStore) {
  // A fresh TMPDIR for the child, and a watch on it and on the model's and corpus's folders.
  fs::create_directory(dir / "tmp");
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string previousTmpdir = tmpdir ? tmpdir : "";
  ::setenv("TMPDIR", (dir / "tmp").c_str(), 1);
  FileWatch watch({dir / "tmp", dir.path(), dir / "model"});
  ASSERT_TRUE(watch.valid());
  const auto run = testing::runCli(capture);  // no temporary file for stderr either
  if (tmpdir)
    ::setenv("TMPDIR", previousTmpdir.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_EQ(run.exitCode, 0) << run.out;
  EXPECT_NE(run.out.find("no store is written"), std::string::npos) << run.out;
  EXPECT_EQ(watch.touched(), std::vector<std::string>());
  EXPECT_TRUE(fs::is_empty(dir / "tmp"));
}

}  // namespace
}  // namespace strata
