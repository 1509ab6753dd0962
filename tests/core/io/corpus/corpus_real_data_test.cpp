// The corpus readers on the shared real corpora: Tiny Shakespeare and the WikiText-2
// validation split, with document counts computed independently (a few lines of Python
// applying the same rules) and hashes as `sha256sum` prints them.

#include <gtest/gtest.h>

#include "io/corpus/corpus.h"
#include "io/corpus/corpus_hash.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

/** The path of a shared corpus; the test fails, naming it, when it is missing. */
fs::path sharedCorpus(const std::string& name) {
  const fs::path path = fs::path(STRATA_SHARED_DATA_DIR) / "corpora" / name;
  EXPECT_TRUE(fs::is_regular_file(path)) << "missing shared data file: " << path;
  return path;
}

TEST(CorpusRealData, ReadsTinyShakespeareAsSpeeches) {
  const fs::path file = sharedCorpus("tinyshakespeare.txt");
  if (!fs::exists(file)) return;  // already failed above
  const auto documents = readCorpus(file);
  ASSERT_EQ(documents.size(), 7222u);  // one per speech: paragraphs between blank lines
  EXPECT_EQ(documents.front().text,
            "First Citizen:\nBefore we proceed any further, hear me speak.");
  EXPECT_EQ(documents.front().source, "tinyshakespeare.txt:1");
  CorpusOptions lines;
  lines.split = DocumentSplit::Lines;
  EXPECT_EQ(readCorpus(file, lines).size(), 32777u);
}

TEST(CorpusRealData, ReadsWikiText2ValidationAsArticlesOrParagraphs) {
  const fs::path file = sharedCorpus("wikitext2-valid.txt");
  if (!fs::exists(file)) return;
  CorpusOptions articles;
  articles.split = DocumentSplit::WikiTextArticles;
  const auto documents = readCorpus(file, articles);
  ASSERT_EQ(documents.size(), 60u);
  EXPECT_TRUE(documents.front().text.starts_with(" = Homarus gammarus = \n")) << documents[0].text;
  EXPECT_EQ(documents.front().source, "wikitext2-valid.txt:2");
  for (const auto& document : documents)
    EXPECT_TRUE(document.text.starts_with(" = ") && !document.text.starts_with(" = = "))
        << document.source;
  EXPECT_EQ(readCorpus(file).size(), 1160u);
}

TEST(CorpusRealData, HashesTheSharedCorporaAsSha256sum) {
  const fs::path shakespeare = sharedCorpus("tinyshakespeare.txt");
  const fs::path wikitext = sharedCorpus("wikitext2-valid.txt");
  if (!fs::exists(shakespeare) || !fs::exists(wikitext)) return;
  EXPECT_EQ(corpusHash(shakespeare),
            "sha256:86c4e6aa9db7c042ec79f339dcb96d42b0075e16b8fc2e86bf0ca57e2dc565ed");
  EXPECT_EQ(corpusHash(wikitext),
            "sha256:f0737ed31fc1329026e95cb8b98e19c2a182c39c240ab909dc31abf2f8af58e8");
  // The folder: `cd corpora && sha256sum tinyshakespeare.txt wikitext2-valid.txt | sha256sum`.
  EXPECT_EQ(corpusHash(shakespeare.parent_path()),
            "sha256:e0a7fb67985e77e8246eb1ca69099c3b68c50fc586739183b16ea66666f2b1b0");
}

}  // namespace
}  // namespace strata::io
