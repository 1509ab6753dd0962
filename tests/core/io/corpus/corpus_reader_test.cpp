// Corpus readers on files the tests write: split rules, JSONL, folders, format detection, and
// the refusals (empty corpus, binary data, a bad JSONL line named by file and line).

#include <gtest/gtest.h>

#include <fstream>

#include "common/error.h"
#include "io/corpus/corpus.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

namespace fs = std::filesystem;

fs::path write(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

std::vector<std::string> texts(const fs::path& path, const CorpusOptions& options = {}) {
  std::vector<std::string> result;
  for (auto& document : readCorpus(path, options)) result.push_back(document.text);
  return result;
}

using Texts = std::vector<std::string>;

/** The FormatError message `read` throws; fails the test when it throws nothing else. */
template <typename Read>
std::string formatErrorOf(Read&& read) {
  try {
    read();
  } catch (const FormatError& error) {
    return error.what();
  }
  ADD_FAILURE() << "no FormatError";
  return {};
}

TEST(CorpusReader, SplitsPlainTextIntoParagraphsAtBlankLines) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "\n\nOne\nline two\n\n \t \nTwo\r\n\r\nThree\n\n");
  EXPECT_EQ(texts(file), (Texts{"One\nline two", "Two", "Three"}));
}

TEST(CorpusReader, LabelsDocumentsWithFileAndFirstLine) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "\nOne\n\nTwo\nmore\n");
  const auto documents = readCorpus(file);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].source, "a.txt:2");
  EXPECT_EQ(documents[1].source, "a.txt:4");
}

TEST(CorpusReader, SplitsOneDocumentPerLineOnRequest) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "One\nTwo\n\nThree");
  CorpusOptions options;
  options.split = DocumentSplit::Lines;
  EXPECT_EQ(texts(file, options), (Texts{"One", "Two", "Three"}));
}

TEST(CorpusReader, ReadsTheWholeFileAsOneDocumentWithoutOuterBlankLines) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "\n\nOne\n\nTwo\n\n\n");
  CorpusOptions options;
  options.split = DocumentSplit::WholeFile;
  EXPECT_EQ(texts(file, options), (Texts{"One\n\nTwo"}));
}

TEST(CorpusReader, StartsAnArticleAtEachTopLevelWikiTextTitle) {
  TempDir dir;
  const auto file = write(dir / "wiki.txt",
                          " \n = First = \n \n Body one . \n \n = = Section = = \n \n More . \n"
                          " = Second = \n Body two . \n");
  CorpusOptions options;
  options.split = DocumentSplit::WikiTextArticles;
  const auto documents = readCorpus(file, options);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].text, " = First = \n \n Body one . \n \n = = Section = = \n \n More . ");
  EXPECT_EQ(documents[0].source, "wiki.txt:2");
  EXPECT_EQ(documents[1].text, " = Second = \n Body two . ");
  EXPECT_EQ(documents[1].source, "wiki.txt:9");
}

TEST(CorpusReader, ReadsJsonlWithACustomFieldAndSkipsEmptyLines) {
  TempDir dir;
  const auto file = write(dir / "c.jsonl",
                          "{\"body\": \"first\", \"text\": \"ignored\"}\n\n   \n"
                          "{\"body\": \"second\\nline\"}\n{\"body\": \"\"}\n");
  CorpusOptions options;
  options.jsonlField = "body";
  const auto documents = readCorpus(file, options);
  ASSERT_EQ(documents.size(), 2u);
  EXPECT_EQ(documents[0].text, "first");
  EXPECT_EQ(documents[1].text, "second\nline");
  EXPECT_EQ(documents[1].source, "c.jsonl:4");
}

