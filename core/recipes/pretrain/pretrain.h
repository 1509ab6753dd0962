#pragma once
// The pretrain recipe: a plain causal-LM training run of a small Llama from scratch on a local
// corpus, on the training engine, written out at the end as a normal Hugging Face folder in
// the run folder (config.json, model.safetensors, tokenizer files, training.json, README.md).
// This is how Strata's default backbone is made (scripts/make-default-model.sh).
//
// Data: the corpus's documents joined with EOS, the last val_fraction held out. The windows of
// micro-batch m of step s, row b, start at SplitMix64(seed, s, m·batch + b): the data order is
// a pure function of the seed and the position, so a resumed run sees exactly the data an
// uninterrupted one would. No torch types in this header.

#include <memory>
#include <vector>

#include "engine/config_schema.h"

namespace strata {

namespace engine {
class Recipe;
}  // namespace engine

}  // namespace strata

namespace strata::recipes {

/** The recipe's own settings (corpus, tokenizer, model shape, validation). */
std::vector<engine::SettingSpec> pretrainSettings();
std::unique_ptr<engine::Recipe> makePretrainRecipe();

}  // namespace strata::recipes
