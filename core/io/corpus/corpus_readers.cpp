// The CorpusReader of each format: a text file, a folder of .txt files, JSONL, memory.

#include "io/corpus/corpus_readers.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <vector>

#include "common/error.h"

namespace strata::io {

namespace {

double ratio(int64_t done, int64_t total) {
  return total > 0 ? std::clamp(static_cast<double>(done) / static_cast<double>(total), 0.0, 1.0)
                   : 1.0;
}

class PlainTextReader final : public CorpusReader {
 public:
  PlainTextReader(const std::filesystem::path& file, DocumentSplit split)
      : CorpusReader(file, CorpusFormat::PlainText, split),
        m_documents(file, file.filename().string(), split) {}
  double fractionRead() const override {
    return ratio(m_documents.bytesRead(), m_documents.fileSize());
  }

 protected:
  std::optional<CorpusDocument> readNext() override { return m_documents.next(); }

 private:
  TextFileDocuments m_documents;
};

bool hasTxtExtension(const std::filesystem::path& file) {
  std::string extension = file.extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return extension == ".txt";
}

}  // namespace

std::vector<std::filesystem::path> listTextFiles(const std::filesystem::path& folder,
                                                 bool recursive) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  try {
    auto consider = [&](const fs::directory_entry& entry) {
      const bool hidden = entry.path().filename().string().starts_with(".");
      if (!hidden && entry.is_regular_file() && hasTxtExtension(entry.path()))
        files.push_back(entry.path().lexically_relative(folder));
      return hidden;
    };
    if (recursive) {
      for (auto it = fs::recursive_directory_iterator(folder); it != fs::end(it); ++it)
        if (consider(*it) && it->is_directory()) it.disable_recursion_pending();
    } else {
      for (const auto& entry : fs::directory_iterator(folder)) consider(entry);
    }
  } catch (const fs::filesystem_error& error) {
    throw IoError(error.path1().empty() ? folder : error.path1(),
                  "cannot list the folder: " + error.code().message());
  }
  // Byte order of the generic (forward-slash) form: the same on every system and locale.
  std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
    return a.generic_string() < b.generic_string();
  });
  return files;
}

namespace {

class TextFolderReader final : public CorpusReader {
 public:
  TextFolderReader(const std::filesystem::path& folder, DocumentSplit split, bool recursive)
      : CorpusReader(folder, CorpusFormat::TextFolder, split),
        m_files(listTextFiles(folder, recursive)) {
    if (m_files.empty())
      throw FormatError(folder, recursive ? "no .txt files in the folder or its sub-folders"
                                          : "no .txt files in the folder");
    for (const auto& file : m_files) {
      std::error_code error;
      const auto size = std::filesystem::file_size(folder / file, error);
      if (!error) m_totalBytes += static_cast<int64_t>(size);
    }
  }
  double fractionRead() const override {
    const int64_t current = m_current ? m_current->bytesRead() : 0;
    return ratio(m_finishedBytes + current, m_totalBytes);
  }

 protected:
  std::optional<CorpusDocument> readNext() override {
    for (;;) {
      if (!m_current) {
        if (m_nextFile == m_files.size()) return std::nullopt;
        const auto& relative = m_files[m_nextFile++];
        m_current.emplace(path() / relative, relative.generic_string(), split());
      }
      if (auto document = m_current->next()) return document;
      m_finishedBytes += m_current->fileSize();
      m_current.reset();  // one file open at a time
    }
  }

 private:
  std::vector<std::filesystem::path> m_files;
  size_t m_nextFile = 0;
  std::optional<TextFileDocuments> m_current;
  int64_t m_totalBytes = 0;
  int64_t m_finishedBytes = 0;
};

class JsonlReader final : public CorpusReader {
 public:
  JsonlReader(const std::filesystem::path& file, std::string field)
      : CorpusReader(file, CorpusFormat::Jsonl, DocumentSplit::Lines),
        m_source(file),
        m_field(std::move(field)) {}
  double fractionRead() const override { return ratio(m_source.bytesRead(), m_source.fileSize()); }

 protected:
  std::optional<CorpusDocument> readNext() override {
    std::string line;
    while (m_source.nextLine(line)) {
      if (isBlankText(line)) continue;
      const std::string lineNumber = std::to_string(m_source.lineNumber());
      nlohmann::json object;
      try {
        object = nlohmann::json::parse(line);
      } catch (const nlohmann::json::parse_error& error) {
        // what() starts with "[json.exception.parse_error.101] "; the rest is the useful part.
        std::string detail = error.what();
        if (const size_t bracket = detail.find("] "); bracket != std::string::npos)
          detail.erase(0, bracket + 2);
        throw FormatError(path(), "not valid JSON (" + detail + ")", lineNumber, "line");
      }
      if (!object.is_object()) throw FormatError(path(), "not a JSON object", lineNumber, "line");
      const auto field = object.find(m_field);
      if (field == object.end())
        throw FormatError(path(), "no \"" + m_field + "\" field", lineNumber, "line");
      if (!field->is_string())
        throw FormatError(path(), "the \"" + m_field + "\" field is not a string", lineNumber,
                          "line");
      return CorpusDocument{field->get<std::string>(),
                            path().filename().string() + ":" + lineNumber};
    }
    return std::nullopt;
  }

 private:
  CorpusLineSource m_source;
  std::string m_field;
};

class MemoryReader final : public CorpusReader {
 public:
  MemoryReader(std::vector<CorpusDocument> documents, std::filesystem::path label)
      : CorpusReader(std::move(label), CorpusFormat::PlainText, DocumentSplit::WholeFile),
        m_documents(std::move(documents)) {}
  double fractionRead() const override {
    return ratio(static_cast<int64_t>(m_next), static_cast<int64_t>(m_documents.size()));
  }

 protected:
  std::optional<CorpusDocument> readNext() override {
    if (m_next == m_documents.size()) return std::nullopt;
    return m_documents[m_next++];
  }

 private:
  std::vector<CorpusDocument> m_documents;
  size_t m_next = 0;
};

}  // namespace

std::unique_ptr<CorpusReader> openPlainTextCorpus(const std::filesystem::path& file,
                                                  DocumentSplit split) {
  return std::make_unique<PlainTextReader>(file, split);
}

std::unique_ptr<CorpusReader> openTextFolderCorpus(const std::filesystem::path& folder,
                                                   DocumentSplit split, bool recursive) {
  return std::make_unique<TextFolderReader>(folder, split, recursive);
}

std::unique_ptr<CorpusReader> openJsonlCorpus(const std::filesystem::path& file,
                                              const std::string& field) {
  return std::make_unique<JsonlReader>(file, field);
}

std::unique_ptr<CorpusReader> openMemoryCorpus(std::vector<CorpusDocument> documents,
                                               std::filesystem::path label) {
  return std::make_unique<MemoryReader>(std::move(documents), std::move(label));
}

}  // namespace strata::io
