// SentencePiece tokenizer.model files (Llama-2, Mistral, Gemma, llama2.c's tok512.model) through
// Debian's libsentencepiece: the library parses the model protobuf and does the normalisation,
// BPE or unigram segmentation and byte fallback, so Strata's ids are SentencePiece's own. Only
// decode is assembled here from the library's per-piece surfaces, to keep the Tokenizer
// contract: byte pieces give their raw bytes (the library would turn a character split across
// decode calls into U+FFFD), and special pieces are spelled out unless skipped, as HF does.

#include "tokenizer/sentencepiece_tokenizer.h"

#include <sentencepiece_processor.h>

#include <stdexcept>

#include "common/error.h"
#include "common/text_file.h"
#include "tokenizer/decoder.h"

namespace strata::tokenizer {

namespace {

/** Immutable after construction; SentencePieceProcessor's const methods are thread-safe. */
class SentencePieceTokenizer : public Tokenizer {
 public:
  explicit SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> processor);

  std::vector<int32_t> encode(std::string_view text, bool addSpecialTokens) const override;
  std::string decode(std::span<const int32_t> ids, bool skipSpecialTokens) const override;
  int64_t vocabSize() const override { return m_processor->GetPieceSize(); }
  std::optional<int32_t> tokenId(std::string_view token) const override;
  std::string tokenText(int32_t id) const override;
  bool isSpecial(int32_t id) const override;
  std::string kind() const override { return m_kind; }

 private:
  void checkId(int32_t id) const;

  std::unique_ptr<sentencepiece::SentencePieceProcessor> m_processor;
  std::string m_kind;
};

std::optional<int32_t> presentId(int id) {
  return id >= 0 ? std::optional<int32_t>(id) : std::nullopt;
}

SentencePieceTokenizer::SentencePieceTokenizer(
    std::unique_ptr<sentencepiece::SentencePieceProcessor> processor)
    : m_processor(std::move(processor)) {
  // A disabled special piece (e.g. --pad_id=-1 when training) is -1 in the library.
  m_special.bos = presentId(m_processor->bos_id());
  m_special.eos = presentId(m_processor->eos_id());
  m_special.pad = presentId(m_processor->pad_id());
  m_special.unk = presentId(m_processor->unk_id());
  m_special.mask = tokenId("<mask>");  // Gemma's; HF's GemmaTokenizer names it the mask token
  bool byteFallback = false;
  for (int id = 0; id < m_processor->GetPieceSize() && !byteFallback; ++id)
    byteFallback = m_processor->IsByte(id);
  m_kind = byteFallback ? "SentencePiece tokenizer.model (byte fallback)"
                        : "SentencePiece tokenizer.model";
}

std::vector<int32_t> SentencePieceTokenizer::encode(std::string_view text,
                                                    bool addSpecialTokens) const {
  std::vector<int> ids;
  if (const auto status = m_processor->Encode(text, &ids); !status.ok())
    throw std::runtime_error("SentencePiece could not encode a text: " + status.ToString());
  // HF's Llama-2 and Gemma templates (add_bos_token true, add_eos_token false).
  if (addSpecialTokens && m_special.bos) ids.insert(ids.begin(), *m_special.bos);
  return {ids.begin(), ids.end()};
}

std::string SentencePieceTokenizer::decode(std::span<const int32_t> ids,
                                           bool skipSpecialTokens) const {
  for (const int32_t id : ids) checkId(id);
  // The library's surfaces carry its own rules: "▁" as a space, the dummy-prefix space of the
  // first piece dropped (after a BOS too) when the model adds one.
  const auto pieces =
      m_processor->DecodeIdsAsImmutableProto(std::vector<int>(ids.begin(), ids.end()));
  if (pieces.pieces_size() != ids.size())
    throw std::runtime_error("SentencePiece could not decode " + std::to_string(ids.size()) +
                             " ids");
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    const int32_t id = ids[i];
    if (isSpecial(id)) {
      if (!skipSpecialTokens) text += tokenText(id);
    } else if (m_processor->IsByte(id)) {
      text += static_cast<char>(byteFallbackValue(m_processor->IdToPiece(id)));
    } else {
      text += pieces.pieces(static_cast<int>(i)).surface();
    }
  }
  return text;
}

void SentencePieceTokenizer::checkId(int32_t id) const {
  if (id < 0 || id >= m_processor->GetPieceSize())
    throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary (size " +
                            std::to_string(m_processor->GetPieceSize()) + ")");
}

std::string SentencePieceTokenizer::tokenText(int32_t id) const {
  checkId(id);
  return m_processor->IdToPiece(id);
}

std::optional<int32_t> SentencePieceTokenizer::tokenId(std::string_view token) const {
  // PieceToId answers unk_id for a piece it does not know.
  const int id = m_processor->PieceToId(token);
  if (id < 0 || m_processor->IdToPiece(id) != token) return std::nullopt;
  return id;
}

// What HF's converted tokenizer.json marks special: control pieces (<s>, </s>, <pad>) and <unk>.
bool SentencePieceTokenizer::isSpecial(int32_t id) const {
  return id >= 0 && id < m_processor->GetPieceSize() &&
         (m_processor->IsControl(id) || m_processor->IsUnknown(id));
}

}  // namespace

std::unique_ptr<Tokenizer> loadSentencePiece(const std::filesystem::path& file) {
  // Read here rather than by the library, so that a missing or unreadable file is an IoError
  // with the system's reason, like every other tokenizer file.
  const std::string model = readWholeFile(file);
  auto processor = std::make_unique<sentencepiece::SentencePieceProcessor>();
  if (const auto status = processor->LoadFromSerializedProto(model); !status.ok()) {
    // A protobuf parse failure comes back as the failed check's source line; say it plainly.
    const std::string reason =
        std::string(status.message()).find("ParseFromArray") != std::string::npos
            ? "its bytes do not parse as a SentencePiece ModelProto"
            : "libsentencepiece: " + std::string(status.message());
    throw FormatError(file, "is neither a SentencePiece model (" + reason +
                                ") nor a tiktoken rank file; it may be truncated or corrupt");
  }
  if (processor->GetPieceSize() == 0)
    throw FormatError(file, "is a SentencePiece model without pieces");
  return std::make_unique<SentencePieceTokenizer>(std::move(processor));
}

}  // namespace strata::tokenizer
