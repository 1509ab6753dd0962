#include "support/recipe_configs.h"

#include "engine/recipe_catalog.h"
#include "recipes/pretrain/pretrain_files.h"
#include "support/model_test_folders.h"

namespace strata::testing {
namespace fs = std::filesystem;

engine::ResolvedConfig tinyDlmConfig(const fs::path& corpus, const std::string& variant) {
  engine::ResolvedConfig c(engine::recipeSchema("dcdm"));
  c.set("corpus", corpus.string());
  c.set("variant", variant);
  c.set("steps", int64_t{20});
  c.set("batch", int64_t{4});
  c.set("seq_len", int64_t{32});
  c.set("dim", int64_t{32});
  c.set("layers", int64_t{1});
  c.set("heads", int64_t{2});
  c.set("mlp", int64_t{64});
  c.set("chunks", int64_t{4});
  c.set("subspace_rank", int64_t{2});
  c.set("block_size", int64_t{8});
  c.set("lr", 3e-3);
  c.set("warmup", int64_t{2});
  c.set("log_every", int64_t{1});
  c.set("eval_every", int64_t{10});
  c.set("checkpoint_every", int64_t{10});
  c.set("eval_windows", int64_t{4});
  c.set("sample_steps", int64_t{2});
  c.set("seed", int64_t{11});
  c.set("threads", int64_t{1});
  return c;
}

fs::path randomByteModel(const fs::path& folder, int architecture) {
  RandomBackboneSpec spec;
  spec.architecture = static_cast<io::Architecture>(architecture);
  spec.vocab = 258;
  writeRandomBackbone(folder, spec);
  recipes::writeTokenizerFiles("byte", folder);
  return folder;
}

engine::ResolvedConfig tinyConversion(const fs::path& model, const fs::path& corpus,
                                      double lambda) {
  engine::ResolvedConfig c(engine::recipeSchema("repr_align"));
  c.set("model", model.string());
  c.set("corpus", corpus.string());
  c.set("steps", int64_t{24});
  c.set("batch", int64_t{8});
  c.set("seq_len", int64_t{16});  // GPT-2's test model has 24 positions
  c.set("lr", 3e-3);
  c.set("warmup", int64_t{2});
  c.set("seed", int64_t{5});
  c.set("log_every", int64_t{1});
  c.set("eval_every", int64_t{12});
  c.set("checkpoint_every", int64_t{12});
  c.set("eval_windows", int64_t{16});
  c.set("sample_steps", int64_t{4});
  c.set("threads", int64_t{1});
  c.set("lambda", lambda);
  return c;
}

}  // namespace strata::testing
