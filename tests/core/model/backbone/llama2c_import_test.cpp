// llama2.c import: the trained stories260K checkpoint becomes a Hugging Face Llama folder whose
// logits equal an independent llama2.c-layout forward pass written here (interleaved RoPE on
// the un-permuted weights read straight from the .bin), whose tokenizer.json encodes like
// tokenizer.bin, and whose versioned (v1 float32, v2 Q8_0) and unshared-classifier variants,
// written here following export.py, import to the same tensors. Malformed inputs are errors
// naming the file.

#include "model/backbone/llama2c_import.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "io/hf/hf_config.h"
#include "io/hf/safetensors_file.h"
#include "model/backbone/backbone.h"
#include "model/backbone/generation.h"
#include "model/backbone/llama2c_checkpoint.h"
#include "model/backbone/safetensors_torch.h"
#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "tokenizer/tokenizer.h"

namespace strata::model {

namespace {

namespace fs = std::filesystem;

fs::path storiesDir() { return fs::path(STRATA_SHARED_DATA_DIR) / "models" / "stories260K"; }
fs::path storiesBin() { return storiesDir() / "stories260K.bin"; }
fs::path storiesTokenizer() { return storiesDir() / "tok512.bin"; }

std::string readBytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

void writeBytes(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
}

#define REQUIRE_STORIES()                                             \
  for (const fs::path& required : {storiesBin(), storiesTokenizer()}) \
  ASSERT_TRUE(fs::exists(required)) << "missing test data file: " << required

// ---------------------------------------------------------------------------------------------
// llama2.c as run.c reads it, independently of core/model/backbone/llama2c_checkpoint.cpp.

struct LegacyModel {
  int32_t dim = 0, hidden = 0, layers = 0, heads = 0, kvHeads = 0, vocab = 0, seqLen = 0;
  bool shared = true;
  at::Tensor embedding, rmsAtt, wq, wk, wv, wo, rmsFfn, w1, w2, w3, rmsFinal, freqReal, freqImag,
      classifier;
  int32_t headSize() const { return dim / heads; }
  at::Tensor head() const { return shared ? embedding : classifier; }
};

LegacyModel readLegacy(const fs::path& file) {
  const std::string bytes = readBytes(file);
  LegacyModel m;
  int32_t header[7];
  std::memcpy(header, bytes.data(), sizeof header);
  m.dim = header[0], m.hidden = header[1], m.layers = header[2], m.heads = header[3];
  m.kvHeads = header[4], m.vocab = std::abs(header[5]), m.seqLen = header[6];
  m.shared = header[5] > 0;
  size_t offset = sizeof header;
  const auto take = [&](std::vector<int64_t> shape) {
    at::Tensor t = at::empty(shape, at::kFloat);
    const size_t n = static_cast<size_t>(t.numel()) * 4;
    std::memcpy(t.data_ptr<float>(), bytes.data() + offset, n);
    offset += n;
    return t;
  };
  const int64_t d = m.dim, L = m.layers, kv = m.kvHeads * m.headSize();
  m.embedding = take({m.vocab, d});
  m.rmsAtt = take({L, d});
  m.wq = take({L, d, d});
  m.wk = take({L, kv, d});
  m.wv = take({L, kv, d});
  m.wo = take({L, d, d});
  m.rmsFfn = take({L, d});
  m.w1 = take({L, m.hidden, d});
  m.w2 = take({L, d, m.hidden});
  m.w3 = take({L, m.hidden, d});
  m.rmsFinal = take({d});
  m.freqReal = take({m.seqLen, m.headSize() / 2});
  m.freqImag = take({m.seqLen, m.headSize() / 2});
  if (!m.shared) m.classifier = take({m.vocab, d});
  EXPECT_EQ(offset, bytes.size()) << file;
  return m;
}

at::Tensor rmsnorm(const at::Tensor& x, const at::Tensor& weight) {
  return x * at::rsqrt(x.pow(2).mean(-1, true) + 1e-5) * weight;
}

// run.c's forward() for a whole sequence at once: RoPE rotates the adjacent pairs
// (v[i], v[i+1]) of each head by pos · 10000^(-(i mod head_size) / head_size).
at::Tensor referenceLogits(const LegacyModel& m, const std::vector<int32_t>& tokens) {
  const int64_t T = static_cast<int64_t>(tokens.size()), hs = m.headSize();
  const at::Tensor ids = at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()));
  at::Tensor x = m.embedding.index_select(0, ids);  // [T, d]
  const at::Tensor pairIndex = at::arange(hs / 2, at::kDouble);
  const at::Tensor frequency = at::pow(10000.0, -(2.0 * pairIndex) / static_cast<double>(hs));
  const at::Tensor angle = (at::arange(T, at::kDouble).unsqueeze(1) * frequency).to(at::kFloat);
  const at::Tensor cos = angle.cos().view({T, 1, hs / 2}), sin = angle.sin().view({T, 1, hs / 2});
  const auto rope = [&](const at::Tensor& v, int64_t heads) {
    const at::Tensor pairs = v.view({T, heads, hs / 2, 2});
    const at::Tensor v0 = pairs.select(-1, 0), v1 = pairs.select(-1, 1);
    return at::stack({v0 * cos - v1 * sin, v0 * sin + v1 * cos}, -1).view({T, heads, hs});
  };
  const at::Tensor causal = at::ones({T, T}, at::kBool).tril();
  for (int64_t l = 0; l < m.layers; ++l) {
    const at::Tensor xb = rmsnorm(x, m.rmsAtt[l]);
    const at::Tensor q = rope(at::matmul(xb, m.wq[l].t()), m.heads);
    at::Tensor k = rope(at::matmul(xb, m.wk[l].t()), m.kvHeads);
    at::Tensor v = at::matmul(xb, m.wv[l].t()).view({T, m.kvHeads, hs});
    // run.c: query head h reads key/value head h / (n_heads / n_kv_heads).
    k = k.repeat_interleave(m.heads / m.kvHeads, 1);
    v = v.repeat_interleave(m.heads / m.kvHeads, 1);
    at::Tensor scores = at::matmul(q.transpose(0, 1), k.transpose(0, 1).transpose(1, 2)) /
                        std::sqrt(static_cast<double>(hs));  // [H, T, T]
    scores = scores.masked_fill(causal.logical_not(), -INFINITY).softmax(-1);
    const at::Tensor attended =
        at::matmul(scores, v.transpose(0, 1)).transpose(0, 1).reshape({T, m.dim});
    x = x + at::matmul(attended, m.wo[l].t());
    const at::Tensor yb = rmsnorm(x, m.rmsFfn[l]);
    const at::Tensor gate = at::matmul(yb, m.w1[l].t());
    x = x + at::matmul(gate * at::sigmoid(gate) * at::matmul(yb, m.w3[l].t()), m.w2[l].t());
  }
  return at::matmul(rmsnorm(x, m.rmsFinal), m.head().t());  // [T, vocab]
}

