// A read-only disk (a read-only mount: root ignores file modes, not EROFS) is named in a clear
// error by capture and by training, and leaves nothing half-written behind. Skips where a
// tmpfs cannot be mounted (needs root).

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/error.h"
#include "common/job.h"
#include "common/text_file.h"
#include "engine/capture.h"
#include "engine/checkpoint_store.h"
#include "engine/run_folder.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "support/training_fixture.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

/** A small tmpfs at `at`, writable until makeReadOnly(); unmounted when destroyed. */
class SmallDisk {
 public:
  explicit SmallDisk(fs::path at) : m_at(std::move(at)) {
    fs::create_directories(m_at);
    if (::mount("tmpfs", m_at.c_str(), "tmpfs", 0, "size=8m") == 0) {
      m_mounted = true;
    } else {
      m_why = std::strerror(errno);
    }
  }
  ~SmallDisk() {
    if (m_mounted) ::umount2(m_at.c_str(), MNT_DETACH);
  }
  bool mounted() const { return m_mounted; }
  const std::string& why() const { return m_why; }
  /** Remounts read-only; fails (EBUSY) while a file on it is open for writing. */
  bool makeReadOnly() {
    return ::mount(nullptr, m_at.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
  bool makeWritable() { return ::mount(nullptr, m_at.c_str(), nullptr, MS_REMOUNT, nullptr) == 0; }

 private:
  fs::path m_at;
  bool m_mounted = false;
  std::string m_why;
};

TEST(ReadOnlyDisk, CaptureNamesTheStoreAndTheReason) {
  TempDir dir;
  SmallDisk disk(dir / "ro");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << disk.why();
  ASSERT_TRUE(disk.makeReadOnly());
  engine::CaptureConfig config;
  config.modelFolder = dir / "model";
  testing::writeRandomBackbone(config.modelFolder);
  testing::writeLetterTokenizer(config.modelFolder);
  config.corpus = dir / "corpus.txt";
  testing::writeLetterCorpus(config.corpus);
  config.output = dir / "ro" / "acts.h5";
  config.sampling.sequenceLength = 24;
  config.sampling.tokenBudget = 150;
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  try {
    engine::runCapture(config, job);
    FAIL() << "captured onto a read-only disk";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(config.output.string()), std::string::npos) << message;
    EXPECT_NE(message.find("Read-only file system"), std::string::npos) << message;
  }
  EXPECT_FALSE(fs::exists(config.output));
}

TEST(ReadOnlyDisk, TrainingNamesTheRunFolderAndResumesOnceWritable) {
  TempDir dir;
  testing::writeToyCorpus(dir / "corpus.txt");
  SmallDisk disk(dir / "disk");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (needs root): " << disk.why();
  const fs::path run = dir / "disk" / "run";
  engine::ResolvedConfig config = testing::tinyPretrainConfig(dir / "corpus.txt");
  config.set("stop_after", int64_t{10});
  testing::trainTiny(config, run);
  ASSERT_EQ(engine::readRunStatus(run).state, engine::RunState::Stopped);
  const std::string metricsBefore = readWholeFile(run / "metrics.jsonl");

  ASSERT_TRUE(disk.makeReadOnly()) << std::strerror(errno);
  try {
    testing::resumeTiny(run);
    ADD_FAILURE() << "resumed training on a read-only disk";
  } catch (const Error& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find(run.string()), std::string::npos) << message;
    EXPECT_NE(message.find("Read-only file system"), std::string::npos) << message;
  }
  try {
    testing::trainTiny(config, dir / "disk" / "another-run");
    ADD_FAILURE() << "started a run on a read-only disk";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("Read-only file system"), std::string::npos)
        << error.what();
  }

  ASSERT_TRUE(disk.makeWritable());
  EXPECT_EQ(readWholeFile(run / "metrics.jsonl"), metricsBefore);  // nothing half-written
  for (const auto& [step, folder] : engine::CheckpointStore(run / "checkpoints").checkpoints())
    EXPECT_TRUE(engine::CheckpointStore::verify(folder)) << folder;
  EXPECT_TRUE(testing::resumeTiny(run).finished);
}

}  // namespace
}  // namespace strata::io
