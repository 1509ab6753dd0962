// strata-cli as a user runs it: the real binary, its exit codes, its text and JSON output.

#include <torch/version.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/cli_runner.h"
#include "support/python_finder.h"
#include "support/temp_dir.h"
#include "support/tiny_model_folder.h"

namespace strata {
namespace {

using testing::CommandOutput;
using testing::runCli;

TEST(CliInspect, PrintsArchitectureSizesDtypesAndTokenizer) {
  TempDir dir;
  testing::TinyLlamaShape shape;
  testing::writeTinyLlamaFolder(dir / "tiny", shape);
  const CommandOutput result = runCli("inspect " + (dir / "tiny").string());
  ASSERT_EQ(result.exitCode, 0) << result.out;
  EXPECT_NE(result.out.find("LlamaForCausalLM"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Layers        2"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Hidden size   16"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("key/value heads 2"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("BF16"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("byte-level BPE"), std::string::npos) << result.out;
}

TEST(CliInspect, JsonOutputCountsEveryParameter) {
  TempDir dir;
  testing::TinyLlamaShape shape;
  shape.tied = true;
  testing::writeTinyLlamaFolder(dir / "tiny", shape);
  const CommandOutput result = runCli("inspect --json " + (dir / "tiny").string());
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["architecture"], "LlamaForCausalLM");
  EXPECT_EQ(json["num_layers"], 2);
  EXPECT_EQ(json["hidden_size"], 16);
  EXPECT_EQ(json["num_attention_heads"], 4);
  EXPECT_EQ(json["parameters"], testing::tinyLlamaParameterCount(shape));
  EXPECT_EQ(json["tie_word_embeddings"], true);
  const int64_t normParameters = (2 * shape.layers + 1) * shape.hidden;
  EXPECT_EQ(json["dtypes"]["BF16"], normParameters);
  EXPECT_EQ(json["dtypes"]["F32"], testing::tinyLlamaParameterCount(shape) - normParameters);
}

TEST(CliInspect, BadFolderFailsWithTheFileNamed) {
  TempDir dir;
  std::filesystem::create_directories(dir / "bad");
  std::ofstream(dir / "bad" / "config.json") << R"({"architectures": ["BertModel"]})";
  const CommandOutput result = runCli("inspect " + (dir / "bad").string());
  EXPECT_EQ(result.exitCode, 1) << result.out;
  EXPECT_NE(result.out.find((dir / "bad" / "config.json").string()), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("BertModel"), std::string::npos) << result.out;
}

TEST(CliInspect, AModelGivenAsAnOptionPointsAtTheArgument) {
  // Most commands take --model; inspect and verify take the model as their argument.
  for (const std::string command : {"inspect", "verify"}) {
    const CommandOutput result = runCli(command + " --model m");
    EXPECT_EQ(result.exitCode, 2) << result.out;
    EXPECT_NE(result.out.find("unknown option --model for '" + command +
                              "': give it as the argument <model-dir>"),
              std::string::npos)
        << result.out;
  }
  const CommandOutput other = runCli("inspect --modle m");
  EXPECT_EQ(other.exitCode, 2) << other.out;
  EXPECT_EQ(other.out.find("give it as the argument"), std::string::npos) << other.out;
}

TEST(CliInspect, FolderWithoutWeightsFailsClearly) {
  TempDir dir;
  testing::writeTinyLlamaFolder(dir / "tiny");
  std::filesystem::remove(dir / "tiny" / "model.safetensors");
  const CommandOutput result = runCli("inspect " + (dir / "tiny").string());
  EXPECT_EQ(result.exitCode, 1) << result.out;
  EXPECT_NE(result.out.find("safetensors"), std::string::npos) << result.out;
}

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* command : {"inspect", "about", "import-llama2c", "generate"}) {
    const CommandOutput result = runCli(std::string(command) + " --help");
    EXPECT_EQ(result.exitCode, 0) << command << ": " << result.out;
    EXPECT_NE(result.out.find(std::string("usage: strata-cli ") + command), std::string::npos)
        << result.out;
  }
}

TEST(Cli, WrongUsageExitsWithTwoAndSaysWhy) {
  EXPECT_EQ(runCli("inspect").exitCode, 2);
  const CommandOutput unknownOption = runCli("inspect --frobnicate x");
  EXPECT_EQ(unknownOption.exitCode, 2);
  EXPECT_NE(unknownOption.out.find("--frobnicate"), std::string::npos) << unknownOption.out;
  EXPECT_EQ(runCli("no-such-command").exitCode, 2);
}

TEST(CliAbout, NamesTheDeviceAndLibraries) {
  const CommandOutput result = runCli("about --json");
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const auto json = nlohmann::json::parse(result.out);
  EXPECT_EQ(json["libtorch"], TORCH_VERSION);
  EXPECT_GE(json["threads"].get<int>(), 1);
  EXPECT_FALSE(json["device"].get<std::string>().empty());
  // setup installs OpenBLAS, and Debian's alternatives route the geometry backend's BLAS calls
  // to it (LibTorch's own products use the MKL inside the wheel).
  EXPECT_NE(json["blas"].get<std::string>().find("OpenBLAS"), std::string::npos) << json["blas"];
  EXPECT_FALSE(json["cuda_libraries"].get<std::string>().empty());
}

// OpenBLAS's idle threads would poll for ~0.1 s after every call, competing with the geometry's
// OpenMP regions: the CLI shortens that before the library loads, unless the user chose a value.
TEST(CliAbout, ShortensOpenBlasPollingUnlessTheUserChose) {
  const auto blasLine = [] {
    const CommandOutput result = runCli("about --json");
    EXPECT_EQ(result.exitCode, 0) << result.out;
    return nlohmann::json::parse(result.out)["blas"].get<std::string>();
  };
  const char* before = std::getenv("OPENBLAS_THREAD_TIMEOUT");
  const std::string saved = before ? before : "";
  ::unsetenv("OPENBLAS_THREAD_TIMEOUT");
  const std::string tuned = blasLine();
  ::setenv("OPENBLAS_THREAD_TIMEOUT", "26", 1);
  const std::string chosen = blasLine();
  if (saved.empty())
    ::unsetenv("OPENBLAS_THREAD_TIMEOUT");
  else
    ::setenv("OPENBLAS_THREAD_TIMEOUT", saved.c_str(), 1);
  if (tuned.find("OpenBLAS") == std::string::npos) GTEST_SKIP() << "not OpenBLAS: " << tuned;
  EXPECT_NE(tuned.find("idle threads poll 2^20 cycles"), std::string::npos) << tuned;
  EXPECT_NE(chosen.find("idle threads poll 2^26 cycles"), std::string::npos) << chosen;
}

// The settings above are made before any library initialises (an entry of the executable's
// .preinit_array restarts the program at once), so LibTorch does not start twice (~0.3 s). On a
// CPU with AVX-512 that holds whatever OpenBLAS would detect; on others OpenBLAS's detection may
// still call for the later restart.
TEST(CliAbout, StartsOnceWithTheLibrariesTunedBeforeTheyLoad) {
  const std::vector<const char*> names = {"OMP_WAIT_POLICY", "OPENBLAS_THREAD_TIMEOUT",
                                          "OPENBLAS_CORETYPE"};
  std::vector<std::optional<std::string>> saved;
  for (const char* name : names) {
    const char* value = std::getenv(name);
    saved.push_back(value ? std::optional<std::string>(value) : std::nullopt);
    ::unsetenv(name);
  }
  const CommandOutput result = runCli("about --json");
  for (size_t i = 0; i < names.size(); ++i)
    if (saved[i]) ::setenv(names[i], saved[i]->c_str(), 1);
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const auto json = nlohmann::json::parse(result.out);
  const std::string blas = json["blas"].get<std::string>();
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (!avx512 || blas.find("OpenBLAS") == std::string::npos)
    GTEST_SKIP() << "needs OpenBLAS on a CPU with AVX-512: " << blas;
  EXPECT_EQ(json["restarted_to_set"], "") << "LibTorch started a second time";
  EXPECT_EQ(json["set_at_load"], "OMP_WAIT_POLICY,OPENBLAS_THREAD_TIMEOUT,OPENBLAS_CORETYPE");
  EXPECT_NE(blas.find("SkylakeX"), std::string::npos) << blas;
  EXPECT_NE(blas.find("idle threads poll 2^20 cycles"), std::string::npos) << blas;
}

TEST(CliAbout, SaysWhichCudaLibTorchWasBuiltWith) {
  const CommandOutput result = runCli("about --json");
  ASSERT_EQ(result.exitCode, 0) << result.out;
  const auto json = nlohmann::json::parse(result.out);
  // The reference: the same wheel's Python side (torch.version.cuda is None for a CPU build).
  std::string why;
  const std::string python = testing::findPython({"torch"}, "run scripts/setup.sh", why);
  if (python.empty()) GTEST_SKIP() << why;
  FILE* pipe =
      popen((python + " -c 'import torch; print(torch.version.cuda or \"none\")'").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::array<char, 64> line{};
  const bool read = fgets(line.data(), line.size(), pipe) != nullptr;
  pclose(pipe);
  ASSERT_TRUE(read);
  std::string expected(line.data());
  expected.erase(expected.find_last_not_of("\n") + 1);
  EXPECT_EQ(json["libtorch_cuda"], expected);
  EXPECT_EQ(json["libtorch_built_with_cuda"], expected != "none");
}

}  // namespace
}  // namespace strata