// ---------------------------------------------------------------------------------------------
// Writers of the three layouts, following export.py (legacy_export, version1_export,
// version2_export with quantize_q80).

void appendFloats(std::string& out, const at::Tensor& t) {
  const at::Tensor c = t.contiguous().to(at::kFloat);
  out.append(reinterpret_cast<const char*>(c.data_ptr<float>()),
             static_cast<size_t>(c.numel()) * 4);
}
template <typename T>
void appendValue(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

std::string legacyBytes(const LegacyModel& m) {
  std::string out;
  for (const int32_t v :
       {m.dim, m.hidden, m.layers, m.heads, m.kvHeads, m.shared ? m.vocab : -m.vocab, m.seqLen})
    appendValue(out, v);
  for (const at::Tensor* t : {&m.embedding, &m.rmsAtt, &m.wq, &m.wk, &m.wv, &m.wo, &m.rmsFfn, &m.w1,
                              &m.w2, &m.w3, &m.rmsFinal, &m.freqReal, &m.freqImag})
    appendFloats(out, *t);
  if (!m.shared) appendFloats(out, m.classifier);
  return out;
}

std::string versionedHeader(const LegacyModel& m, int32_t version, int32_t groupSize) {
  std::string out;
  appendValue<uint32_t>(out, 0x616b3432);
  appendValue<int32_t>(out, version);
  for (const int32_t v : {m.dim, m.hidden, m.layers, m.heads, m.kvHeads, m.vocab, m.seqLen})
    appendValue(out, v);
  appendValue<uint8_t>(out, m.shared ? 1 : 0);
  if (version == 2) appendValue<int32_t>(out, groupSize);
  out.resize(256, '\0');
  return out;
}

// The matrices of version 1 and 2, each layer's separately, in export.py's order.
std::vector<at::Tensor> versionedMatrices(const LegacyModel& m) {
  std::vector<at::Tensor> list{m.embedding};
  for (const at::Tensor* stacked : {&m.wq, &m.wk, &m.wv, &m.wo, &m.w1, &m.w2, &m.w3})
    for (int64_t l = 0; l < m.layers; ++l) list.push_back((*stacked)[l]);
  if (!m.shared) list.push_back(m.classifier);
  return list;
}

std::string version1Bytes(const LegacyModel& m) {
  std::string out = versionedHeader(m, 1, 0);
  for (const at::Tensor* t : {&m.rmsAtt, &m.rmsFfn, &m.rmsFinal}) appendFloats(out, *t);
  for (const at::Tensor& t : versionedMatrices(m)) appendFloats(out, t);
  return out;
}

struct Quantized {
  at::Tensor values;  // int8
  at::Tensor scales;  // float, one per group
};
Quantized quantizeQ80(const at::Tensor& w, int64_t groupSize) {
  const at::Tensor groups = w.reshape({-1, groupSize}).to(at::kFloat);
  const at::Tensor scale = std::get<0>(groups.abs().max(1)) / 127.0;
  const at::Tensor quant = at::round(groups / scale.unsqueeze(1)).to(at::kChar);
  return {quant.reshape({-1}).contiguous(), scale.contiguous()};
}

std::string version2Bytes(const LegacyModel& m, int64_t groupSize) {
  std::string out = versionedHeader(m, 2, static_cast<int32_t>(groupSize));
  for (const at::Tensor* t : {&m.rmsAtt, &m.rmsFfn, &m.rmsFinal}) appendFloats(out, *t);
  for (const at::Tensor& t : versionedMatrices(m)) {
    const Quantized q = quantizeQ80(t, groupSize);
    out.append(reinterpret_cast<const char*>(q.values.data_ptr<int8_t>()),
               static_cast<size_t>(q.values.numel()));
    appendFloats(out, q.scales);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

/** stories260K imported once for the whole suite. */
const fs::path& importedStories() {
  static TempDir dir;
  static const fs::path folder = [] {
    importLlama2c(storiesBin(), storiesTokenizer(), dir / "stories260K");
    return dir / "stories260K";
  }();
  return folder;
}

const LegacyModel& legacyStories() {
  static const LegacyModel model = readLegacy(storiesBin());
  return model;
}

std::vector<int32_t> encodeWithBos(const fs::path& tokenizerPath, const std::string& text) {
  return tokenizer::loadTokenizer(tokenizerPath)->encode(text, true);
}

at::Tensor backboneLogits(const Backbone& model, const std::vector<int32_t>& tokens) {
  const at::Tensor ids =
      at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end())).unsqueeze(0);
  CaptureRequest request;
  request.keepHidden = false;
  request.logits = true;
  return model.capture(ids, request).logits[0];
}

/** Expects `call` to throw an exception of type E whose message contains every needle. */
template <typename E, typename F>
void expectThrowNaming(F call, const std::vector<std::string>& needles) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one naming " << ::testing::PrintToString(needles);
  } catch (const E& error) {
    for (const std::string& needle : needles)
      EXPECT_NE(std::string(error.what()).find(needle), std::string::npos)
          << "'" << needle << "' not in: " << error.what();
  }
}

