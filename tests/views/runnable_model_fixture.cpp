#include "runnable_model_fixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <cstring>
#include <map>
#include <vector>

#include "display_text.h"

namespace strata::test {
namespace {

constexpr int kVocab = 40;
constexpr int kHidden = 16;
constexpr int kLayers = 2;
constexpr int kHeads = 4;
constexpr int kKvHeads = 2;
constexpr int kIntermediate = 24;

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
    qFatal("cannot write %s", qPrintable(path));
}

void appendFloat(QByteArray& bytes, float value) {
  quint32 bits = 0;
  static_assert(sizeof(bits) == sizeof(value));
  std::memcpy(&bits, &value, sizeof(bits));
  for (int i = 0; i < 4; ++i) bytes += static_cast<char>((bits >> (8 * i)) & 0xff);  // LE
}

/**
 * safetensors by hand: u64 LE header length, the JSON header padded with spaces to a multiple
 * of 8, then the F32 data in header order. Norm weights are 1; every other weight is a small
 * deterministic value 0.08·sin(0.37·i + 1.3·k) (tensor k, element i), never all zero.
 */
void writeWeights(const QString& path, const std::map<QString, std::vector<int>>& tensors) {
  QByteArray header = "{\"__metadata__\":{\"format\":\"pt\"}";
  QByteArray data;
  int k = 0;
  for (const auto& [name, shape] : tensors) {
    long long count = 1;
    QStringList dims;
    for (int dim : shape) {
      count *= dim;
      dims << QString::number(dim);
    }
    header += QStringLiteral(",\"%1\":{\"dtype\":\"F32\",\"shape\":[%2],\"data_offsets\":[%3,%4]}")
                  .arg(name, dims.join(QLatin1Char(',')))
                  .arg(data.size())
                  .arg(data.size() + 4 * count)
                  .toUtf8();
    const bool norm = name.endsWith(QLatin1String("norm.weight"));
    for (long long i = 0; i < count; ++i)
      appendFloat(data, norm ? 1.0f : 0.08f * std::sin(0.37f * i + 1.3f * k));
    ++k;
  }
  header += '}';
  while (header.size() % 8 != 0) header += ' ';
  QByteArray bytes(8, '\0');
  const auto length = static_cast<quint64>(header.size());
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  writeFile(path, bytes + header + data);
}

}  // namespace

void writeRunnableLlamaFolder(const QString& folder) {
  QDir().mkpath(folder);
  const QJsonObject config{{"architectures", QJsonArray{"LlamaForCausalLM"}},
                           {"model_type", "llama"},
                           {"vocab_size", kVocab},
                           {"hidden_size", kHidden},
                           {"num_hidden_layers", kLayers},
                           {"num_attention_heads", kHeads},
                           {"num_key_value_heads", kKvHeads},
                           {"intermediate_size", kIntermediate},
                           {"max_position_embeddings", 256},
                           {"rms_norm_eps", 1e-5},
                           {"rope_theta", 10000.0},
                           {"hidden_act", "silu"},
                           {"tie_word_embeddings", false},
                           {"torch_dtype", "float32"},
                           {"bos_token_id", 1},
                           {"eos_token_id", 2}};
  writeFile(folder + "/config.json", QJsonDocument(config).toJson());

  const int headDim = kHidden / kHeads;
  std::map<QString, std::vector<int>> tensors;
  tensors["model.embed_tokens.weight"] = {kVocab, kHidden};
  tensors["model.norm.weight"] = {kHidden};
  tensors["lm_head.weight"] = {kVocab, kHidden};
  for (int l = 0; l < kLayers; ++l) {
    const QString p = QStringLiteral("model.layers.%1.").arg(l);
    tensors[p + "input_layernorm.weight"] = {kHidden};
    tensors[p + "post_attention_layernorm.weight"] = {kHidden};
    tensors[p + "self_attn.q_proj.weight"] = {kHeads * headDim, kHidden};
    tensors[p + "self_attn.k_proj.weight"] = {kKvHeads * headDim, kHidden};
    tensors[p + "self_attn.v_proj.weight"] = {kKvHeads * headDim, kHidden};
    tensors[p + "self_attn.o_proj.weight"] = {kHidden, kHeads * headDim};
    tensors[p + "mlp.gate_proj.weight"] = {kIntermediate, kHidden};
    tensors[p + "mlp.up_proj.weight"] = {kIntermediate, kHidden};
    tensors[p + "mlp.down_proj.weight"] = {kHidden, kIntermediate};
  }
  writeWeights(folder + "/model.safetensors", tensors);

  const QString space = QString::fromUtf8("\u2581");
  QJsonObject vocab{{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {space, 3}};
  for (int c = 0; c < 26; ++c) vocab.insert(QString(QChar('a' + c)), 4 + c);
  const QJsonObject metaspace{
      {"type", "Metaspace"}, {"replacement", space}, {"prepend_scheme", "always"}};
  const QJsonObject tokenizer{
      {"added_tokens", QJsonArray{QJsonObject{{"id", 0}, {"content", "<unk>"}, {"special", true}},
                                  QJsonObject{{"id", 1}, {"content", "<s>"}, {"special", true}},
                                  QJsonObject{{"id", 2}, {"content", "</s>"}, {"special", true}}}},
      {"normalizer", QJsonValue::Null},
      {"pre_tokenizer", metaspace},
      {"decoder", metaspace},
      {"model",
       QJsonObject{
           {"type", "BPE"}, {"unk_token", "<unk>"}, {"vocab", vocab}, {"merges", QJsonArray()}}}};
  writeFile(folder + "/tokenizer.json", QJsonDocument(tokenizer).toJson());
  const QJsonObject tokenizerConfig{
      {"bos_token", "<s>"}, {"eos_token", "</s>"}, {"unk_token", "<unk>"}};
  writeFile(folder + "/tokenizer_config.json", QJsonDocument(tokenizerConfig).toJson());
}

void writeWordCorpus(const QString& file, int paragraphs) {
  static const char* const kWords[] = {"the",   "layer", "of",    "a",     "model", "holds",
                                       "state", "which", "flows", "into",  "next",  "block",
                                       "and",   "every", "token", "moves", "along", "its",
                                       "path",  "quiet", "river", "stone", "light", "over"};
  constexpr int kCount = static_cast<int>(sizeof(kWords) / sizeof(kWords[0]));
  QByteArray text;
  for (int p = 0; p < paragraphs; ++p) {
    for (int line = 0; line < 3; ++line) {
      for (int w = 0; w < 8; ++w) {
        if (w > 0) text += ' ';
        text += kWords[(p * 7 + line * 5 + w * 3 + w * w) % kCount];
      }
      text += '\n';
    }
    text += '\n';
  }
  writeFile(file, text);
}

engine::CaptureConfig smallCapture(const QString& model, const QString& corpus,
                                   const QString& output) {
  engine::CaptureConfig config;
  config.modelFolder = toFsPath(model);
  config.corpus = toFsPath(corpus);
  config.output = toFsPath(output);
  config.sampling.tokenBudget = 100;
  config.sampling.sequenceLength = 16;
  config.batchSequences = 4;
  config.dtype = io::StoreDType::Float32;
  return config;
}

}  // namespace strata::test
