#pragma once
// Internal to the corpus readers: one file read line by line through a fixed-size buffer,
// checked on the way that it is text (no NUL byte, at most 1% invalid UTF-8).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace strata::io {

/** Bytes of `bytes` that are not part of a well-formed UTF-8 sequence (overlong forms,
 *  surrogates and code points above U+10FFFF count as invalid). With `allowCutEnd`, a
 *  sequence cut by the end of `bytes` is not counted (the rest may follow). */
int64_t countInvalidUtf8(std::string_view bytes, bool allowCutEnd = false);

/** Reads a text file line by line. Not copyable; one thread at a time. */
class CorpusLineSource {
 public:
  /** Opens `file` and checks its first 64 KiB (IoError / FormatError). */
  explicit CorpusLineSource(std::filesystem::path file);

  /** The next line without "\n" or "\r\n" (and without a UTF-8 byte-order mark on line 1);
   *  false at the end of the file. FormatError when the file turns out to be binary, or a
   *  line is longer than kMaxDocumentBytes. */
  bool nextLine(std::string& line);

  /** 1-based number of the line nextLine() returned last. */
  int64_t lineNumber() const { return m_lineNumber; }
  int64_t bytesRead() const { return m_bytesRead; }
  int64_t fileSize() const { return m_fileSize; }
  const std::filesystem::path& file() const { return m_file; }

 private:
  bool fill();
  void audit(std::string_view line, bool atEnd);

  std::filesystem::path m_file;
  std::ifstream m_in;
  std::string m_buffer;
  size_t m_pos = 0;
  bool m_eof = false;
  int64_t m_fileSize = 0;
  int64_t m_bytesRead = 0;
  int64_t m_lineNumber = 0;
  int64_t m_auditedBytes = 0;
  int64_t m_invalidBytes = 0;
};

}  // namespace strata::io
