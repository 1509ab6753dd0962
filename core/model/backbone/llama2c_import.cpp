#include "model/backbone/llama2c_import.h"

#include <fcntl.h>  // AT_FDCWD
#include <stdio.h>  // renameat2 (glibc >= 2.28)
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <nlohmann/json.hpp>
#include <system_error>

#include "common/error.h"
#include "common/text_file.h"
#include "io/atomic_file.h"
#include "model/backbone/llama2c_tokenizer_json.h"
#include "model/backbone/safetensors_torch.h"

namespace strata {
namespace {

namespace fs = std::filesystem;

std::atomic<unsigned> g_folderCounter{0};

void writeText(const fs::path& file, const std::string& text) {
  writeFileAtomically(file, [&](int fd) { writeAll(fd, text.data(), text.size(), file); });
}

/** "OUT/" and "a/../OUT" name the folder OUT; its parent is where the temporary goes. */
fs::path folderPath(const fs::path& out) {
  fs::path path = fs::absolute(out).lexically_normal();
  if (!path.has_filename()) path = path.parent_path();
  return path;
}

/** Whether `target` may be written: absent, an empty folder, or (with force) any folder. */
void checkTarget(const fs::path& target, bool force) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw IoError(target, "exists and is not a folder; refusing to replace it");
  if (!force && !fs::is_empty(target, error))
    throw Error("'" + target.string() +
                "' exists and is not empty; refusing to overwrite it (use --force to replace it)");
}

/** A fresh sibling folder `.<name>.tmp-<pid>-<n>`, removed with its contents unless committed. */
class TemporaryFolder {
 public:
  explicit TemporaryFolder(const fs::path& target) {
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::string name = ".";
      name.append(target.filename().string()).append(".tmp-");
      name.append(std::to_string(::getpid())).append("-");
      name.append(std::to_string(g_folderCounter++));
      m_path = target.parent_path() / name;
      std::error_code error;
      if (fs::create_directory(m_path, error)) return;
      if (error) break;  // create_directory reports an existing folder as false, no error
    }
    throw IoError(target, "cannot create a temporary folder next to it: " + lastSystemError());
  }
  ~TemporaryFolder() {
    std::error_code ignored;  // best effort; a leftover .tmp folder is harmless
    if (!m_committed) fs::remove_all(m_path, ignored);
  }
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;

  const fs::path& path() const { return m_path; }
  void commit() { m_committed = true; }

 private:
  fs::path m_path;
  bool m_committed = false;
};

/** Moves the finished `temporary` folder to `target` (see importLlama2c for the rules). */
void install(TemporaryFolder& temporary, const fs::path& target, bool force) {
  checkTarget(target, force);  // again: the folder may have appeared while we were writing
  const fs::path& from = temporary.path();
  // rename(2) replaces a missing target or an empty folder atomically.
  if (::rename(from.c_str(), target.c_str()) == 0) {
    temporary.commit();
    fsyncDirectory(target.parent_path());
    return;
  }
  if (errno != ENOTEMPTY && errno != EEXIST)
    throw IoError(target, "cannot rename the temporary folder into place: " + lastSystemError());
  // Non-empty and forced: swap the two folders in one step, then delete the old contents,
  // which now sit under the temporary name (the destructor removes them).
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fsyncDirectory(target.parent_path());
    return;
  }
  // A file system without RENAME_EXCHANGE: move the old folder aside first. A crash between
  // the two renames leaves the old contents under the aside name, never a half-written folder.
  const fs::path aside = fs::path(from).concat(".old");
  if (::rename(target.c_str(), aside.c_str()) != 0)
    throw IoError(target, "cannot move the existing folder aside: " + lastSystemError());
  if (::rename(from.c_str(), target.c_str()) != 0) {
    const std::string problem = lastSystemError();
    ::rename(aside.c_str(), target.c_str());  // put the old one back
    throw IoError(target, "cannot rename the temporary folder into place: " + problem);
  }
  temporary.commit();
  fsyncDirectory(target.parent_path());
  std::error_code ignored;
  fs::remove_all(aside, ignored);
}

}  // namespace

at::Tensor permuteRotaryRows(const at::Tensor& weight, int64_t heads) {
  const int64_t rows = weight.size(0), cols = weight.size(1);
  return weight.view({heads, rows / heads / 2, 2, cols}).transpose(1, 2).reshape({rows, cols});
}