const char* const kHeldOutStory =
    "Once upon a time, there was a little dog named Max. Max liked to run in the park with his "
    "friend Sue. One day, Max saw a big red ball under a tree. He ran to the ball and pushed it "
    "with his nose. Sue laughed and said, \"Good dog, Max!\" They played with the ball all day. "
    "When the sun went down, they went home. Max was tired but happy.";

// ---------------------------------------------------------------------------------------------

TEST(Llama2cImport, WritesAHuggingFaceLlamaFolderForStories260K) {
  REQUIRE_STORIES();
  const fs::path& folder = importedStories();
  for (const char* name : {"config.json", "model.safetensors", "tokenizer.json",
                           "tokenizer_config.json", "tokenizer.bin"})
    EXPECT_TRUE(fs::exists(folder / name)) << name;
  const io::ModelConfig c = io::readModelConfig(folder / "config.json");
  EXPECT_EQ(c.architectureName, "LlamaForCausalLM");
  EXPECT_EQ(c.hiddenSize, 64);
  EXPECT_EQ(c.intermediateSize, 172);
  EXPECT_EQ(c.numLayers, 5);
  EXPECT_EQ(c.numHeads, 8);
  EXPECT_EQ(c.numKeyValueHeads, 4);
  EXPECT_EQ(c.headDim, 8);
  EXPECT_EQ(c.vocabSize, 512);
  EXPECT_EQ(c.maxPositions, 512);
  EXPECT_TRUE(c.tieWordEmbeddings);
  EXPECT_DOUBLE_EQ(c.normEps, 1e-5);
  EXPECT_DOUBLE_EQ(c.ropeTheta, 10000.0);
  EXPECT_EQ(c.bosTokenIds, std::vector<int64_t>{1});
  EXPECT_EQ(c.eosTokenIds, (std::vector<int64_t>{2, 1}));  // run.c stops at BOS
  EXPECT_EQ(readBytes(folder / "tokenizer.bin"), readBytes(storiesTokenizer()));
  const auto weights = io::SafetensorsFile::open(folder / "model.safetensors");
  EXPECT_EQ(weights->find("lm_head.weight"), nullptr) << "a shared classifier is not written";
  EXPECT_EQ(weights->tensors().size(), 2u + 9u * 5u);
  // No temporary folder is left next to the output.
  for (const auto& entry : fs::directory_iterator(folder.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".tmp"), std::string::npos) << entry.path();
}