TEST(CorpusReader, NamesFileAndLineOfABadJsonlLine) {
  TempDir dir;
  const auto file = write(dir / "bad.jsonl", "{\"text\": \"ok\"}\n\n{\"text\": \"cut\n");
  const std::string message = formatErrorOf([&] { readCorpus(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("line '3'"), std::string::npos) << message;
  EXPECT_NE(message.find("not valid JSON"), std::string::npos) << message;
}

TEST(CorpusReader, RejectsAJsonlLineWithoutTheTextField) {
  TempDir dir;
  const auto file = write(dir / "c.jsonl", "{\"text\": \"ok\"}\n{\"content\": \"x\"}\n[1]\n");
  try {
    readCorpus(file);
    FAIL() << "no FormatError";
  } catch (const FormatError& error) {
    EXPECT_EQ(error.file(), file);
    EXPECT_EQ(error.item(), "2");
    EXPECT_NE(std::string(error.what()).find("no \"text\" field"), std::string::npos);
  }
  CorpusOptions options;
  options.jsonlField = "content";
  EXPECT_NE(formatErrorOf([&] { readCorpus(file, options); }).find("line '1'"), std::string::npos);
}

TEST(CorpusReader, ReadsAFolderInSortedOrderOneDocumentPerFile) {
  TempDir dir;
  write(dir / "corpus/b.txt", "Bee\n\nsecond paragraph\n");
  write(dir / "corpus/a.txt", "Ay\n");
  write(dir / "corpus/C.txt", "Upper case sorts first\n");
  write(dir / "corpus/notes.md", "not a .txt file\n");
  write(dir / "corpus/.hidden.txt", "hidden\n");
  write(dir / "corpus/sub/z.txt", "only when recursive\n");
  const auto documents = readCorpus(dir / "corpus");
  ASSERT_EQ(documents.size(), 3u);
  EXPECT_EQ(documents[0].text, "Upper case sorts first");
  EXPECT_EQ(documents[1].source, "a.txt:1");
  EXPECT_EQ(documents[2].text, "Bee\n\nsecond paragraph");

  CorpusOptions options;
  options.recursive = true;
  options.split = DocumentSplit::Paragraphs;
  EXPECT_EQ(texts(dir / "corpus", options), (Texts{"Upper case sorts first", "Ay", "Bee",
                                                   "second paragraph", "only when recursive"}));
  EXPECT_EQ(readCorpus(dir / "corpus", options).back().source, "sub/z.txt:1");
}

TEST(CorpusReader, DetectsTheFormatAndLetsAnOptionOverrideIt) {
  TempDir dir;
  const auto jsonl = write(dir / "c.JSONL", "{\"text\": \"x\"}\n");
  EXPECT_EQ(detectCorpusFormat(jsonl, CorpusFormat::Auto), CorpusFormat::Jsonl);
  EXPECT_EQ(detectCorpusFormat(dir / "c.ndjson", CorpusFormat::Auto), CorpusFormat::Jsonl);
  EXPECT_EQ(detectCorpusFormat(dir.path(), CorpusFormat::Auto), CorpusFormat::TextFolder);
  EXPECT_EQ(detectCorpusFormat(dir / "c.txt", CorpusFormat::Auto), CorpusFormat::PlainText);
  CorpusOptions asText;
  asText.format = CorpusFormat::PlainText;
  EXPECT_EQ(texts(jsonl, asText), (Texts{"{\"text\": \"x\"}"}));
  const auto jsonText = write(dir / "data.log", "{\"text\": \"y\"}\n");
  CorpusOptions asJsonl;
  asJsonl.format = CorpusFormat::Jsonl;
  EXPECT_EQ(texts(jsonText, asJsonl), (Texts{"y"}));
}

TEST(CorpusReader, RejectsAnEmptyOrWhitespaceOnlyCorpus) {
  TempDir dir;
  for (const std::string name : {"empty.txt", "blank.txt", "empty.jsonl"}) {
    const auto file = write(dir / name, name == "blank.txt" ? " \n\t\n\r\n  " : "");
    const std::string message = formatErrorOf([&] { readCorpus(file); });
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_NE(message.find("no text"), std::string::npos) << message;
  }
  write(dir / "folder/only.txt", "\n \n");
  EXPECT_NE(formatErrorOf([&] { readCorpus(dir / "folder"); }).find("no text"), std::string::npos);
  fs::create_directories(dir / "none");
  EXPECT_NE(formatErrorOf([&] { readCorpus(dir / "none"); }).find("no .txt files"),
            std::string::npos);
}

TEST(CorpusReader, RejectsAFileWithNulBytes) {
  TempDir dir;
  const auto file = write(dir / "model.txt", std::string("PK\x03\x04\0\0\0\x08", 8) + "text\n");
  const std::string message = formatErrorOf([&] { CorpusReader::open(file)->next(); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("binary"), std::string::npos) << message;
}

TEST(CorpusReader, RejectsAFileThatIsMostlyInvalidUtf8) {
  TempDir dir;
  std::string bytes;
  for (int i = 0; i < 4000; ++i) bytes += static_cast<char>(0x80 + i % 100);
  const auto file = write(dir / "latin.txt", "Readable start\n" + bytes + "\n");
  const std::string message = formatErrorOf([&] { readCorpus(file); });
  EXPECT_NE(message.find(file.string()), std::string::npos) << message;
  EXPECT_NE(message.find("not UTF-8"), std::string::npos) << message;
}

TEST(CorpusReader, RejectsBinaryDataFoundAfterTheFirstMegabyte) {
  TempDir dir;
  const std::string text(3 << 19, 'a');  // 1.5 MiB of one long "line" the sniff accepts
  const auto file = write(dir / "late.txt", text + "\n" + std::string("\0\0\0\0", 4) + "\n");
  const std::string message = formatErrorOf([&] { readCorpus(file); });
  EXPECT_NE(message.find("line '2'"), std::string::npos) << message;
}

TEST(CorpusReader, ToleratesAFewStrayBytesAndValidMultibyteText) {
  TempDir dir;
  const auto file = write(dir / "a.txt", "caf\xE9 au lait\n\nна\xC3\xAFve \xF0\x9F\x98\x80\n");
  EXPECT_EQ(texts(file).size(), 2u);
}

TEST(CorpusReader, StripsAUtf8ByteOrderMark) {
  TempDir dir;
  const auto file = write(dir / "bom.txt", "\xEF\xBB\xBFHello\r\nworld\r\n");
  EXPECT_EQ(texts(file), (Texts{"Hello\nworld"}));
}

TEST(CorpusReader, SkipsWhitespaceOnlyDocumentsWithoutGivingThemAnIndex) {
  const auto reader =
      CorpusReader::fromDocuments({{"one", "m:1"}, {" \n\t", "m:2"}, {"two", "m:3"}});
  EXPECT_EQ(reader->next()->text, "one");
  EXPECT_EQ(reader->next()->source, "m:3");
  EXPECT_EQ(reader->documentsRead(), 2);
  EXPECT_FALSE(reader->next().has_value());
}

TEST(CorpusReader, ReportsAMissingPathAsAnIoError) {
  TempDir dir;
  EXPECT_THROW(CorpusReader::open(dir / "absent.txt"), IoError);
}

TEST(CorpusReader, ReportsProgressUpToTheWholeFile) {
  TempDir dir;
  std::string text;
  for (int i = 0; i < 100; ++i) text += "paragraph " + std::to_string(i) + "\n\n";
  const auto reader = CorpusReader::open(write(dir / "a.txt", text));
  EXPECT_DOUBLE_EQ(reader->fractionRead(), 0.0);
  int64_t count = 0;
  while (reader->next()) ++count;
  EXPECT_EQ(count, 100);
  EXPECT_EQ(reader->documentsRead(), 100);
  EXPECT_DOUBLE_EQ(reader->fractionRead(), 1.0);
}

TEST(CorpusReader, NamesFormatsAndSplitsBothWays) {
  for (const auto split : {DocumentSplit::Auto, DocumentSplit::Paragraphs, DocumentSplit::Lines,
                           DocumentSplit::WholeFile, DocumentSplit::WikiTextArticles})
    EXPECT_EQ(parseDocumentSplit(documentSplitName(split)), split);
  for (const auto format :
       {CorpusFormat::Auto, CorpusFormat::PlainText, CorpusFormat::TextFolder, CorpusFormat::Jsonl})
    EXPECT_EQ(parseCorpusFormat(corpusFormatName(format)), format);
  EXPECT_FALSE(parseDocumentSplit("sentences").has_value());
}

}  // namespace
}  // namespace strata::io
