#pragma once
// Shared by the tokenizer tests: paths into ../shared/data, llama.cpp's tokenizer test vectors,
// and small file writers for tokenizer.json fixtures.

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace strata::testing {

/** ../shared/data/<relative> (defined in a .cpp: the path is this checkout's, see
 *  tests/CMakeLists.txt). */
std::filesystem::path sharedData(const std::string& relative);

inline std::string readBinary(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

inline void writeBinary(const std::filesystem::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
}

/** One case of llama.cpp's tokenizer tests: an input and the ids HF produced for it. */
struct VocabTestCase {
  std::string input;
  std::vector<int32_t> ids;
};

/** Reads ggml-vocab-*.inp/.out as llama.cpp's tests/test-tokenizer-0.cpp does: the .inp text is
 *  split at "\n__ggml_vocab_test__\n" (the separator's newlines are not part of any input; the
 *  empty remainder after the final separator is not a case), the .out has one line of
 *  space-separated ids per case. Adds a gtest failure naming the path when a file is missing. */
inline std::vector<VocabTestCase> readVocabTestVectors(const std::filesystem::path& inp,
                                                       const std::filesystem::path& out) {
  for (const auto& file : {inp, out})
    if (!std::filesystem::exists(file)) {
      ADD_FAILURE() << "missing test data file: " << file;
      return {};
    }
  const std::string raw = readBinary(inp);
  const std::string separator = "\n__ggml_vocab_test__\n";
  std::vector<std::string> inputs;
  for (size_t pos = 0; pos < raw.size();) {
    const size_t next = raw.find(separator, pos);
    if (next == std::string::npos) {
      inputs.push_back(raw.substr(pos));
      break;
    }
    inputs.push_back(raw.substr(pos, next - pos));
    pos = next + separator.size();
  }
  std::vector<VocabTestCase> cases;
  std::istringstream lines(readBinary(out));
  std::string line;
  for (size_t i = 0; std::getline(lines, line); ++i) {
    VocabTestCase c;
    c.input = i < inputs.size() ? inputs[i] : std::string();
    std::istringstream ids(line);
    for (int64_t id = 0; ids >> id;) c.ids.push_back(static_cast<int32_t>(id));
    cases.push_back(std::move(c));
  }
  EXPECT_EQ(inputs.size(), cases.size()) << inp << " and " << out << " disagree on the case count";
  return cases;
}

/** Printable form of an input for failure messages. */
inline std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c == '"')
      out += "\\\"";
    else
      out += c;
  }
  return out + "\"";
}

}  // namespace strata::testing
