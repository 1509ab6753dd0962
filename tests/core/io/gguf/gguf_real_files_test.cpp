// The GGUF reader and dequantiser on the two real files (tests/support/real_gguf_models.h):
// what gguf-py reads from them, and every tensor dequantised bit for bit as
// gguf.quants.dequantize does (compared through SHA-256 digests of the float32 bytes, made by
// tests/python/gguf_dequantize_digests.py). Skips, naming what is missing, without Strata's
// Python environment or the model packages.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "io/corpus/corpus_hash.h"
#include "io/gguf/gguf_dequantize.h"
#include "io/gguf/gguf_file.h"
#include "io/gguf/gguf_model_plan.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"
#include "support/temp_dir.h"

namespace strata::io {

namespace {

class RealGgufFiles : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why;
    m_python = testing::findPython({"numpy", "gguf"}, "run scripts/setup.sh", why);
    if (m_python.empty()) GTEST_SKIP() << "no Python with gguf: " << why;
    m_file = testing::realGgufFile(m_python, GetParam(), why);
    if (m_file.empty()) GTEST_SKIP() << why;
  }
  std::string m_python;
  std::filesystem::path m_file;
};

TEST_P(RealGgufFiles, HeaderHoldsWhatTheModelIs) {
  const GgufFile gguf(m_file);
  EXPECT_EQ(gguf.version(), 3u);
  if (GetParam() == "smollm2") {
    EXPECT_EQ(gguf.string("general.architecture"), "llama");
    EXPECT_EQ(gguf.tensors().size(), 272u);  // 30 blocks × 9 + embedding + output norm
    EXPECT_EQ(gguf.integer("llama.block_count"), 30);
    EXPECT_EQ(gguf.integer("llama.attention.head_count_kv"), 3);
    EXPECT_EQ(gguf.stringArray("tokenizer.ggml.tokens").size(), 49152u);
    EXPECT_EQ(gguf.findTensor("token_embd.weight")->shape, (std::vector<int64_t>{49152, 576}));
    EXPECT_EQ(ggmlTypeName(gguf.findTensor("blk.0.attn_q.weight")->typeId), "Q4_1");
  } else {
    EXPECT_EQ(gguf.string("general.architecture"), "gemma3");
    EXPECT_EQ(gguf.integer("gemma3.block_count"), 18);
    EXPECT_EQ(gguf.integer("gemma3.attention.key_length"), 256);
    EXPECT_EQ(gguf.integer("gemma3.attention.sliding_window"), 512);
    EXPECT_EQ(gguf.stringArray("tokenizer.ggml.tokens").size(), 262144u);
    EXPECT_EQ(gguf.numberArray("tokenizer.ggml.scores").size(), 262144u);
  }
  const GgufModelPlan plan = planGgufModel(gguf);
  EXPECT_EQ(plan.tensors.size(), gguf.tensors().size());  // every tensor has its HF name
  EXPECT_TRUE(plan.warnings.empty()) << plan.warnings.front();
}

TEST_P(RealGgufFiles, EveryTensorDequantisesBitForBitAsGgufPy) {
  TempDir dir;
  const auto digests = dir.path() / "digests.json";
  const std::string command = m_python +
                              " '" STRATA_SOURCE_DIR "/tests/python/gguf_dequantize_digests.py' '" +
                              m_file.string() + "' '" + digests.string() + "'";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  const auto expected = nlohmann::json::parse(std::ifstream(digests));
  const GgufFile gguf(m_file);
  ASSERT_EQ(expected.size(), gguf.tensors().size());
  std::map<std::string, int> checkedByType;
  for (const GgufTensorInfo& t : gguf.tensors()) {
    std::vector<float> values(t.elementCount);
    dequantizeGgml(t.typeId, gguf.tensorData(t), values, m_file, t.name, 2);
    const std::string_view bytes(reinterpret_cast<const char*>(values.data()),
                                 values.size() * sizeof(float));
    ASSERT_TRUE(expected.contains(t.name)) << t.name;
    EXPECT_EQ(sha256Hex(bytes), expected[t.name]["sha256"].get<std::string>())
        << t.name << " (" << ggmlTypeName(t.typeId) << ") differs from gguf-py";
    ++checkedByType[ggmlTypeName(t.typeId)];
  }
  for (const auto& [type, count] : checkedByType)
    std::cout << "  " << GetParam() << ": " << count << " " << type << " tensors bit-exact\n";
}

INSTANTIATE_TEST_SUITE_P(Gguf, RealGgufFiles, ::testing::ValuesIn(testing::kRealGgufModels));

}  // namespace
}  // namespace strata::io
