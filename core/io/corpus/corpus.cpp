#include "io/corpus/corpus.h"

#include <array>
#include <cctype>
#include <utility>

#include "common/error.h"
#include "common/job.h"
#include "io/corpus/corpus_readers.h"

namespace strata::io {

namespace {

constexpr std::array<std::pair<CorpusFormat, const char*>, 4> kFormatNames{{
    {CorpusFormat::Auto, "auto"},
    {CorpusFormat::PlainText, "text"},
    {CorpusFormat::TextFolder, "folder"},
    {CorpusFormat::Jsonl, "jsonl"},
}};

constexpr std::array<std::pair<DocumentSplit, const char*>, 5> kSplitNames{{
    {DocumentSplit::Auto, "auto"},
    {DocumentSplit::Paragraphs, "paragraphs"},
    {DocumentSplit::Lines, "lines"},
    {DocumentSplit::WholeFile, "file"},
    {DocumentSplit::WikiTextArticles, "wikitext"},
}};

}  // namespace

CorpusFormat detectCorpusFormat(const std::filesystem::path& path, CorpusFormat requested) {
  if (requested != CorpusFormat::Auto) return requested;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) return CorpusFormat::TextFolder;
  std::string extension = path.extension().string();
  for (char& c : extension) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (extension == ".jsonl" || extension == ".ndjson") return CorpusFormat::Jsonl;
  return CorpusFormat::PlainText;
}

std::unique_ptr<CorpusReader> CorpusReader::open(const std::filesystem::path& path,
                                                 const CorpusOptions& options) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!std::filesystem::exists(status))
    throw IoError(path,
                  "no such file or folder" + (error && error != std::errc::no_such_file_or_directory
                                                  ? " (" + error.message() + ")"
                                                  : std::string()));
  const CorpusFormat format = detectCorpusFormat(path, options.format);
  const bool isFolder = std::filesystem::is_directory(status);
  if (isFolder != (format == CorpusFormat::TextFolder))
    throw FormatError(
        path, isFolder ? std::string("a folder, read as a ") + corpusFormatName(format) + " corpus"
                       : "a file, read as a folder corpus");
  switch (format) {
    case CorpusFormat::Jsonl:
      if (options.jsonlField.empty())
        throw ConfigError({}, "jsonl_field", "the JSONL text field name is empty");
      return openJsonlCorpus(path, options.jsonlField);
    case CorpusFormat::TextFolder:
      return openTextFolderCorpus(
          path, options.split == DocumentSplit::Auto ? DocumentSplit::WholeFile : options.split,
          options.recursive);
    default:
      return openPlainTextCorpus(
          path, options.split == DocumentSplit::Auto ? DocumentSplit::Paragraphs : options.split);
  }
}

std::unique_ptr<CorpusReader> CorpusReader::fromDocuments(std::vector<CorpusDocument> documents,
                                                          std::filesystem::path label) {
  return openMemoryCorpus(std::move(documents), std::move(label));
}

std::optional<CorpusDocument> CorpusReader::next() {
  for (;;) {
    std::optional<CorpusDocument> document = readNext();
    if (!document) {
      if (m_documentsRead == 0)
        throw FormatError(m_path, "the corpus holds no text (it is empty or only whitespace)");
      return std::nullopt;
    }
    if (isBlankText(document->text)) continue;
    ++m_documentsRead;
    return document;
  }
}

std::vector<CorpusDocument> readCorpus(const std::filesystem::path& path,
                                       const CorpusOptions& options, JobContext* job) {
  const auto reader = CorpusReader::open(path, options);
  std::vector<CorpusDocument> documents;
  while (auto document = reader->next()) {
    documents.push_back(std::move(*document));
    if (job != nullptr && documents.size() % 256 == 0) {
      job->checkCancelled();
      job->progress(reader->fractionRead(), "reading the corpus");
    }
  }
  if (job != nullptr) job->progress(1.0, "reading the corpus");
  return documents;
}

const char* corpusFormatName(CorpusFormat format) {
  for (const auto& [value, name] : kFormatNames)
    if (value == format) return name;
  return "?";
}

const char* documentSplitName(DocumentSplit split) {
  for (const auto& [value, name] : kSplitNames)
    if (value == split) return name;
  return "?";
}

std::optional<CorpusFormat> parseCorpusFormat(std::string_view name) {
  for (const auto& [value, known] : kFormatNames)
    if (name == known) return value;
  return std::nullopt;
}

std::optional<DocumentSplit> parseDocumentSplit(std::string_view name) {
  for (const auto& [value, known] : kSplitNames)
    if (name == known) return value;
  return std::nullopt;
}

}  // namespace strata::io
