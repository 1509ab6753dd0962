// The engine's recipe catalog: the built-in recipes that the test program added, in order;
// adding a name again replaces it; an unknown name lists the known ones; every entry, built-in
// or a plugin's, carries the runner that trains it.

#include "engine/recipe_catalog.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "common/job.h"
#include "engine/loop_recipe.h"
#include "engine/run_manifest.h"
#include "engine/training_run.h"
#include "plugin/plugin_loader.h"
#include "recipes/built_in_recipes.h"
#include "recipes/dcdm/dcdm.h"
#include "support/temp_dir.h"

using namespace strata;
using namespace strata::engine;

TEST(RecipeCatalog, HoldsTheBuiltInRecipesFirstInOrder) {
  const std::vector<std::string> names = recipeNames();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 4),
            (std::vector<std::string>{"pretrain", "bridge", "dcdm", "repr_align"}));
  EXPECT_EQ(recipeSchema("dcdm").recipe, "dcdm");
  EXPECT_EQ(findPluginRecipe("dcdm"), nullptr);
}

TEST(RecipeCatalog, AddingANameAgainReplacesIt) {
  const std::size_t count = recipeNames().size();
  addRecipe(loopRecipe(
      "pretrain", "another description", [] { return std::vector<SettingSpec>{}; }, nullptr));
  EXPECT_EQ(recipeNames().size(), count);
  EXPECT_EQ(recipeSchema("pretrain").description, "another description");
  recipes::addBuiltInRecipes();  // and adding the built-ins again restores them
  EXPECT_EQ(recipeNames().size(), count);
  EXPECT_NE(recipeSchema("pretrain").description, "another description");
}

TEST(RecipeCatalog, AnUnknownRecipeNamesTheKnownOnes) {
  try {
    recipeSchema("difusion");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("difusion"), std::string::npos) << message;
    EXPECT_NE(message.find("pretrain, bridge, dcdm, repr_align"), std::string::npos) << message;
  }
}

// One track: every entry carries its runner. A built-in recipe's runner gives the training
// loop its factory; a plugin's recipe runs its own loop, so the loop cannot build it.
TEST(RecipeCatalog, EveryRecipeCarriesItsRunner) {
  EXPECT_EQ(loopRecipeFactory("dcdm"), &recipes::makeDcdmRecipe);
  EXPECT_EQ(findRecipe("dcdm").runner->schema().recipe, "dcdm");

  const plugin::RecipeEntry* lens = findPluginRecipe("tuned_lens");
  ASSERT_NE(lens, nullptr) << "the build tree's tuned_lens plugin was not found";
  const CatalogRecipe recipe = findRecipe("tuned_lens");
  EXPECT_THROW(recipe.runner->trainingLoopFactory(), ConfigError);
  std::vector<std::string> expected, got;
  for (const auto& s : lens->settings) expected.push_back(s.name);
  for (const auto& s : recipe.runner->schema().settings) got.push_back(s.key);
  EXPECT_EQ(got, expected);
  EXPECT_THROW(loopRecipeFactory("tuned_lens"), ConfigError);
}

// The catalog holds each plugin recipe as one entry, made once: every look-up finds that entry,
// and a run the plugin started continues with it.
TEST(RecipeCatalog, HoldsEachPluginRecipeAsOneEntry) {
  const CatalogRecipe first = findRecipe("tuned_lens");
  EXPECT_EQ(findRecipe("tuned_lens").runner, first.runner);
  RunManifest run;
  run.recipe = "tuned_lens";
  run.plugin = RunPluginOrigin{"tuned_lens", "", ""};
  EXPECT_EQ(recipeOfRun(run).runner, first.runner);
  const std::vector<std::string> names = recipeNames();
  EXPECT_EQ(std::count(names.begin(), names.end(), "tuned_lens"), 1);
}

// A run whose plugin is gone cannot resume, and the error names the plugin and its file.
TEST(RecipeCatalog, ARunOfAVanishedPluginNamesIt) {
  TempDir dir;
  RunManifest run;
  run.recipe = "vanished_recipe";
  run.plugin = RunPluginOrigin{"vanished_plugin", "1.0", "/opt/vanished.so"};
  run.configJson = "{}";
  writeRunManifest(dir.path(), run);
  NullProgressSink sink;
  JobContext job(sink, CancellationToken{});
  try {
    resumeTraining(dir.path(), job);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("vanished_plugin"), std::string::npos) << message;
    EXPECT_NE(message.find("/opt/vanished.so"), std::string::npos) << message;
  }
}
