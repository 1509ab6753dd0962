#pragma once
// Corpus readers: turn a text file, a folder of .txt files or a JSONL file into a stream of
// documents for capture and training. Readers stream: only the current document (and one
// line of input) is held in memory, so corpora larger than memory can be sampled.
//
// Every file is checked while it is read: a NUL byte, or invalid UTF-8 in more than 1% of
// the bytes seen (beyond 8 stray bytes; judged on the first MiB before anything is returned,
// then on everything read once 64 KiB are in), makes it a FormatError naming the file. A
// corpus that yields no document with non-whitespace text is a FormatError too.
//
// Threading: a reader is used from one thread at a time; separate readers are independent.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata {

class JobContext;

}  // namespace strata

namespace strata::io {

/** How the corpus is stored. Auto: a folder → TextFolder, *.jsonl / *.ndjson → Jsonl,
 *  any other file → PlainText. */
enum class CorpusFormat { Auto, PlainText, TextFolder, Jsonl };

/** How a text file is cut into documents (JSONL ignores it: one document per line). */
enum class DocumentSplit {
  Auto,              ///< Paragraphs for a text file, WholeFile for each file of a folder
  Paragraphs,        ///< runs of non-blank lines; a whitespace-only line ends a document
  Lines,             ///< every non-blank line is a document
  WholeFile,         ///< the file is one document
  WikiTextArticles,  ///< a top-level WikiText heading line " = Title = " starts a document
};

/** Options of a corpus reader; the defaults read any supported corpus sensibly. */
struct CorpusOptions {
  CorpusFormat format = CorpusFormat::Auto;
  DocumentSplit split = DocumentSplit::Auto;
  std::string jsonlField = "text";  ///< the string field of each JSONL object holding the text
  bool recursive = false;           ///< TextFolder: also read .txt files in sub-folders
};

/** One document: its text (UTF-8, line endings normalised to "\n") and where it came from,
 *  "<file relative to the corpus>:<first line>", e.g. "tinyshakespeare.txt:5". */
struct CorpusDocument {
  std::string text;
  std::string source;
};

/** A single document may not grow beyond this (it is held in memory whole). */
inline constexpr int64_t kMaxDocumentBytes = int64_t{256} << 20;

/**
 * A stream of documents, in a fixed order: a file from top to bottom, a folder's files
 * sorted by their relative path (byte order), JSONL line by line. Whitespace-only
 * documents are skipped and get no index.
 */
class CorpusReader {
 public:
  /** Opens `path` with `options`. IoError when it cannot be read; FormatError for a folder
   *  without .txt files or a file that is binary from its first bytes. */
  static std::unique_ptr<CorpusReader> open(const std::filesystem::path& path,
                                            const CorpusOptions& options = {});
  /** A reader over documents already in memory (for tests, and text typed into the GUI). */
  static std::unique_ptr<CorpusReader> fromDocuments(std::vector<CorpusDocument> documents,
                                                     std::filesystem::path label = "memory");

  virtual ~CorpusReader() = default;
  CorpusReader(const CorpusReader&) = delete;
  CorpusReader& operator=(const CorpusReader&) = delete;

  /** The next document, or nullopt after the last. Throws FormatError naming the file (and
   *  the line, for JSONL) on bad input, and at the end when no document had any text. */
  std::optional<CorpusDocument> next();

  /** Documents returned so far; the next document's index. */
  int64_t documentsRead() const { return m_documentsRead; }
  /** Share of the corpus' bytes consumed so far, in [0, 1], for progress reports. */
  virtual double fractionRead() const = 0;
  const std::filesystem::path& path() const { return m_path; }
  /** The resolved format and split (never Auto). */
  CorpusFormat format() const { return m_format; }
  DocumentSplit split() const { return m_split; }

 protected:
  CorpusReader(std::filesystem::path path, CorpusFormat format, DocumentSplit split)
      : m_path(std::move(path)), m_format(format), m_split(split) {}
  /** The next document, which may be whitespace-only (next() skips those). */
  virtual std::optional<CorpusDocument> readNext() = 0;

 private:
  std::filesystem::path m_path;
  CorpusFormat m_format;
  DocumentSplit m_split;
  int64_t m_documentsRead = 0;
};

/** Every document of a corpus, in memory: for small corpora, tests and previews. Reports
 *  progress to `job` and checks its cancellation between documents when given. */
std::vector<CorpusDocument> readCorpus(const std::filesystem::path& path,
                                       const CorpusOptions& options = {},
                                       JobContext* job = nullptr);

/** The format a reader would use for `path` (resolves Auto by extension / folder). */
CorpusFormat detectCorpusFormat(const std::filesystem::path& path, CorpusFormat requested);

/** Names as written in configs, the CLI and the sampling policy: "auto", "text", "folder",
 *  "jsonl" / "auto", "paragraphs", "lines", "file", "wikitext". */
const char* corpusFormatName(CorpusFormat format);
const char* documentSplitName(DocumentSplit split);
/** The inverse of the names above; nullopt for an unknown name. */
std::optional<CorpusFormat> parseCorpusFormat(std::string_view name);
std::optional<DocumentSplit> parseDocumentSplit(std::string_view name);

}  // namespace strata::io
