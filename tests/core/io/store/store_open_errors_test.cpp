// What a user reads when an activation store will not open: a store another process is
// writing (a Strata writer, or any program holding HDF5's lock), a truncated copy, a file that
// is not HDF5, permission denied. Each message names the file and what to do, carries none of
// HDF5's internal wording, and nothing of HDF5's error stack reaches stderr.

#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "common/error.h"
#include "io/store/activation_store.h"
#include "io/store/hdf5_open_error.h"
#include "io/writer_lock.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

constexpr int64_t kTokens = 64;
constexpr int64_t kHidden = 32;

StoreMeta smallMeta() {
  StoreMeta meta;
  meta.modelId = "strata/tiny";
  meta.architecture = "LlamaForCausalLM";
  meta.hiddenSize = kHidden;
  meta.numLayers = 1;
  meta.dtype = StoreDType::Float32;
  meta.corpusHash = "sha256:00";
  meta.samplingPolicy = "{}";
  return meta;
}

TokenTable smallTokens() {
  TokenTable tokens;
  for (int32_t i = 0; i < kTokens; ++i) {
    tokens.ids.push_back(i);
    tokens.doc.push_back(0);
    tokens.position.push_back(i + 1);
  }
  return tokens;
}

void writeSmallStore(const fs::path& file) {
  auto writer = ActivationStoreWriter::create(file, smallMeta(), smallTokens());
  for (int64_t layer = 0; layer <= 1; ++layer)
    writer.writeLayer(layer, std::vector<float>(kTokens * kHidden, 0.5f * float(layer)));
  writer.close();
}

/** The message of the `Expected` error `body` throws, with stderr captured meanwhile: both are
 *  checked for HDF5's own error-stack text. */
template <typename Expected>
std::string messageOf(const std::function<void()>& body) {
  ::testing::internal::CaptureStderr();
  std::string message;
  try {
    body();
    ADD_FAILURE() << "expected an exception";
  } catch (const Expected& error) {
    message = error.what();
  }
  const std::string stderrText = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(stderrText.find("HDF5-DIAG"), std::string::npos) << stderrText;
  for (const char* internal : {"HDF5-DIAG", "H5F", "sblock", "errno =", "stored_eof"})
    EXPECT_EQ(message.find(internal), std::string::npos) << internal << " in: " << message;
  return message;
}

void expectMentions(const std::string& message, const std::string& text) {
  EXPECT_NE(message.find(text), std::string::npos) << "no \"" << text << "\" in: " << message;
}

/**
 * A forked child that runs `hold` (which takes some lock on the file) and then waits until
 * this object is destroyed. pid() is the child's; the constructor returns once it holds.
 */
class LockingChild {
 public:
  explicit LockingChild(const std::function<void()>& hold) {
    int ready[2], go[2];
    if (pipe(ready) != 0 || pipe(go) != 0) throw std::runtime_error("pipe failed");
    m_pid = fork();
    if (m_pid == 0) {
      close(ready[0]);
      close(go[1]);
      char byte = 'r';
      try {
        hold();
      } catch (...) {
        _exit(3);
      }
      if (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) < 0) _exit(4);
      _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    m_go = go[1];
    char byte = 0;
    m_holding = read(ready[0], &byte, 1) == 1;
    close(ready[0]);
  }
  ~LockingChild() {
    close(m_go);  // the child's read returns: it exits, and the kernel drops its locks
    int status = 0;
    waitpid(m_pid, &status, 0);
  }
  pid_t pid() const { return m_pid; }
  bool holding() const { return m_holding; }

 private:
  pid_t m_pid = -1;
  int m_go = -1;
  bool m_holding = false;
};

TEST(StoreOpenErrors, AStoreAnotherStrataProcessWritesNamesTheProcessAndTheRemedy) {
  TempDir dir;
  const fs::path file = dir / "acts.h5";
  writeSmallStore(file);
  // What a running capture holds (ActivationStoreWriter takes exactly this lock).
  LockingChild child([&] {
    static WriterLock lock;
    lock = WriterLock::forExistingFile(file);
  });
  ASSERT_TRUE(child.holding());
  for (const auto& attempt : std::vector<std::function<void()>>{
           [&] { ActivationStoreWriter::resume(file); },
           [&] { ActivationStoreWriter::create(file, smallMeta(), smallTokens(), true); }}) {
    const std::string message = messageOf<LockHeldError>(attempt);
    expectMentions(message, file.string());
    expectMentions(message, "another writer has this file open");
    expectMentions(message, "process " + std::to_string(child.pid()) + " (");
    expectMentions(message, "wait for it to finish or stop it");
  }
  // Readers are not affected by a Strata writer.
  EXPECT_EQ(ActivationStore::open(file).completedLayers(), (std::vector<int64_t>{0, 1}));
}

TEST(StoreOpenErrors, AStoreAnotherProgramHoldsForWritingNamesTheProgramAndTheRemedy) {
  TempDir dir;
  const fs::path file = dir / "acts.h5";
  writeSmallStore(file);
  // HDF5 (h5py's "r+", any HDF5 writer) holds an exclusive flock() on the file it writes.
  LockingChild child([&] {
    const int fd = open(file.c_str(), O_RDWR);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) throw std::runtime_error("no lock");
  });
  ASSERT_TRUE(child.holding());
  const std::string message = messageOf<IoError>([&] { ActivationStore::open(file); });
  expectMentions(message, file.string());
  expectMentions(message, "another program has the file open for writing");
  expectMentions(message, "process " + std::to_string(child.pid()) + " (");
  expectMentions(message, "wait for it to finish or close the file");
}

