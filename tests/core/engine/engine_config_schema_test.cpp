// Typed run configurations: defaults, JSON files, --set overrides and validation, each bad
// value refused with an error naming the setting.

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "engine/config_schema.h"
#include "engine/recipe_catalog.h"
#include "support/temp_dir.h"

namespace strata::engine {

namespace {

ConfigSchema smallSchema() {
  ConfigSchema schema{"toy", "a toy recipe", {}};
  schema.settings.push_back(
      makeSetting("steps", SettingType::Integer, int64_t{10}, "", "", 1, 100));
  schema.settings.push_back(makeSetting("lr", SettingType::Real, 1e-3, "", "", 0, 1));
  schema.settings.push_back(makeSetting("shuffle", SettingType::Boolean, true, "", ""));
  schema.settings.push_back(makeChoice("mode", "a", {"a", "b"}, "", ""));
  SettingSpec corpus = makeSetting("corpus", SettingType::Path, std::string(), "", "");
  corpus.required = true;
  schema.settings.push_back(corpus);
  return schema;
}

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ConfigSchema, DefaultsThenFileThenOverridesInThatOrder) {
  const ConfigSchema schema = smallSchema();
  ResolvedConfig config(schema);
  EXPECT_EQ(config.integer("steps"), 10);
  applyConfigJson(schema, R"({"steps": 20, "lr": 0.5, "corpus": "c.txt"})", "cfg.json", config);
  applyOverride(schema, "steps=30", config);
  applyOverride(schema, "shuffle=false", config);
  applyOverride(schema, "lr=3e-4", config);
  EXPECT_EQ(config.integer("steps"), 30);
  EXPECT_DOUBLE_EQ(config.real("lr"), 3e-4);
  EXPECT_FALSE(config.boolean("shuffle"));
  EXPECT_EQ(config.text("corpus"), "c.txt");
  EXPECT_NO_THROW(validateConfig(schema, config, "test"));
  // Whole numbers written as reals are integers; JSON round trip keeps every value.
  applyConfigJson(schema, R"({"steps": 40.0})", "cfg.json", config);
  EXPECT_EQ(config.integer("steps"), 40);
  ResolvedConfig again(schema);
  applyConfigJson(schema, configToJson(schema, config), "run.json", again);
  EXPECT_EQ(again, config);
}

TEST(ConfigSchema, BadValuesAreRefusedNamingTheSetting) {
  const ConfigSchema schema = smallSchema();
  ResolvedConfig config(schema);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "steps=0", config); }).find("steps"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "steps=2.5", config); }).find("integer"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "lr=fast", config); }).find("lr"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "mode=c", config); }).find("one of a, b"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "stpes=3", config); }).find("not a setting"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyOverride(schema, "steps", config); }).find("key=value"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              applyConfigJson(schema, R"({"shuffle": 1})", "f.json", config);
            }).find("true or false"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { validateConfig(schema, config, "test"); }).find("corpus"),
            std::string::npos);
  EXPECT_THROW(applyConfigJson(schema, "{not json", "f.json", config), FormatError);
  EXPECT_EQ(config.integer("steps"), 10);  // a refused value changes nothing
}

TEST(ConfigSchema, SettingTextIsShortAndReadsBackEqual) {
  EXPECT_EQ(settingText(SettingValue{0.001}), "0.001");
  EXPECT_EQ(settingText(SettingValue{3e-4}), "0.0003");
  EXPECT_EQ(settingText(SettingValue{10.0}), "10");
  EXPECT_EQ(settingText(SettingValue{int64_t{42}}), "42");
  EXPECT_EQ(settingText(SettingValue{true}), "true");
  const double third = 1.0 / 3.0;
  EXPECT_EQ(std::stod(settingText(SettingValue{third})), third);
}

TEST(RecipeRegistry, PretrainSchemaHasTheEngineAndRecipeSettingsAndUnknownRecipesFail) {
  const ConfigSchema schema = recipeSchema("pretrain");
  for (const char* key : {"steps", "batch", "grad_accum", "lr", "warmup", "grad_clip", "seed",
                          "precision", "device", "corpus", "dim", "layers", "seq_len"})
    EXPECT_NE(schema.find(key), nullptr) << key;
  for (const SettingSpec& spec : schema.settings)
    EXPECT_FALSE(spec.description.empty()) << spec.key;
  EXPECT_THROW(recipeSchema("bridgee"), ConfigError);
}

}  // namespace
}  // namespace strata::engine
