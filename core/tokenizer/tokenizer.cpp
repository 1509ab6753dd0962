#include "tokenizer/tokenizer.h"

#include <algorithm>
#include <cctype>
#include <fstream>

#include "common/error.h"
#include "tokenizer/sentencepiece_tokenizer.h"

namespace strata::tokenizer {

namespace {

namespace fs = std::filesystem;

// A tiktoken file starts with "<base64> <rank>"; anything else named .model is handed to
// libsentencepiece, whose parser decides (and names the problem) when it is not a model.
bool startsLikeTiktoken(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw IoError(file, "cannot open: " + lastSystemError());
  std::string head(256, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(in.gcount()));
  const std::string line = head.substr(0, head.find('\n'));
  const size_t space = line.find(' ');
  const auto isBase64 = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
  };
  const auto isDigitOrCr = [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == '\r';
  };
  return space != std::string::npos && space > 0 && space + 1 < line.size() &&
         std::all_of(line.begin(), line.begin() + static_cast<ptrdiff_t>(space), isBase64) &&
         std::all_of(line.begin() + static_cast<ptrdiff_t>(space) + 1, line.end(), isDigitOrCr);
}

std::unique_ptr<Tokenizer> loadModelFile(const fs::path& file) {
  if (startsLikeTiktoken(file)) return loadTiktoken(file);
  return loadSentencePiece(file);  // its error also says that the file is not tiktoken
}

std::unique_ptr<Tokenizer> loadFile(const fs::path& file) {
  const std::string name = file.filename().string();
  const fs::path folder = file.parent_path();
  if ((name == "vocab.json" || name == "merges.txt") && fs::exists(folder / "vocab.json") &&
      fs::exists(folder / "merges.txt"))
    return loadVocabAndMerges(folder / "vocab.json", folder / "merges.txt");
  const std::string extension = file.extension().string();
  if (extension == ".json") return loadTokenizerJson(file);
  if (extension == ".model" || extension == ".tiktoken") return loadModelFile(file);
  if (extension == ".bin") return loadLlama2cTokenizer(file);
  throw FormatError(file,
                    "unrecognised tokenizer file; expected tokenizer.json, vocab.json + "
                    "merges.txt, a tiktoken or SentencePiece .model or a llama2.c .bin");
}

}  // namespace

bool isTiktokenRankFile(const fs::path& file) { return startsLikeTiktoken(file); }

std::unique_ptr<Tokenizer> loadTokenizer(const fs::path& path) {
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error || !fs::exists(status)) throw IoError(path, "does not exist");
  if (!fs::is_directory(status)) return loadFile(path);
  // The order HF users expect: the fast tokenizer file wins over the slow ones.
  if (fs::exists(path / "tokenizer.json")) return loadTokenizerJson(path / "tokenizer.json");
  if (fs::exists(path / "vocab.json") && fs::exists(path / "merges.txt"))
    return loadVocabAndMerges(path / "vocab.json", path / "merges.txt");
  if (fs::exists(path / "tokenizer.model")) return loadModelFile(path / "tokenizer.model");
  if (fs::exists(path / "tokenizer.bin")) return loadLlama2cTokenizer(path / "tokenizer.bin");
  throw FormatError(path,
                    "no tokenizer found: expected tokenizer.json, vocab.json + merges.txt, "
                    "tokenizer.model (tiktoken or SentencePiece) or tokenizer.bin (llama2.c)");
}

}  // namespace strata::tokenizer
