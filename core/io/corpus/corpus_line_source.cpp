#include "io/corpus/corpus_line_source.h"

#include <cstring>

#include "common/error.h"
#include "io/corpus/corpus.h"

namespace strata::io {

namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;
// Invalid UTF-8 is judged once this much has been read (or at the end of a smaller file).
constexpr int64_t kAuditWindowBytes = int64_t{64} << 10;
// A few stray bytes (one mis-encoded name in a short file) are tolerated beyond the 1%.
constexpr int64_t kInvalidSlackBytes = 8;

bool tooManyInvalid(int64_t invalid, int64_t total) {
  return invalid > kInvalidSlackBytes && invalid * 100 > total;
}

}  // namespace

int64_t countInvalidUtf8(std::string_view bytes, bool allowCutEnd) {
  int64_t invalid = 0;
  size_t i = 0;
  const size_t n = bytes.size();
  while (i < n) {
    const auto lead = static_cast<unsigned char>(bytes[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t codePoint = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      codePoint = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      codePoint = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      codePoint = lead & 0x07u;
    } else {  // a continuation byte without a lead, 0xC0/0xC1 (always overlong), or >= 0xF5
      ++invalid;
      ++i;
      continue;
    }
    size_t k = 1;
    for (; k < length && i + k < n; ++k) {
      const auto next = static_cast<unsigned char>(bytes[i + k]);
      if ((next & 0xC0u) != 0x80u) break;
      codePoint = (codePoint << 6) | (next & 0x3Fu);
    }
    if (k < length) {
      if (allowCutEnd && i + k == n) return invalid;
      ++invalid;  // the lead only: the continuation bytes after it are counted on their own
      ++i;
      continue;
    }
    const bool overlong =
        (length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000);
    const bool surrogate = codePoint >= 0xD800 && codePoint <= 0xDFFF;
    if (overlong || surrogate || codePoint > 0x10FFFF) {
      ++invalid;
      ++i;
      continue;
    }
    i += length;
  }
  return invalid;
}

CorpusLineSource::CorpusLineSource(std::filesystem::path file) : m_file(std::move(file)) {
  std::error_code error;
  const auto size = std::filesystem::file_size(m_file, error);
  if (error) throw IoError(m_file, "cannot read the file: " + error.message());
  m_fileSize = static_cast<int64_t>(size);
  m_in.open(m_file, std::ios::binary);
  if (!m_in) throw IoError(m_file, "cannot open the file: " + lastSystemError());

  // Judge the first chunk before anything is returned, so a binary file is refused at once
  // and never read as one endless "line".
  fill();
  const std::string_view head(m_buffer);
  if (const size_t nul = head.find('\0'); nul != std::string_view::npos)
    throw FormatError(m_file, "binary data (a NUL byte at offset " + std::to_string(nul) +
                                  "); a corpus must be UTF-8 text");
  const int64_t invalid = countInvalidUtf8(head, !m_eof);
  if (tooManyInvalid(invalid, static_cast<int64_t>(head.size())))
    throw FormatError(m_file, "binary data (" + std::to_string(invalid) + " of the first " +
                                  std::to_string(head.size()) +
                                  " bytes are not UTF-8); a corpus must be UTF-8 text");
}

bool CorpusLineSource::fill() {
  if (m_eof) return false;
  m_buffer.erase(0, m_pos);
  m_pos = 0;
  const size_t kept = m_buffer.size();
  m_buffer.resize(kept + kChunkBytes);
  m_in.read(m_buffer.data() + kept, static_cast<std::streamsize>(kChunkBytes));
  const auto got = static_cast<size_t>(m_in.gcount());
  m_buffer.resize(kept + got);
  if (m_in.bad()) throw IoError(m_file, "reading failed: " + lastSystemError());
  if (!m_in) m_eof = true;  // a short read: the end of the file
  return got > 0;
}

bool CorpusLineSource::nextLine(std::string& line) {
  line.clear();
  bool ended = false;  // saw the line's "\n"
  while (!ended) {
    if (m_pos == m_buffer.size() && !fill()) {
      if (line.empty()) {  // nothing left: the previous line was the last
        audit({}, true);
        return false;
      }
      break;
    }
    const char* begin = m_buffer.data() + m_pos;
    const size_t available = m_buffer.size() - m_pos;
    const auto* newline = static_cast<const char*>(std::memchr(begin, '\n', available));
    const size_t take = newline != nullptr ? static_cast<size_t>(newline - begin) : available;
    line.append(begin, take);
    ended = newline != nullptr;
    m_pos += take + (ended ? 1 : 0);
    m_bytesRead += static_cast<int64_t>(take + (ended ? 1 : 0));
    if (static_cast<int64_t>(line.size()) > kMaxDocumentBytes)
      throw FormatError(
          m_file,
          "longer than " + std::to_string(kMaxDocumentBytes >> 20) + " MiB without a line break",
          std::to_string(m_lineNumber + 1), "line");
  }
  ++m_lineNumber;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (m_lineNumber == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
  audit(line, m_eof && m_pos == m_buffer.size());
  return true;
}

void CorpusLineSource::audit(std::string_view line, bool atEnd) {
  if (line.find('\0') != std::string_view::npos)
    throw FormatError(m_file, "binary data (a NUL byte); a corpus must be UTF-8 text",
                      std::to_string(m_lineNumber), "line");
  m_invalidBytes += countInvalidUtf8(line);
  m_auditedBytes += static_cast<int64_t>(line.size());
  if ((atEnd || m_auditedBytes >= kAuditWindowBytes) &&
      tooManyInvalid(m_invalidBytes, m_auditedBytes))
    throw FormatError(m_file, "binary data (" + std::to_string(m_invalidBytes) + " of " +
                                  std::to_string(m_auditedBytes) +
                                  " bytes read are not UTF-8); a corpus must be UTF-8 text");
}

}  // namespace strata::io