TEST(Llama2cImport, PermutesQueryAndKeyRowsAsConvertLlamaWeightsToHf) {
  REQUIRE_STORIES();
  const LegacyModel& m = legacyStories();
  const auto weights = io::SafetensorsFile::open(importedStories() / "model.safetensors");
  const int64_t hs = m.headSize();
  for (int64_t l = 0; l < m.layers; ++l) {
    const std::string prefix = "model.layers." + std::to_string(l) + ".self_attn.";
    const at::Tensor q = tensorView(weights, weights->at(prefix + "q_proj.weight"));
    const at::Tensor k = tensorView(weights, weights->at(prefix + "k_proj.weight"));
    // Row r = head·hs + half·(hs/2) + i of HF's layout is llama2.c's row head·hs + 2i + half.
    for (int64_t head = 0; head < m.heads; ++head)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t i = 0; i < hs / 2; ++i) {
          const int64_t hf = head * hs + half * (hs / 2) + i, original = head * hs + 2 * i + half;
          ASSERT_TRUE(at::equal(q[hf], m.wq[l][original])) << "layer " << l << " q row " << hf;
          if (head < m.kvHeads) {
            ASSERT_TRUE(at::equal(k[hf], m.wk[l][original])) << "layer " << l << " k row " << hf;
          }
        }
    EXPECT_TRUE(at::equal(tensorView(weights, weights->at(prefix + "v_proj.weight")), m.wv[l]));
  }
}

TEST(Llama2cImport, LogitsEqualAnIndependentLlama2cForwardPass) {
  REQUIRE_STORIES();
  const auto model = Backbone::load(importedStories());
  const std::vector<int32_t> tokens = encodeWithBos(storiesTokenizer(), kHeldOutStory);
  ASSERT_GT(tokens.size(), 60u);
  const at::Tensor expected = referenceLogits(legacyStories(), tokens);
  const at::Tensor actual = backboneLogits(*model, tokens);
  ASSERT_EQ(actual.sizes(), expected.sizes());
  const double difference = (actual - expected).abs().max().item<double>();
  EXPECT_LT(difference, 1e-4) << "max |logit difference| over " << tokens.size() << " positions";
  EXPECT_GT(expected.abs().max().item<double>(), 1.0) << "logits should not be trivially small";
}

TEST(Llama2cImport, GenerationStopsAtBosAsRunCDoes) {
  REQUIRE_STORIES();
  const auto model = Backbone::load(importedStories());
  const auto tokenizer = tokenizer::loadTokenizer(importedStories());
  const std::vector<int32_t> prompt = tokenizer->encode("Once upon a time", true);
  GenerationConfig config;
  config.maxNewTokens = 480;  // the greedy story ends (BOS) after ~340 tokens, inside the context
  const std::vector<int32_t> story = generate(*model, prompt, config);
  ASSERT_FALSE(story.empty());
  ASSERT_LT(story.size(), 480u) << "the story never ended";
  EXPECT_EQ(story.back(), 1) << "generation stops on BOS, as run.c's `if (next == 1) break;`";
  EXPECT_EQ(std::count(story.begin(), story.end(), 1), 1);
  // run.c's own choice at that position, from the reference forward pass on the original weights.
  std::vector<int32_t> context = prompt;
  context.insert(context.end(), story.begin(), story.end() - 1);
  EXPECT_EQ(referenceLogits(legacyStories(), context)[-1].argmax().item<int64_t>(), 1);

  // Without the stop, decoding runs past the story's end.
  config.stopAtEos = false;
  config.maxNewTokens = static_cast<int>(story.size()) + 8;
  const std::vector<int32_t> unstopped = generate(*model, prompt, config);
  ASSERT_EQ(unstopped.size(), story.size() + 8);
  EXPECT_TRUE(std::equal(story.begin(), story.end(), unstopped.begin()));
}

