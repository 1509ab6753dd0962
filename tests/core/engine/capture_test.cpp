// Capture writes, for every stored token, exactly the hidden state the backbone computes for
// it; a cancelled capture keeps its finished layers and --resume completes the store.

#include "engine/capture.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "common/error.h"
#include "common/job.h"
#include "io/corpus/corpus.h"
#include "io/hf/model_fingerprint.h"
#include "io/store/activation_store.h"
#include "model/backbone/backbone.h"
#include "support/letter_corpus.h"
#include "support/model_test_folders.h"
#include "support/temp_dir.h"
#include "tokenizer/tokenizer.h"

namespace strata::engine {

namespace {

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model = dir / "model";
    testing::writeRandomBackbone(model);
    testing::writeLetterTokenizer(model);
    corpus = dir / "corpus.txt";
    testing::writeLetterCorpus(corpus);
    config.modelFolder = model;
    config.corpus = corpus;
    config.output = dir / "acts.h5";
    config.dtype = io::StoreDType::Float32;
    config.computeDType = ComputeDType::Float32;  // compared with the backbone in float32
    config.sampling.sequenceLength = 24;
    config.sampling.tokenBudget = 150;
    config.batchSequences = 3;
  }

  TempDir dir;
  std::filesystem::path model, corpus;
  CaptureConfig config;
};

TEST_F(CaptureTest, StoresTheBackboneHiddenStateOfEveryStoredToken) {
  config.sampling.addBos = true;  // asked for explicitly: the rebuild below starts with BOS
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  const CaptureSummary summary = runCapture(config, job);
  EXPECT_EQ(summary.tokens, 150);
  EXPECT_EQ(summary.layersWritten, testing::kRandomLayers + 1);

  const io::ActivationStore store = io::ActivationStore::open(config.output);
  EXPECT_EQ(store.numTokens(), 150);
  EXPECT_EQ(store.meta().numLayers, testing::kRandomLayers);
  EXPECT_EQ(store.meta().architecture, "LlamaForCausalLM");
  EXPECT_EQ(static_cast<int64_t>(store.completedLayers().size()), testing::kRandomLayers + 1);
  EXPECT_EQ(store.meta().extra.at("bos_prepended"), "true");
  EXPECT_EQ(store.meta().extra.at("bos_rule"), "set by the caller");

  // Independent of the capture job: rebuild each stored token's sequence from its document
  // (BOS + the document ids from its piece's start up to it) and run the backbone on that
  // prefix alone. Not from the token table: a sequence's first positions are not stored when
  // an earlier sequence had the same prefix (io/corpus/token_sampler.h).
  const auto backbone = model::Backbone::load(model);
  const auto tokenizer = tokenizer::loadTokenizer(model);
  const io::TokenTable& tokens = store.tokens();
  std::vector<std::string> documents;
  for (const auto reader = io::CorpusReader::open(corpus); const auto document = reader->next();)
    documents.push_back(document->text);
  std::vector<std::vector<float>> layers;
  for (int64_t l = 0; l <= testing::kRandomLayers; ++l) layers.push_back(store.readLayer(l));
  // Documents are cut into pieces of T − 1 tokens (after the BOS), so a piece starts where
  // the position is a multiple of T − 1.
  const int32_t piece = static_cast<int32_t>(config.sampling.sequenceLength - 1);
  std::vector<std::size_t> rows{0, 57, 149};
  // And the first stored row of every sequence whose first rows were dropped as repeats: its
  // hidden state must still be that of its whole prefix.
  for (std::size_t row = 1; row < tokens.size(); ++row)
    if (tokens.position[row] % piece > 0 && (tokens.doc[row] != tokens.doc[row - 1] ||
                                             tokens.position[row] != tokens.position[row - 1] + 1))
      rows.push_back(row);
  EXPECT_GT(rows.size(), 3u) << "the letter corpus repeats no prefix any more";
  for (const std::size_t row : rows) {
    const int32_t position = tokens.position[row];
    const std::vector<int32_t> document = tokenizer->encode(documents.at(tokens.doc[row]));
    ASSERT_LT(static_cast<std::size_t>(position), document.size()) << "row " << row;
    ASSERT_EQ(document[position], tokens.ids[row]) << "row " << row;
    std::vector<int64_t> ids{*tokenizer->bosId()};
    for (int32_t i = position - position % piece; i <= position; ++i) ids.push_back(document[i]);
    const at::Tensor input = at::tensor(ids, at::kLong).unsqueeze(0);
    const model::CaptureResult expected = backbone->capture(input);
    for (int64_t l = 0; l <= testing::kRandomLayers; ++l) {
      const at::Tensor want = expected.hidden[l][0][static_cast<int64_t>(ids.size()) - 1];
      const at::Tensor got =
          at::from_blob(layers[l].data() + row * testing::kRandomHidden, {testing::kRandomHidden});
      EXPECT_TRUE(at::allclose(got, want, 1e-4, 1e-5)) << "row " << row << " layer " << l << "\n"
                                                       << got << "\n"
                                                       << want;
    }
  }
}

