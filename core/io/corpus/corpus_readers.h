#pragma once
// Internal to the corpus readers: one CorpusReader per format, and the splitter that cuts a
// text file into documents. Use CorpusReader::open() (io/corpus/corpus.h) instead.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/corpus/corpus.h"
#include "io/corpus/corpus_line_source.h"

namespace strata::io {

/** True when `text` holds nothing but ASCII whitespace. */
bool isBlankText(std::string_view text);

/** True for a top-level WikiText heading " = Title = " (not a sub-heading " = = Sub = = "). */
bool isWikiTextTitle(std::string_view line);

/** Cuts one text file into documents by a split rule (never Auto). Documents never start or
 *  end with a blank line; their source is "<label>:<first line>". */
class TextFileDocuments {
 public:
  TextFileDocuments(std::filesystem::path file, std::string label, DocumentSplit split);
  /** The next document, or nullopt at the end of the file. */
  std::optional<CorpusDocument> next();
  int64_t bytesRead() const { return m_source.bytesRead(); }
  int64_t fileSize() const { return m_source.fileSize(); }

 private:
  std::optional<CorpusDocument> nextLine();
  std::optional<CorpusDocument> nextGroup();
  void append(const std::string& line);
  CorpusDocument finish();

  CorpusLineSource m_source;
  std::string m_label;
  DocumentSplit m_split;
  std::string m_text;           // the document being built
  std::string m_pendingBlanks;  // blank lines held back until a non-blank line follows
  int64_t m_firstLine = 0;
  std::optional<std::string> m_heldTitle;  // WikiText: a title line that ended the last article
  int64_t m_heldTitleLine = 0;
};

/** The .txt files of a folder corpus (hidden ones skipped), relative to `folder`, in reading
 *  order: sorted by their generic ("/") form, byte by byte. */
std::vector<std::filesystem::path> listTextFiles(const std::filesystem::path& folder,
                                                 bool recursive);

std::unique_ptr<CorpusReader> openPlainTextCorpus(const std::filesystem::path& file,
                                                  DocumentSplit split);
std::unique_ptr<CorpusReader> openTextFolderCorpus(const std::filesystem::path& folder,
                                                   DocumentSplit split, bool recursive);
std::unique_ptr<CorpusReader> openJsonlCorpus(const std::filesystem::path& file,
                                              const std::string& field);
std::unique_ptr<CorpusReader> openMemoryCorpus(std::vector<CorpusDocument> documents,
                                               std::filesystem::path label);

}  // namespace strata::io
