// The architecture table (io/arch): one registration line per architecture, and each
// descriptor found again by the names config.json and GGUF files give it.

#include "io/arch/architecture_spec.h"

#include <gtest/gtest.h>

#include "io/arch/architecture_list.h"
#include "io/gguf/gguf_model_plan.h"

namespace strata::io {
namespace {

#define STRATA_ARCHITECTURE_ENTRY(name, block) Architecture::name,
const Architecture kEveryArchitecture[] = {STRATA_ARCHITECTURES(STRATA_ARCHITECTURE_ENTRY)};
#undef STRATA_ARCHITECTURE_ENTRY

TEST(ArchitectureTable, EachClassNameFindsItsOwnArchitecture) {
  for (const Architecture architecture : kEveryArchitecture) {
    const ArchitectureSpec& spec = architectureSpec(architecture);
    const auto found = architectureOfClassName(spec.className);
    ASSERT_TRUE(found.has_value()) << spec.className;
    EXPECT_EQ(*found, architecture) << spec.className;
    EXPECT_EQ(architectureClassName(architecture), spec.className);
    EXPECT_NE(supportedArchitectures().find(spec.className), std::string::npos) << spec.className;
  }
}

TEST(ArchitectureTable, EachDescriptorReadsItsConfigAndNamesItsTensors) {
  for (const Architecture architecture : kEveryArchitecture) {
    const ArchitectureSpec& spec = architectureSpec(architecture);
    EXPECT_NE(spec.readConfig, nullptr) << spec.className;
    EXPECT_NE(spec.tensors, nullptr) << spec.className;
  }
}

TEST(ArchitectureTable, EachGgufNameFindsItsOwnDescriptorAndPlan) {
  int withGguf = 0;
  for (const Architecture architecture : kEveryArchitecture) {
    const ArchitectureSpec& spec = architectureSpec(architecture);
    if (!spec.ggufName) continue;
    ++withGguf;
    EXPECT_EQ(architectureOfGgufName(spec.ggufName), &spec) << spec.ggufName;
    EXPECT_NE(spec.planGguf, nullptr) << spec.ggufName;
    EXPECT_NE(supportedGgufArchitectures().find(spec.ggufName), std::string::npos);
  }
  EXPECT_EQ(withGguf, 4);
  EXPECT_EQ(supportedGgufArchitectures(), "llama, qwen2, qwen3, gemma3");
}

TEST(ArchitectureTable, UnknownNamesFindNothing) {
  EXPECT_FALSE(architectureOfClassName("MambaForCausalLM").has_value());
  EXPECT_EQ(architectureOfGgufName("mamba"), nullptr);
  EXPECT_EQ(architectureOfGgufName("gpt2"), nullptr);  // Strata reads no GPT-2 GGUF file
}

}  // namespace
}  // namespace strata::io