std::vector<std::pair<std::string, at::Tensor>> huggingFaceLlamaTensors(
    const Llama2cCheckpoint& checkpoint) {
  const Llama2cConfig& c = checkpoint.config;
  const Llama2cWeights& w = checkpoint.weights;
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  tensors.emplace_back("model.embed_tokens.weight", w.tokenEmbedding);
  for (int64_t l = 0; l < c.numLayers; ++l) {
    const std::string prefix = "model.layers." + std::to_string(l) + ".";
    tensors.emplace_back(prefix + "self_attn.q_proj.weight",
                         permuteRotaryRows(w.wq[l], c.numHeads));
    tensors.emplace_back(prefix + "self_attn.k_proj.weight",
                         permuteRotaryRows(w.wk[l], c.numKeyValueHeads));
    tensors.emplace_back(prefix + "self_attn.v_proj.weight", w.wv[l]);
    tensors.emplace_back(prefix + "self_attn.o_proj.weight", w.wo[l]);
    // llama2.c's FeedForward: w2(silu(w1(x)) * w3(x)).
    tensors.emplace_back(prefix + "mlp.gate_proj.weight", w.w1[l]);
    tensors.emplace_back(prefix + "mlp.up_proj.weight", w.w3[l]);
    tensors.emplace_back(prefix + "mlp.down_proj.weight", w.w2[l]);
    tensors.emplace_back(prefix + "input_layernorm.weight", w.rmsAttention[l]);
    tensors.emplace_back(prefix + "post_attention_layernorm.weight", w.rmsFfn[l]);
  }
  tensors.emplace_back("model.norm.weight", w.rmsFinal);
  if (!c.sharedClassifier) tensors.emplace_back("lm_head.weight", w.classifier);
  return tensors;
}

std::string huggingFaceLlamaConfigJson(const Llama2cConfig& c) {
  nlohmann::ordered_json config;
  config["architectures"] = {"LlamaForCausalLM"};
  config["model_type"] = "llama";
  config["hidden_size"] = c.dim;
  config["intermediate_size"] = c.hiddenDim;
  config["num_hidden_layers"] = c.numLayers;
  config["num_attention_heads"] = c.numHeads;
  config["num_key_value_heads"] = c.numKeyValueHeads;
  config["head_dim"] = c.headSize();
  config["vocab_size"] = c.vocabSize;
  config["max_position_embeddings"] = c.seqLen;
  config["hidden_act"] = "silu";
  config["rms_norm_eps"] = 1e-5;   // llama2.c's rmsnorm
  config["rope_theta"] = 10000.0;  // run.c: powf(10000.0f, head_dim / (float)head_size)
  config["attention_bias"] = false;
  config["attention_dropout"] = 0.0;
  config["mlp_bias"] = false;
  config["initializer_range"] = 0.02;
  config["pretraining_tp"] = 1;
  config["tie_word_embeddings"] = c.sharedClassifier;
  config["bos_token_id"] = 1;
  // run.c stops generating at BOS: llama2.c's training data separates stories with BOS and the
  // models never emit EOS. Listing BOS as a second end-of-sequence id makes Strata and
  // transformers stop where run.c does.
  config["eos_token_id"] = {2, 1};
  config["torch_dtype"] = "float32";
  config["use_cache"] = true;
  return config.dump(2) + "\n";
}

Llama2cImportResult importLlama2c(const fs::path& modelBin, const fs::path& tokenizerBin,
                                  const fs::path& outFolder, const Llama2cImportOptions& options) {
  const fs::path target = folderPath(outFolder);
  checkTarget(target, options.force);  // fail before the slow part

  const Llama2cCheckpoint checkpoint = readLlama2cCheckpoint(modelBin);
  const Llama2cConfig& c = checkpoint.config;
  const Llama2cVocabulary vocabulary = readLlama2cVocabulary(tokenizerBin);
  if (static_cast<int64_t>(vocabulary.pieces.size()) != c.vocabSize)
    throw FormatError(tokenizerBin, "has " + std::to_string(vocabulary.pieces.size()) +
                                        " tokens but the model " + modelBin.string() +
                                        " has vocab_size " + std::to_string(c.vocabSize));
  const std::string tokenizerJson = llama2cTokenizerJson(vocabulary, tokenizerBin);
  const std::string tokenizerBytes = readWholeFile(tokenizerBin);
  const auto tensors = huggingFaceLlamaTensors(checkpoint);

  std::error_code error;
  fs::create_directories(target.parent_path(), error);
  if (error) throw IoError(target.parent_path(), "cannot create the folder: " + error.message());
  TemporaryFolder temporary(target);
  const fs::path& dir = temporary.path();
  writeText(dir / "config.json", huggingFaceLlamaConfigJson(c));
  writeText(dir / "generation_config.json",
            "{\n  \"bos_token_id\": 1,\n  \"eos_token_id\": [2, 1]\n}\n");
  writeSafetensors(dir / "model.safetensors", tensors,
                   {{"source", "llama2.c v" + std::to_string(c.version)}});
  writeText(dir / "tokenizer.json", tokenizerJson);
  writeText(dir / "tokenizer_config.json", llama2cTokenizerConfigJson(c.seqLen));
  writeText(dir / "tokenizer.bin", tokenizerBytes);
  fsyncDirectory(dir);
  install(temporary, target, options.force);

  Llama2cImportResult result;
  result.config = c;
  result.folder = target;
  for (const auto& [name, tensor] : tensors) result.parameterCount += tensor.numel();
  return result;
}

}  // namespace strata
