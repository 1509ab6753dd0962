// `strata-cli verify`: the JSON shape, and the exit codes without transformers or a loadable model.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_runner.h"
#include "support/temp_dir.h"
#include "support/transformers_checkpoint.h"

namespace strata {
namespace {

using testing::CommandOutput;

TEST(CliVerify, JsonHasTheDocumentedShape) {
  TempDir dir;
  std::string why;
  const std::string python = testing::transformersPython(why);
  ASSERT_FALSE(python.empty()) << why;
  const std::string failure = testing::saveRandomCheckpoint(python, dir / "model", "llama");
  ASSERT_TRUE(failure.empty()) << failure;

  const CommandOutput result =
      testing::runCliSplit("verify --json --python " + python + " " + (dir / "model").string());
  ASSERT_EQ(result.exitCode, 0) << result.out << result.err;
  const auto json = nlohmann::json::parse(result.out);
  ASSERT_TRUE(json["layers"].is_array());
  ASSERT_EQ(json["layers"].size(), 4u);  // h_0 … h_3
  for (std::size_t l = 0; l < json["layers"].size(); ++l) {
    const auto& layer = json["layers"][l];
    EXPECT_EQ(layer["layer"], l);
    EXPECT_TRUE(layer["max_abs"].is_number());
    EXPECT_LT(layer["max_rel"].get<double>(), 1e-5);
  }
  EXPECT_EQ(json["top1_agreement"], 1.0);
  EXPECT_EQ(json["tokens_equal"], true);
  EXPECT_TRUE(json["transformers_version"].is_string());
  EXPECT_FALSE(json["transformers_version"].get<std::string>().empty());
  EXPECT_LT(json["final_norm"]["max_rel"].get<double>(), 1e-5);
  EXPECT_EQ(json["agrees"], true);
  EXPECT_EQ(json["compute_dtype"], "float32");
  // The bf16 check, made by default: Strata in bf16 against transformers' float32, beside
  // transformers' own bf16.
  const auto& bf16 = json["bfloat16"];
  ASSERT_TRUE(bf16.is_object()) << result.out;
  EXPECT_EQ(bf16["compute_dtype"], "bfloat16");
  EXPECT_EQ(bf16["agrees"], true);
  EXPECT_EQ(bf16["layers"].size(), 4u);
  EXPECT_EQ(bf16["transformers_bf16"]["layers"].size(), 4u);
  EXPECT_TRUE(bf16["transformers_bf16"]["top1_agreement"].is_number());

  const CommandOutput fp32 = testing::runCliSplit("verify --json --fp32-only --python " + python +
                                                  " " + (dir / "model").string());
  ASSERT_EQ(fp32.exitCode, 0) << fp32.err;
  EXPECT_FALSE(nlohmann::json::parse(fp32.out).contains("bfloat16"));
}

TEST(CliVerify, WithoutTransformersExitsThreeNamingThePython) {
  TempDir dir;
  const std::filesystem::path fake = dir / "python-without-transformers";
  std::ofstream(fake) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(fake, std::filesystem::perms::owner_exec,
                               std::filesystem::perm_options::add);
  const CommandOutput result = testing::runCli("verify --python " + fake.string() +
                                               " " STRATA_SOURCE_DIR "/resources/models/default");
  EXPECT_EQ(result.exitCode, 3) << result.out;
  EXPECT_NE(result.out.find("transformers is not installed for " + fake.string() +
                            ": run scripts/setup.sh or pass --python"),
            std::string::npos)
      << result.out;
}

TEST(CliVerify, AFolderStrataCannotLoadExitsOneNamingIt) {
  TempDir dir;
  std::filesystem::create_directories(dir / "bert");
  std::ofstream(dir / "bert" / "config.json") << R"({"architectures": ["BertModel"]})";
  const CommandOutput result = testing::runCli("verify " + (dir / "bert").string());
  EXPECT_EQ(result.exitCode, 1) << result.out;
  EXPECT_NE(result.out.find("Strata cannot load the model folder '" + (dir / "bert").string()),
            std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace strata
