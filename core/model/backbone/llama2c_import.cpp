#include "model/backbone/llama2c_import.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "io/hf/folder_install.h"
#include "model/backbone/llama2c_tokenizer_json.h"
#include "model/backbone/safetensors_torch.h"

namespace strata::model {

namespace fs = std::filesystem;

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
  const fs::path target = io::installTargetPath(outFolder);
  io::checkInstallTarget(target, options.force);  // fail before the slow part

  const Llama2cCheckpoint checkpoint = readLlama2cCheckpoint(modelBin);
  const Llama2cConfig& c = checkpoint.config;
  const Llama2cVocabulary vocabulary = tokenizer::readLlama2cVocabulary(tokenizerBin);
  if (static_cast<int64_t>(vocabulary.pieces.size()) != c.vocabSize)
    throw FormatError(tokenizerBin, "has " + std::to_string(vocabulary.pieces.size()) +
                                        " tokens but the model " + modelBin.string() +
                                        " has vocab_size " + std::to_string(c.vocabSize));
  const std::string tokenizerJson = llama2cTokenizerJson(vocabulary, tokenizerBin);
  const std::string tokenizerBytes = readWholeFile(tokenizerBin);
  const auto tensors = huggingFaceLlamaTensors(checkpoint);

  io::StagingFolder temporary(target);
  const fs::path& dir = temporary.path();
  io::writeTextFile(dir / "config.json", huggingFaceLlamaConfigJson(c));
  io::writeTextFile(dir / "generation_config.json",
                    "{\n  \"bos_token_id\": 1,\n  \"eos_token_id\": [2, 1]\n}\n");
  writeSafetensors(dir / "model.safetensors", tensors,
                   {{"source", "llama2.c v" + std::to_string(c.version)}});
  io::writeTextFile(dir / "tokenizer.json", tokenizerJson);
  io::writeTextFile(dir / "tokenizer_config.json", llama2cTokenizerConfigJson(c.seqLen));
  io::writeTextFile(dir / "tokenizer.bin", tokenizerBytes);
  temporary.install(target, options.force);

  Llama2cImportResult result;
  result.config = c;
  result.folder = target;
  for (const auto& [name, tensor] : tensors) result.parameterCount += tensor.numel();
  return result;
}

}  // namespace strata::model
