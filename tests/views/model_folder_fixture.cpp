#include "model_folder_fixture.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <map>
#include <vector>

namespace strata::test {
namespace {

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate) || file.write(bytes) != bytes.size())
    qFatal("cannot write %s", qPrintable(path));
}

/**
 * safetensors by hand: u64 little-endian header length, the JSON header padded with spaces to
 * a multiple of 8, then the tensors' bytes back to back (all F32 zeros here), in header order.
 */
long long writeSafetensors(const QString& path,
                           const std::map<QString, std::vector<int>>& tensors) {
  QByteArray header = "{\"__metadata__\":{\"format\":\"pt\"}";
  long long offset = 0;
  long long parameters = 0;
  for (const auto& [name, shape] : tensors) {
    long long count = 1;
    QStringList dims;
    for (int dim : shape) {
      count *= dim;
      dims << QString::number(dim);
    }
    header += QStringLiteral(",\"%1\":{\"dtype\":\"F32\",\"shape\":[%2],\"data_offsets\":[%3,%4]}")
                  .arg(name, dims.join(QLatin1Char(',')))
                  .arg(offset)
                  .arg(offset + 4 * count)
                  .toUtf8();
    offset += 4 * count;
    parameters += count;
  }
  header += '}';
  while (header.size() % 8 != 0) header += ' ';
  QByteArray bytes(8, '\0');
  quint64 length = static_cast<quint64>(header.size());
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  bytes += header;
  bytes += QByteArray(static_cast<qsizetype>(offset), '\0');
  writeFile(path, bytes);
  return parameters;
}

}  // namespace

long long writeTinyLlamaFolder(const QString& folder, const TinyLlama& s,
                               const QString& architecture) {
  QDir().mkpath(folder);
  const int headDim = s.hidden / s.heads;
  QJsonObject config{{"architectures", QJsonArray{architecture}},
                     {"model_type", "llama"},
                     {"vocab_size", s.vocab},
                     {"hidden_size", s.hidden},
                     {"num_hidden_layers", s.layers},
                     {"num_attention_heads", s.heads},
                     {"num_key_value_heads", s.kvHeads},
                     {"intermediate_size", s.intermediate},
                     {"max_position_embeddings", 64},
                     {"rms_norm_eps", 1e-5},
                     {"rope_theta", 10000.0},
                     {"hidden_act", "silu"},
                     {"tie_word_embeddings", false},
                     {"torch_dtype", "float32"},
                     {"bos_token_id", 1},
                     {"eos_token_id", 2}};
  writeFile(folder + "/config.json", QJsonDocument(config).toJson());

  std::map<QString, std::vector<int>> tensors;
  tensors["model.embed_tokens.weight"] = {s.vocab, s.hidden};
  tensors["model.norm.weight"] = {s.hidden};
  tensors["lm_head.weight"] = {s.vocab, s.hidden};
  for (int l = 0; l < s.layers; ++l) {
    const QString p = QStringLiteral("model.layers.%1.").arg(l);
    tensors[p + "input_layernorm.weight"] = {s.hidden};
    tensors[p + "post_attention_layernorm.weight"] = {s.hidden};
    tensors[p + "self_attn.q_proj.weight"] = {s.heads * headDim, s.hidden};
    tensors[p + "self_attn.k_proj.weight"] = {s.kvHeads * headDim, s.hidden};
    tensors[p + "self_attn.v_proj.weight"] = {s.kvHeads * headDim, s.hidden};
    tensors[p + "self_attn.o_proj.weight"] = {s.hidden, s.heads * headDim};
    tensors[p + "mlp.gate_proj.weight"] = {s.intermediate, s.hidden};
    tensors[p + "mlp.up_proj.weight"] = {s.intermediate, s.hidden};
    tensors[p + "mlp.down_proj.weight"] = {s.hidden, s.intermediate};
  }
  const long long parameters = writeSafetensors(folder + "/model.safetensors", tensors);

  QJsonObject vocab;
  for (int id = 0; id < s.vocab; ++id)
    vocab.insert(QString(QChar('a' + id % 26)) + QString::number(id / 26), id);
  QJsonObject tokenizer{
      {"model", QJsonObject{{"type", "BPE"}, {"vocab", vocab}, {"merges", QJsonArray()}}},
      {"pre_tokenizer", QJsonObject{{"type", "ByteLevel"}}}};
  writeFile(folder + "/tokenizer.json", QJsonDocument(tokenizer).toJson());
  return parameters;
}

}  // namespace strata::test