/** Cancels its token as soon as the job reports working on `layer`. */
class CancelAtLayer : public ProgressSink {
 public:
  CancelAtLayer(CancellationToken token, int layer)
      : m_token(token), m_stage("layer " + std::to_string(layer)) {}
  void progress(double, const std::string& stage) override {
    if (stage.rfind(m_stage + " ", 0) == 0) m_token.cancel();
  }
  void message(MessageLevel, const std::string&) override {}

 private:
  CancellationToken m_token;
  std::string m_stage;
};

TEST_F(CaptureTest, CancelledCaptureKeepsFinishedLayersAndResumes) {
  CancellationToken token;
  CancelAtLayer sink(token, 2);
  JobContext job(sink, token);
  EXPECT_THROW(runCapture(config, job), CancelledError);
  {
    const io::ActivationStore partial = io::ActivationStore::open(config.output);
    EXPECT_EQ(partial.completedLayers(), (std::vector<int64_t>{0, 1}));
  }

  config.resume = true;
  NullProgressSink quiet;
  JobContext resumed(quiet, CancellationToken());
  const CaptureSummary summary = runCapture(config, resumed);
  EXPECT_EQ(summary.layersKept, 2);
  EXPECT_EQ(summary.layersWritten, testing::kRandomLayers + 1 - 2);

  CaptureConfig fresh = config;
  fresh.resume = false;
  fresh.output = dir / "fresh.h5";
  JobContext again(quiet, CancellationToken());
  runCapture(fresh, again);
  const io::ActivationStore a = io::ActivationStore::open(config.output);
  const io::ActivationStore b = io::ActivationStore::open(fresh.output);
  for (int64_t l = 0; l <= testing::kRandomLayers; ++l)
    EXPECT_EQ(a.readLayer(l), b.readLayer(l)) << l;
}

TEST_F(CaptureTest, NonFiniteHiddenStatesStopTheCaptureNamingTheLayer) {
  testing::RandomBackboneSpec spec;
  spec.nanTensor = "model.layers.1.mlp.down_proj.weight";  // block 2: h_2 onwards is NaN
  testing::writeRandomBackbone(model, spec);
  NullProgressSink quiet;
  JobContext job(quiet, CancellationToken());
  try {
    runCapture(config, job);
    ADD_FAILURE() << "a NaN weight was captured into the store";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("layer 2: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NaN or infinite"), std::string::npos) << e.what();
  }
  const io::ActivationStore partial = io::ActivationStore::open(config.output);
  EXPECT_EQ(partial.completedLayers(), (std::vector<int64_t>{0, 1}));
  for (const int64_t l : {0, 1})
    for (const float value : partial.readLayer(l)) ASSERT_TRUE(std::isfinite(value));
}

TEST_F(CaptureTest, ResumeRefusesAStoreOfOtherTokens) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  config.resume = true;
  config.sampling.seed = 99;  // another sample
  try {
    runCapture(config, job);
    FAIL() << "resume with another sample must be refused";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find("other tokens"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(config.output.string()), std::string::npos);
  }
}

TEST_F(CaptureTest, ResumeRefusesAStoreOfAnotherModelOfTheSameShape) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  EXPECT_EQ(io::ActivationStore::open(config.output).meta().modelFingerprint,
            io::modelFingerprint(model));
  const std::filesystem::path tuned = dir / "tuned";
  testing::writeRandomBackbone(tuned, {.seed = 8});
  testing::writeLetterTokenizer(tuned);
  config.modelFolder = tuned;
  config.resume = true;
  try {
    runCapture(config, job);
    FAIL() << "resume with another model's weights must be refused";
  } catch (const FormatError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("weights differ"), std::string::npos) << message;
    EXPECT_NE(message.find(config.output.string()), std::string::npos) << message;
  }
}

TEST_F(CaptureTest, StreamedCaptureEqualsResidentCapture) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  CaptureConfig streamed = config;
  streamed.streamLayers = true;
  streamed.output = dir / "streamed.h5";
  runCapture(streamed, job);
  const io::ActivationStore a = io::ActivationStore::open(config.output);
  const io::ActivationStore b = io::ActivationStore::open(streamed.output);
  for (int64_t l = 0; l <= testing::kRandomLayers; ++l)
    EXPECT_EQ(a.readLayer(l), b.readLayer(l)) << l;
}

TEST_F(CaptureTest, RefusesToOverwriteAnExistingStore) {
  NullProgressSink sink;
  JobContext job(sink, CancellationToken());
  runCapture(config, job);
  EXPECT_THROW(runCapture(config, job), Error);
  config.overwrite = true;
  EXPECT_NO_THROW(runCapture(config, job));
}

}  // namespace
}  // namespace strata::engine

namespace strata::engine {

TEST(CaptureWriteThreads, FollowTheComputeThreadsUnlessGiven) {
  const int before = at::get_num_threads();
  at::set_num_threads(1);  // as STRATA_THREADS=1 or a one-CPU taskset leaves it
  const int followed = storeWriteThreads(0);
  const int given = storeWriteThreads(5);
  at::set_num_threads(before);
  EXPECT_EQ(followed, 1) << "0 must follow the compute threads, not the machine's cores";
  EXPECT_EQ(given, 5);
}

}  // namespace strata::engine
