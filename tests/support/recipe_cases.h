#pragma once
// Every built-in recipe as a tiny run, for the tests that run them all alike: on the GPU with an
// exact resume (cuda_training_test.cpp) and with generators that claim another device
// (foreign_generator_training_test.cpp).

#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "engine/config_schema.h"

namespace strata::testing {

struct RecipeCase {
  std::string name;    ///< the test's name
  std::string recipe;  ///< the recipe catalog's name
  /** The recipe's own tiny run (the one its CPU tests train), writing what it reads into `dir`. */
  std::function<engine::ResolvedConfig(const std::filesystem::path& dir)> config;
  int64_t stopAfter = 0;   ///< a checkpoint step of that run
  bool generates = false;  ///< a bridge run: text can be generated from it
};

std::ostream& operator<<(std::ostream& out, const RecipeCase& c);

/** pretrain; bridge with each process (sampling noise drawn at every step) and its layer-0
 *  embedding-diffusion baseline; the dcdm recipe as mdlm, bdlm and dcdm; repr_align. */
const std::vector<RecipeCase>& everyRecipeCase();

}  // namespace strata::testing
