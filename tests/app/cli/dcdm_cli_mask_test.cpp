// `strata-cli mask` as a user runs it: bdlm's printed training mask is BD3-LM's block_diff_mask
// (bd3lm_reference.h), mdlm's noisy stream sees every noisy token and nothing clean, and dcdm
// without a trained run fails saying what it needs. (dcdm with a run: dcdm_recipe_test.cpp.)

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "support/bd3lm_reference.h"
#include "support/cli_runner.h"

namespace strata {
namespace {

TEST(CliMask, BdlmJsonIsBd3lmsBlockDiffMask) {
  for (const auto& [length, blockSize] :
       std::vector<std::pair<int64_t, int64_t>>{{8, 4}, {7, 3}, {5, 8}}) {
    const auto result =
        testing::runCliSplit("mask --variant bdlm --seq-len " + std::to_string(length) +
                             " --block-size " + std::to_string(blockSize) + " --json");
    ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
    const auto json = nlohmann::json::parse(result.out);
    EXPECT_EQ(json["order"], nlohmann::json({"noisy", "clean"}));
    ASSERT_EQ(json["chunk_ids"].size(), static_cast<size_t>(length));
    for (int64_t l = 0; l < length; ++l) EXPECT_EQ(json["chunk_ids"][l], l / blockSize);
    const auto& mask = json["mask"];
    ASSERT_EQ(mask.size(), static_cast<size_t>(2 * length));
    for (int64_t q = 0; q < 2 * length; ++q) {
      ASSERT_EQ(mask[q].size(), static_cast<size_t>(2 * length));
      for (int64_t kv = 0; kv < 2 * length; ++kv)
        ASSERT_EQ(mask[q][kv].get<int>(),
                  testing::bd3lmBlockDiffMask(q, kv, blockSize, length) ? 1 : 0)
            << "L " << length << " B " << blockSize << " q " << q << " kv " << kv;
    }
  }
}

TEST(CliMask, MdlmNoisyStreamSeesAllNoisyTokensAndNothingClean) {
  const auto result = testing::runCliSplit("mask --variant mdlm --seq-len 5 --json");
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  for (int q = 0; q < 5; ++q)
    for (int kv = 0; kv < 10; ++kv)
      EXPECT_EQ(json["mask"][q][kv].get<int>(), kv < 5 ? 1 : 0) << q << " " << kv;
  EXPECT_EQ(json["chunk_ids"], nlohmann::json({0, 0, 0, 0, 0}));
}

TEST(CliMask, TextPictureAndClearErrors) {
  const auto picture = testing::runCli("mask --variant bdlm --seq-len 4 --block-size 2");
  ASSERT_EQ(picture.exitCode, 0) << picture.out;
  EXPECT_NE(picture.out.find("chunk ids: 0 0 1 1"), std::string::npos) << picture.out;
  EXPECT_NE(picture.out.find("noisy    2 c1   ..##|##.."), std::string::npos) << picture.out;
  const auto dcdm = testing::runCli("mask --variant dcdm --seq-len 8");
  EXPECT_EQ(dcdm.exitCode, 2) << dcdm.out;
  EXPECT_NE(dcdm.out.find("--model"), std::string::npos) << dcdm.out;
  const auto noLength = testing::runCli("mask --variant bdlm");
  EXPECT_EQ(noLength.exitCode, 2) << noLength.out;
  EXPECT_NE(noLength.out.find("--seq-len"), std::string::npos) << noLength.out;
  const auto notARun = testing::runCli("mask --variant dcdm --model /nonexistent/run --text abc");
  EXPECT_NE(notARun.exitCode, 0) << notARun.out;
  EXPECT_NE(notARun.out.find("/nonexistent/run"), std::string::npos) << notARun.out;
}

}  // namespace
}  // namespace strata