TEST(Llama2cImport, GreedyStoryIsFluentAndEqualsTheReferenceForwardPass) {
  REQUIRE_STORIES();
  const auto model = Backbone::load(importedStories());
  const auto tokenizer = tokenizer::loadTokenizer(importedStories());
  const std::vector<int32_t> prompt = tokenizer->encode("Once upon a time", true);
  GenerationConfig config;
  config.maxNewTokens = 48;
  const std::vector<int32_t> continuation = generate(*model, prompt, config);
  ASSERT_GE(continuation.size(), 20u);

  // The same greedy decoding with the reference forward pass on the original weights.
  std::vector<int32_t> context = prompt, reference;
  for (size_t step = 0; step < continuation.size(); ++step) {
    const at::Tensor logits = referenceLogits(legacyStories(), context);
    const auto next = static_cast<int32_t>(logits[-1].argmax().item<int64_t>());
    reference.push_back(next);
    context.push_back(next);
  }
  EXPECT_EQ(continuation, reference);

  const std::string text = tokenizer->decode(continuation, true);
  std::istringstream words(text);
  int total = 0, alphabetic = 0;
  std::set<std::string> seen;
  for (std::string word; words >> word;) {
    while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.back()))) word.pop_back();
    while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.front())))
      word.erase(0, 1);
    if (word.empty()) continue;
    ++total;
    bool letters = true;
    for (const char ch : word)
      letters = letters && (std::isalpha(static_cast<unsigned char>(ch)) || ch == '\'');
    alphabetic += letters ? 1 : 0;
    seen.insert(word);
  }
  EXPECT_GE(total, 15) << text;
  EXPECT_GE(alphabetic, total * 9 / 10) << text;
  int storyWords = 0;
  for (const char* common : {"the", "was", "She", "He", "and", "a"})
    storyWords += seen.count(common) ? 1 : 0;
  EXPECT_GE(storyWords, 3) << text;
  std::cout << "[ greedy   ] Once upon a time" << text << "\n";
}

TEST(Llama2cImport, NextTokenLossOnAHeldOutStoryIsFarBelowUniform) {
  REQUIRE_STORIES();
  const auto model = Backbone::load(importedStories());
  const std::vector<int32_t> tokens = encodeWithBos(importedStories(), kHeldOutStory);
  const at::Tensor logits = backboneLogits(*model, tokens);
  const int64_t T = static_cast<int64_t>(tokens.size());
  const at::Tensor targets = at::tensor(std::vector<int64_t>(tokens.begin() + 1, tokens.end()));
  const at::Tensor logProbabilities = logits.slice(0, 0, T - 1).log_softmax(-1);
  const double loss = -logProbabilities.gather(1, targets.unsqueeze(1)).mean().item<double>();
  std::cout << "[ loss     ] held-out story: " << loss << " nats/token over " << T - 1
            << " tokens (uniform: " << std::log(512.0) << ")\n";
  EXPECT_LT(loss, 3.0);
}

// ----- tokenizer.json against tokenizer.bin -------------------------------------------------

TEST(Llama2cImport, TokenizerJsonEncodesShakespeareLikeTokenizerBin) {
  REQUIRE_STORIES();
  const fs::path corpus = fs::path(STRATA_SHARED_DATA_DIR) / "corpora" / "tinyshakespeare.txt";
  ASSERT_TRUE(fs::exists(corpus)) << "missing test data file: " << corpus;
  const auto json = tokenizer::loadTokenizer(importedStories());  // tokenizer.json comes first
  const auto bin = tokenizer::loadLlama2cTokenizer(storiesTokenizer());
  ASSERT_NE(json->kind().find("tokenizer.json"), std::string::npos) << json->kind();
  EXPECT_EQ(json->vocabSize(), 512);
  EXPECT_EQ(json->bosId(), 1);
  EXPECT_EQ(json->eosId(), 2);

  std::istringstream lines(readBytes(corpus));
  std::vector<std::string> cases;
  for (std::string line; cases.size() < 400 && std::getline(lines, line);)
    if (!line.empty()) cases.push_back(line);
  // Whitespace and bytes the vocabulary lacks (byte fallback), and a multi-line chunk.
  for (const char* extra : {"  two leading spaces and\ttab\nnewline", "trailing spaces  ",
                            "caf\xC3\xA9 na\xC3\xAFve \xE2\x80\x94 \xE4\xBD\xA0\xE5\xA5\xBD",
                            "emoji \xF0\x9F\x98\x80!", " ", "a", ""})
    cases.emplace_back(extra);
  cases.push_back(readBytes(corpus).substr(0, 3000));
  size_t mismatches = 0;
  for (const std::string& text : cases)
    for (const bool bos : {false, true}) {
      const auto expected = bin->encode(text, bos);
      const auto actual = json->encode(text, bos);
      if (actual != expected && ++mismatches <= 5)
        ADD_FAILURE() << "encode differs (bos " << bos << ") for \"" << text << "\"";
      EXPECT_EQ(json->decode(actual, true), bin->decode(expected, true)) << text;
    }
  EXPECT_EQ(mismatches, 0u) << "of " << 2 * cases.size() << " encodings";
}