TEST(StoreOpenErrors, ATruncatedStoreSaysSoWithItsSizeAndTheRemedy) {
  TempDir dir;
  const fs::path file = dir / "acts.h5";
  writeSmallStore(file);
  const auto size = fs::file_size(file);
  fs::resize_file(file, size / 2);
  const std::string message = messageOf<FormatError>([&] { ActivationStore::open(file); });
  expectMentions(message, file.string());
  expectMentions(message, "is truncated: it has " + std::to_string(size / 2) + " bytes of the " +
                              std::to_string(size));
  expectMentions(message, "copy it again or capture it again");
  // Resuming it gives the same diagnosis.
  expectMentions(messageOf<FormatError>([&] { ActivationStoreWriter::resume(file); }),
                 "is truncated");
}

TEST(StoreOpenErrors, AFileThatIsNotHdf5SaysWhatToGiveInstead) {
  TempDir dir;
  const fs::path file = dir / "notes.h5";
  std::ofstream(file) << "these are not the hidden states you are looking for\n";
  const std::string message = messageOf<FormatError>([&] { ActivationStore::open(file); });
  expectMentions(message, file.string());
  expectMentions(message, "not an HDF5 file");
  expectMentions(message, "strata-cli capture --out");
}

TEST(StoreOpenErrors, AStoreLeftMarkedOpenByAKilledProgramSaysHowToClearTheMark) {
  std::string why;
  const std::string python = testing::findPython(
      {"h5py"}, "run scripts/setup.sh (Strata's Python environment) or set STRATA_PYTHON", why);
  if (python.empty()) GTEST_SKIP() << "no h5py to leave a store marked as open: " << why;
  TempDir dir;
  const fs::path file = dir / "acts.h5";
  writeSmallStore(file);
  // h5py opens it for writing, which sets the superblock's "open for writing" mark, and dies
  // without closing it.
  const std::string command = python + " -c \"import h5py, os; f = h5py.File('" + file.string() +
                              "', 'r+'); f.flush(); os._exit(0)\"";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const std::string message = messageOf<IoError>([&] { ActivationStore::open(file); });
  expectMentions(message, file.string() + ": cannot open the store");
  expectMentions(message, "marked as open for writing by another program");
  expectMentions(message, "h5clear -s " + file.string());
}

// Run as another user: root reads every file, so as root the check runs in a forked child
// that becomes "nobody" first (and reports the message through a pipe).
TEST(StoreOpenErrors, AnUnreadableStoreIsPermissionDeniedWithTheRemedy) {
  TempDir dir;
  fs::permissions(dir.path(),
                  fs::perms::owner_all | fs::perms::others_exec | fs::perms::group_exec);
  const fs::path file = dir / "acts.h5";
  writeSmallStore(file);
  fs::permissions(file, fs::perms::owner_write);  // write-only: nobody else, not even reads
  const auto openAndDescribe = [&]() -> std::string {
    try {
      ActivationStore::open(file);
    } catch (const IoError& error) {
      return error.what();
    } catch (const std::exception& error) {
      return std::string("not an IoError: ") + error.what();
    }
    return "no error";
  };
  std::string message;
  if (geteuid() != 0) {
    message = openAndDescribe();
  } else {
    int out[2];
    ASSERT_EQ(pipe(out), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      close(out[0]);
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);  // nobody
      const std::string text = openAndDescribe();
      const bool written = write(out[1], text.data(), text.size()) == ssize_t(text.size());
      _exit(written ? 0 : 3);
    }
    close(out[1]);
    char buffer[4096];
    ssize_t got = 0;
    while ((got = read(out[0], buffer, sizeof buffer)) > 0) message.append(buffer, size_t(got));
    close(out[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "the child that drops to user nobody failed: " << status;
  }
  expectMentions(message, file.string());
  expectMentions(message, "permission denied");
  expectMentions(message, "ls -l");
}

// HDF5's detail as takeErrorDetail() words it for the cases a test cannot stage everywhere
// (recorded from libhdf5 1.10.8).
TEST(StoreOpenErrors, HdfDetailsBecomeMessagesWithARemedy) {
  const fs::path file = "/data/acts.h5";
  const auto messageFor = [&](const std::string& detail) -> std::string {
    try {
      hdf5::throwOpenFailure(file, detail, "open the store");
    } catch (const Error& error) {
      return error.what();
    }
    return {};
  };
  std::string message = messageFor("unable to open file: Permission denied");
  expectMentions(message, "/data/acts.h5: cannot open the store: permission denied");
  expectMentions(message, "ls -l");
  message = messageFor(
      "unable to open file: file is already open for write (may use <h5clear file> to clear "
      "file consistency flags); in SWMR mode: unable to open file: file is not already open for "
      "SWMR writing");
  expectMentions(message, "marked as open for writing by another program");
  expectMentions(message, "strata-cli capture --resume");
  expectMentions(message, "h5clear -s /data/acts.h5");
  message = messageFor("unable to open file: unable to lock file, errno = 11");
  expectMentions(message, "another program has the file open for writing");
  EXPECT_EQ(message.find("errno"), std::string::npos) << message;
  message = messageFor("unable to open file: bad object header version number");
  expectMentions(message, "damaged");
  expectMentions(message, "(HDF5: unable to open file: bad object header version number)");
}

}  // namespace
}  // namespace strata::io
