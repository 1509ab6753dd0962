// TextFileDocuments: the split rules that cut one text file into documents.

#include "common/error.h"
#include "io/corpus/corpus_readers.h"

namespace strata::io {

namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  return text;
}

}  // namespace

bool isBlankText(std::string_view text) { return trimmed(text).empty(); }

bool isWikiTextTitle(std::string_view line) {
  // WikiText writes headings as " = Title = ", " = = Section = = ", ...; only the first
  // level starts an article.
  const std::string_view text = trimmed(line);
  return text.size() >= 5 && text.starts_with("= ") && text.ends_with(" =") &&
         !text.starts_with("= =");
}

TextFileDocuments::TextFileDocuments(std::filesystem::path file, std::string label,
                                     DocumentSplit split)
    : m_source(std::move(file)), m_label(std::move(label)), m_split(split) {}

std::optional<CorpusDocument> TextFileDocuments::next() {
  return m_split == DocumentSplit::Lines ? nextLine() : nextGroup();
}

std::optional<CorpusDocument> TextFileDocuments::nextLine() {
  std::string line;
  while (m_source.nextLine(line)) {
    if (isBlankText(line)) continue;
    return CorpusDocument{std::move(line), m_label + ":" + std::to_string(m_source.lineNumber())};
  }
  return std::nullopt;
}

void TextFileDocuments::append(const std::string& line) {
  if (isBlankText(line)) {
    // Held back: kept inside a document, dropped at its start and end.
    if (!m_text.empty()) m_pendingBlanks.append("\n").append(line);
    return;
  }
  if (m_text.empty()) {
    m_firstLine = m_source.lineNumber();
  } else {
    m_text.append(m_pendingBlanks).append("\n");
  }
  m_pendingBlanks.clear();
  m_text.append(line);
  if (static_cast<int64_t>(m_text.size()) > kMaxDocumentBytes)
    throw FormatError(m_source.file(),
                      "longer than " + std::to_string(kMaxDocumentBytes >> 20) +
                          " MiB; split the corpus into smaller documents (paragraphs, lines)",
                      m_label + ":" + std::to_string(m_firstLine), "document");
}

CorpusDocument TextFileDocuments::finish() {
  CorpusDocument document{std::move(m_text), m_label + ":" + std::to_string(m_firstLine)};
  m_text.clear();
  m_pendingBlanks.clear();
  return document;
}

std::optional<CorpusDocument> TextFileDocuments::nextGroup() {
  if (m_heldTitle) {
    // The title was read as the line after the previous article; lineNumber() has moved on.
    m_text = std::move(*m_heldTitle);
    m_firstLine = m_heldTitleLine;
    m_heldTitle.reset();
  }
  std::string line;
  while (m_source.nextLine(line)) {
    switch (m_split) {
      case DocumentSplit::Paragraphs:
        if (isBlankText(line)) {
          if (!m_text.empty()) return finish();
          continue;
        }
        break;
      case DocumentSplit::WikiTextArticles:
        if (isWikiTextTitle(line) && !m_text.empty()) {
          m_heldTitle = line;
          m_heldTitleLine = m_source.lineNumber();
          return finish();
        }
        break;
      default:  // WholeFile: everything goes in
        break;
    }
    append(line);
  }
  if (m_text.empty()) return std::nullopt;
  return finish();
}

}  // namespace strata::io