TEST(Llama2cImport, TokenizerJsonTreatsSpecialTokenTextAsHuggingFaceDoes) {
  // The one documented difference: HF splits added tokens out of the text, run.c spells them.
  REQUIRE_STORIES();
  const auto json = tokenizer::loadTokenizer(importedStories());
  const auto bin = tokenizer::loadLlama2cTokenizer(storiesTokenizer());
  const auto fromJson = json->encode("Hi <s> there", false);
  const auto fromBin = bin->encode("Hi <s> there", false);
  EXPECT_NE(std::find(fromJson.begin(), fromJson.end(), 1), fromJson.end());
  EXPECT_EQ(std::find(fromBin.begin(), fromBin.end(), 1), fromBin.end());
}

// ----- versioned layouts and the unshared classifier ----------------------------------------

void expectSameWeights(const Llama2cWeights& a, const Llama2cWeights& b, double tolerance) {
  const std::vector<std::pair<const char*, at::Tensor Llama2cWeights::*>> fields{
      {"tokenEmbedding", &Llama2cWeights::tokenEmbedding},
      {"rmsAttention", &Llama2cWeights::rmsAttention},
      {"wq", &Llama2cWeights::wq},
      {"wk", &Llama2cWeights::wk},
      {"wv", &Llama2cWeights::wv},
      {"wo", &Llama2cWeights::wo},
      {"rmsFfn", &Llama2cWeights::rmsFfn},
      {"w1", &Llama2cWeights::w1},
      {"w2", &Llama2cWeights::w2},
      {"w3", &Llama2cWeights::w3},
      {"rmsFinal", &Llama2cWeights::rmsFinal},
      {"classifier", &Llama2cWeights::classifier}};
  for (const auto& [name, field] : fields) {
    const at::Tensor &x = a.*field, &y = b.*field;
    ASSERT_EQ(x.defined(), y.defined()) << name;
    if (!x.defined()) continue;
    ASSERT_EQ(x.sizes(), y.sizes()) << name;
    if (tolerance == 0)
      EXPECT_TRUE(at::equal(x, y)) << name;
    else
      EXPECT_LE((x - y).abs().max().item<double>(), tolerance * y.abs().max().item<double>())
          << name;
  }
}

TEST(Llama2cImport, ReadsTheLegacyLayoutAsRunCDoes) {
  REQUIRE_STORIES();
  const Llama2cCheckpoint checkpoint = readLlama2cCheckpoint(storiesBin());
  const LegacyModel& m = legacyStories();
  EXPECT_EQ(checkpoint.config.version, 0);
  EXPECT_TRUE(checkpoint.config.sharedClassifier);
  EXPECT_TRUE(at::equal(checkpoint.weights.wq, m.wq));
  EXPECT_TRUE(at::equal(checkpoint.weights.w2, m.w2));
  EXPECT_TRUE(at::equal(checkpoint.weights.rmsFinal, m.rmsFinal));
  EXPECT_FALSE(checkpoint.weights.classifier.defined());
}

TEST(Llama2cImport, Version1FileGivesIdenticalTensors) {
  REQUIRE_STORIES();
  TempDir dir;
  writeBytes(dir / "v1.bin", version1Bytes(legacyStories()));
  const Llama2cCheckpoint v1 = readLlama2cCheckpoint(dir / "v1.bin");
  const Llama2cCheckpoint v0 = readLlama2cCheckpoint(storiesBin());
  EXPECT_EQ(v1.config.version, 1);
  EXPECT_EQ(v1.config.dim, 64);
  EXPECT_TRUE(v1.config.sharedClassifier);
  expectSameWeights(v1.weights, v0.weights, 0);
  importLlama2c(dir / "v1.bin", storiesTokenizer(), dir / "out");
  const auto a = io::SafetensorsFile::open(dir / "out" / "model.safetensors");
  const auto b = io::SafetensorsFile::open(importedStories() / "model.safetensors");
  ASSERT_EQ(a->tensors().size(), b->tensors().size());
  for (const io::TensorEntry& entry : b->tensors())
    EXPECT_TRUE(at::equal(tensorView(a, a->at(entry.name)), tensorView(b, entry))) << entry.name;
}

