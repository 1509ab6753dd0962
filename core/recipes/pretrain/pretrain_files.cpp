#include "recipes/pretrain/pretrain_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/text_file.h"
#include "io/atomic_file.h"
#include "io/corpus/corpus_hash.h"
#include "recipes/pretrain/pretrain.h"
#include "tokenizer/byte_level.h"

namespace strata::recipes {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace {

Json addedToken(int id, const std::string& content) {
  return {{"id", id},        {"content", content},  {"single_word", false}, {"lstrip", false},
          {"rstrip", false}, {"normalized", false}, {"special", true}};
}

}  // namespace

std::string byteTokenizerJson() {
  Json vocab = Json::object();
  for (int b = 0; b < 256; ++b)
    vocab[tokenizer::byte_level::encode(std::string(1, static_cast<char>(b)))] = b;
  const Json byteLevel = {{"type", "ByteLevel"},
                          {"add_prefix_space", false},
                          {"trim_offsets", true},
                          {"use_regex", false}};
  const Json tokenizer = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", {addedToken(256, "<|bos|>"), addedToken(257, "<|eos|>")}},
      {"normalizer", nullptr},
      {"pre_tokenizer", byteLevel},
      {"post_processor", byteLevel},
      {"decoder", byteLevel},
      {"model",
       {{"type", "BPE"},
        {"dropout", nullptr},
        {"unk_token", nullptr},
        {"continuing_subword_prefix", nullptr},
        {"end_of_word_suffix", nullptr},
        {"fuse_unk", false},
        {"byte_fallback", false},
        {"ignore_merges", false},
        {"vocab", std::move(vocab)},
        {"merges", Json::array()}}}};
  return tokenizer.dump(2) + "\n";
}

std::string byteTokenizerConfigJson() {
  const Json config = {{"added_tokens_decoder",
                        {{"256",
                          {{"content", "<|bos|>"},
                           {"lstrip", false},
                           {"normalized", false},
                           {"rstrip", false},
                           {"single_word", false},
                           {"special", true}}},
                         {"257",
                          {{"content", "<|eos|>"},
                           {"lstrip", false},
                           {"normalized", false},
                           {"rstrip", false},
                           {"single_word", false},
                           {"special", true}}}}},
                       {"bos_token", "<|bos|>"},
                       {"eos_token", "<|eos|>"},
                       {"pad_token", nullptr},
                       {"unk_token", nullptr},
                       {"add_bos_token", false},
                       {"add_eos_token", false},
                       {"clean_up_tokenization_spaces", false},
                       {"model_max_length", 1000000000},
                       {"tokenizer_class", "PreTrainedTokenizerFast"}};
  return config.dump(2) + "\n";
}

void writeTokenizerFiles(const std::string& source, const fs::path& folder) {
  if (source == "byte") {
    io::writeTextAtomically(folder / "tokenizer.json", byteTokenizerJson());
    io::writeTextAtomically(folder / "tokenizer_config.json", byteTokenizerConfigJson());
    return;
  }
  const fs::path from(source);
  if (fs::is_regular_file(from)) {
    io::writeTextAtomically(folder / from.filename(), readWholeFile(from));
    return;
  }
  bool any = false;
  for (const char* name : {"tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                           "vocab.json", "merges.txt", "tokenizer.model", "tokenizer.bin"}) {
    if (!fs::is_regular_file(from / name)) continue;
    io::writeTextAtomically(folder / name, readWholeFile(from / name));
    any = true;
  }
  if (!any) throw FormatError(from, "holds no tokenizer file to copy");
}

std::string llamaConfigJson(const LlamaFolderConfig& c) {
  Json config;
  config["architectures"] = {"LlamaForCausalLM"};
  config["model_type"] = "llama";
  config["hidden_size"] = c.dim;
  config["intermediate_size"] = c.mlp;
  config["num_hidden_layers"] = c.layers;
  config["num_attention_heads"] = c.heads;
  config["num_key_value_heads"] = c.kvHeads;
  config["head_dim"] = c.dim / c.heads;
  config["vocab_size"] = c.vocabSize;
  config["max_position_embeddings"] = c.maxPositions;
  config["hidden_act"] = "silu";
  config["rms_norm_eps"] = 1e-5;
  config["rope_theta"] = 10000.0;
  config["attention_bias"] = false;
  config["attention_dropout"] = 0.0;
  config["mlp_bias"] = false;
  config["initializer_range"] = 0.02;
  config["pretraining_tp"] = 1;
  config["tie_word_embeddings"] = true;
  config["bos_token_id"] = c.bos ? Json(*c.bos) : Json(nullptr);
  config["eos_token_id"] = c.eos ? Json(*c.eos) : Json(nullptr);
  config["torch_dtype"] = "float32";
  config["use_cache"] = true;
  return config.dump(2) + "\n";
}

}  // namespace strata::recipes
