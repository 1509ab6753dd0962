// The engine's recipe catalog: the built-in recipes that the test program added, in order;
// adding a name again replaces it; an unknown name lists the known ones.

#include "engine/recipe_catalog.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "recipes/built_in_recipes.h"

using namespace strata;

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
  CatalogRecipe changed{"pretrain", "another description", nullptr, nullptr};
  changed.settings = [] { return std::vector<SettingSpec>{}; };
  addRecipe(changed);
  EXPECT_EQ(recipeNames().size(), count);
  EXPECT_EQ(recipeSchema("pretrain").description, "another description");
  addBuiltInRecipes();  // and adding the built-ins again restores them
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