TEST(Llama2cImport, Version2Q80FileDequantisesWithinTheQuantisationStep) {
  REQUIRE_STORIES();
  TempDir dir;
  const LegacyModel& m = legacyStories();
  writeBytes(dir / "v2.bin", version2Bytes(m, 64));
  const Llama2cCheckpoint v2 = readLlama2cCheckpoint(dir / "v2.bin");
  EXPECT_EQ(v2.config.version, 2);
  EXPECT_EQ(v2.config.groupSize, 64);
  // Norms stay float32; each quantised value is within half a step (max|group| / 127 / 2).
  EXPECT_TRUE(at::equal(v2.weights.rmsAttention, m.rmsAtt));
  EXPECT_TRUE(at::equal(v2.weights.rmsFinal, m.rmsFinal));
  for (const auto& [got, original] :
       std::vector<std::pair<at::Tensor, at::Tensor>>{{v2.weights.tokenEmbedding, m.embedding},
                                                      {v2.weights.wq, m.wq},
                                                      {v2.weights.wk, m.wk},
                                                      {v2.weights.w1, m.w1},
                                                      {v2.weights.w2, m.w2}}) {
    const at::Tensor groups = original.reshape({-1, 64});
    const at::Tensor halfStep = std::get<0>(groups.abs().max(1, true)) / 127.0 / 2.0;
    const at::Tensor error = (got.reshape({-1, 64}) - groups).abs();
    EXPECT_TRUE((error <= halfStep * 1.0001 + 1e-7).all().item<bool>())
        << "max error " << error.max().item<double>();
    EXPECT_GT(error.max().item<double>(), 0.0) << "Q8_0 should not be lossless here";
  }
  const auto result = importLlama2c(dir / "v2.bin", storiesTokenizer(), dir / "out");
  EXPECT_EQ(result.config.version, 2);
  EXPECT_NO_THROW(Backbone::load(dir / "out"));
}

TEST(Llama2cImport, NegativeVocabSizeMeansAnUnsharedClassifier) {
  REQUIRE_STORIES();
  TempDir dir;
  LegacyModel m = legacyStories();
  m.shared = false;
  m.classifier = m.embedding.flip(1) * 0.5;  // anything but the embedding
  writeBytes(dir / "unshared.bin", legacyBytes(m));
  importLlama2c(dir / "unshared.bin", storiesTokenizer(), dir / "out");
  EXPECT_FALSE(io::readModelConfig(dir / "out" / "config.json").tieWordEmbeddings);
  const auto weights = io::SafetensorsFile::open(dir / "out" / "model.safetensors");
  ASSERT_NE(weights->find("lm_head.weight"), nullptr);
  EXPECT_TRUE(at::equal(tensorView(weights, weights->at("lm_head.weight")), m.classifier));
  const auto model = Backbone::load(dir / "out");
  const std::vector<int32_t> tokens = encodeWithBos(storiesTokenizer(), "Tom had a red ball.");
  const double difference =
      (backboneLogits(*model, tokens) - referenceLogits(m, tokens)).abs().max().item<double>();
  EXPECT_LT(difference, 1e-4);
}

// ----- malformed inputs ----------------------------------------------------------------------

TEST(Llama2cImport, TruncatedCheckpointIsAFormatErrorWithExpectedAndFoundSizes) {
  REQUIRE_STORIES();
  TempDir dir;
  const std::string bytes = readBytes(storiesBin());
  writeBytes(dir / "cut.bin", bytes.substr(0, bytes.size() - 100));
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "cut.bin"); },
                                 {(dir / "cut.bin").string(), "expected 1056540",
                                  std::to_string(bytes.size() - 100), "truncated"});
  writeBytes(dir / "header.bin", bytes.substr(0, 20));
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "header.bin"); },
                                 {(dir / "header.bin").string(), "28-byte header"});
  writeBytes(dir / "v1cut.bin", version1Bytes(legacyStories()).substr(0, 300));
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "v1cut.bin"); },
                                 {(dir / "v1cut.bin").string(), "version 1", "truncated"});
}

TEST(Llama2cImport, WrongSizeCheckpointIsAFormatError) {
  REQUIRE_STORIES();
  TempDir dir;
  const LegacyModel& m = legacyStories();
  writeBytes(dir / "long.bin", readBytes(storiesBin()) + std::string(8, '\0'));
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "long.bin"); },
                                 {(dir / "long.bin").string(), "1056548", "expected 1056540"});
  // A classifier after the weights while the header says shared (positive vocab_size).
  std::string withClassifier = readBytes(storiesBin());
  appendFloats(withClassifier, m.embedding);
  writeBytes(dir / "extra.bin", withClassifier);
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "extra.bin"); },
                                 {(dir / "extra.bin").string(), "unshared classifier"});
  // Bad header fields: 7 heads do not divide dim 64; version 3 does not exist.
  std::string badHeads = readBytes(storiesBin());
  const int32_t seven = 7;
  std::memcpy(badHeads.data() + 12, &seven, 4);
  writeBytes(dir / "heads.bin", badHeads);
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "heads.bin"); },
                                 {(dir / "heads.bin").string(), "n_heads"});
  std::string version3 = version1Bytes(m);
  const int32_t three = 3;
  std::memcpy(version3.data() + 4, &three, 4);
  writeBytes(dir / "v3.bin", version3);
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "v3.bin"); },
                                 {(dir / "v3.bin").string(), "version 3"});
  // A Q8_0 group size that does not divide the tensors.
  std::string badGroup = version2Bytes(m, 64);
  const int32_t group = 3;
  std::memcpy(badGroup.data() + 37, &group, 4);
  writeBytes(dir / "group.bin", badGroup);
  expectThrowNaming<FormatError>([&] { readLlama2cCheckpoint(dir / "group.bin"); },
                                 {(dir / "group.bin").string(), "group size 3"});
}

