// The corpus hash: SHA-256 checked against the FIPS 180-4 examples, a file hashed as
// `sha256sum` would, a folder through its sha256sum-style manifest, and stable across runs.

#include "io/corpus/corpus_hash.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

TEST(CorpusHash, Sha256MatchesTheStandardExamples) {
  EXPECT_EQ(sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the length no longer fits the first block's padding.
  EXPECT_EQ(sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256Hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(CorpusHash, Sha256GivesTheSameDigestForAnySplitOfTheInput) {
  const std::string text(1000, 'x');
  for (const size_t cut : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{999}}) {
    Sha256 hash;
    hash.update(std::string_view(text).substr(0, cut));
    hash.update(std::string_view(text).substr(cut));
    EXPECT_EQ(hash.hexDigest(), sha256Hex(text)) << "cut at " << cut;
  }
}

TEST(CorpusHash, HashesAFileAsSha256sumDoes) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "abc");
  EXPECT_EQ(corpusHash(file),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(CorpusHash, HashesAFolderThroughItsManifestInReadingOrder) {
  TempDir dir;
  write(dir / "corpus/b.txt", "bee\n");
  write(dir / "corpus/a.txt", "ay\n");
  write(dir / "corpus/sub/c.txt", "sea\n");
  write(dir / "corpus/skip.md", "not part of the corpus\n");
  const std::string flat = sha256Hex("ay\n") + "  a.txt\n" + sha256Hex("bee\n") + "  b.txt\n";
  EXPECT_EQ(corpusHash(dir / "corpus"), "sha256:" + sha256Hex(flat));
  CorpusOptions recursive;
  recursive.recursive = true;
  EXPECT_EQ(corpusHash(dir / "corpus", recursive),
            "sha256:" + sha256Hex(flat + sha256Hex("sea\n") + "  sub/c.txt\n"));
}

TEST(CorpusHash, IsStableAndFollowsTheContentNotTheLocation) {
  TempDir dir;
  const auto first = write(dir / "one/corpus.txt", "To be, or not to be\n");
  const auto moved = write(dir / "two/renamed.txt", "To be, or not to be\n");
  const auto edited = write(dir / "three/corpus.txt", "To be, or not to be?\n");
  EXPECT_EQ(corpusHash(first), corpusHash(first));
  EXPECT_EQ(corpusHash(first), corpusHash(moved));
  EXPECT_NE(corpusHash(first), corpusHash(edited));
}

TEST(CorpusHash, ReportsAMissingCorpus) {
  TempDir dir;
  EXPECT_THROW(corpusHash(dir / "absent.txt"), IoError);
}

}  // namespace
}  // namespace strata::io