TEST(Llama2cImport, TokenizerWithAnotherVocabularySizeIsRefusedNamingIt) {
  REQUIRE_STORIES();
  TempDir dir;
  // tok512.bin cut after its first 300 tokens: a valid tokenizer.bin of the wrong size.
  const std::string bytes = readBytes(storiesTokenizer());
  size_t offset = 4;
  for (int token = 0; token < 300; ++token) {
    int32_t length = 0;
    std::memcpy(&length, bytes.data() + offset + 4, 4);
    offset += 8 + static_cast<size_t>(length);
  }
  writeBytes(dir / "tok300.bin", bytes.substr(0, offset));
  expectThrowNaming<FormatError>(
      [&] { importLlama2c(storiesBin(), dir / "tok300.bin", dir / "out"); },
      {(dir / "tok300.bin").string(), "300 tokens", "vocab_size 512"});
  EXPECT_FALSE(fs::exists(dir / "out"));
  writeBytes(dir / "tokcut.bin", bytes.substr(0, bytes.size() - 3));
  expectThrowNaming<FormatError>(
      [&] { importLlama2c(storiesBin(), dir / "tokcut.bin", dir / "out"); },
      {(dir / "tokcut.bin").string()});
  EXPECT_FALSE(fs::exists(dir / "out"));
}

TEST(Llama2cImport, RefusesANonEmptyOutputFolderUnlessForced) {
  REQUIRE_STORIES();
  TempDir dir;
  fs::create_directories(dir / "out");
  writeBytes(dir / "out" / "keep.txt", "precious");
  expectThrowNaming<Error>([&] { importLlama2c(storiesBin(), storiesTokenizer(), dir / "out"); },
                           {(dir / "out").string(), "not empty", "--force"});
  EXPECT_EQ(readBytes(dir / "out" / "keep.txt"), "precious");
  Llama2cImportOptions force;
  force.force = true;
  importLlama2c(storiesBin(), storiesTokenizer(), dir / "out/", force);
  EXPECT_FALSE(fs::exists(dir / "out" / "keep.txt"));
  EXPECT_TRUE(fs::exists(dir / "out" / "model.safetensors"));
  // An existing empty folder is simply filled; nothing but the outputs is left behind.
  fs::create_directories(dir / "empty");
  importLlama2c(storiesBin(), storiesTokenizer(), dir / "empty");
  EXPECT_TRUE(fs::exists(dir / "empty" / "config.json"));
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"empty", "out"}));
}

// ----- strata-cli import-llama2c --------------------------------------------------------------

using CliResult = testing::CommandOutput;
using testing::runCli;

TEST(CliImportLlama2c, WritesTheFolderAndRefusesToOverwriteWithoutForce) {
  REQUIRE_STORIES();
  TempDir dir;
  const std::string arguments = "import-llama2c " + storiesBin().string() + " " +
                                storiesTokenizer().string() + " " + (dir / "out").string();
  const CliResult first = runCli(arguments);
  ASSERT_EQ(first.exitCode, 0) << first.out;
  EXPECT_NE(first.out.find("dim 64, hidden 172, 5 layers, 8 heads (4 key/value), vocab 512"),
            std::string::npos)
      << first.out;
  EXPECT_EQ(io::readModelConfig(dir / "out" / "config.json").numLayers, 5);
  const CliResult again = runCli(arguments);
  EXPECT_EQ(again.exitCode, 1) << again.out;
  EXPECT_NE(again.out.find("--force"), std::string::npos) << again.out;
  EXPECT_EQ(runCli(arguments + " --force").exitCode, 0);
  const CliResult wrong = runCli("import-llama2c " + storiesTokenizer().string() + " " +
                                 storiesTokenizer().string() + " " + (dir / "x").string());
  EXPECT_EQ(wrong.exitCode, 1) << wrong.out;
  EXPECT_NE(wrong.out.find(storiesTokenizer().string()), std::string::npos) << wrong.out;
  EXPECT_EQ(runCli("import-llama2c " + storiesBin().string()).exitCode, 2);
}

TEST(CliImportLlama2c, IsListedInTheCommandOverview) {
  // "import-llama2c" is longer than the 12 columns main.cpp's overview pads command names to.
  const CliResult result = runCli("--help");
  EXPECT_EQ(result.exitCode, 0) << result.out;
  EXPECT_NE(result.out.find("  import-llama2c "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  generate "), std::string::npos) << result.out;
}

}  // namespace
}  // namespace strata::model
