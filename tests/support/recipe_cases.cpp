#include "support/recipe_cases.h"

#include "io/hf/hf_config.h"
#include "support/bridge_fixture.h"
#include "support/recipe_configs.h"
#include "support/training_fixture.h"

namespace strata::testing {
namespace fs = std::filesystem;

namespace {

fs::path corpusIn(const fs::path& dir) {
  writeToyCorpus(dir / "corpus.txt");
  return dir / "corpus.txt";
}

/** A bridge run whose sampler draws fresh noise at every step (eta > 0). */
engine::ResolvedConfig noisyBridge(const fs::path& dir, int64_t layer, const std::string& process) {
  engine::ResolvedConfig c = tinyBridgeConfig(corpusIn(dir), layer);
  c.set("eta", 0.5);
  c.set("process", process);
  return c;
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const RecipeCase& c) { return out << c.name; }

const std::vector<RecipeCase>& everyRecipeCase() {
  static const std::vector<RecipeCase> cases = {
      {"pretrain", "pretrain", [](const fs::path& d) { return tinyPretrainConfig(corpusIn(d)); },
       20},
      {"bridge", "bridge", [](const fs::path& d) { return noisyBridge(d, 2, "gaussian"); }, 20,
       true},
      {"bridge_process", "bridge", [](const fs::path& d) { return noisyBridge(d, 2, "bridge"); },
       20, true},
      {"bridge_embedding_diffusion", "bridge",
       [](const fs::path& d) {
         engine::ResolvedConfig c = noisyBridge(d, 0, "gaussian");
         c.set("condition", std::string("none"));
         return c;
       },
       20, true},
      {"mdlm", "dcdm", [](const fs::path& d) { return tinyDlmConfig(corpusIn(d), "mdlm"); }, 10},
      {"bdlm", "dcdm", [](const fs::path& d) { return tinyDlmConfig(corpusIn(d), "bdlm"); }, 10},
      {"dcdm", "dcdm", [](const fs::path& d) { return tinyDlmConfig(corpusIn(d), "dcdm"); }, 10},
      {"repr_align", "repr_align",
       [](const fs::path& d) {
         const fs::path model =
             randomByteModel(d / "model", static_cast<int>(io::Architecture::Llama));
         return tinyConversion(model, corpusIn(d));
       },
       12},
  };
  return cases;
}

}  // namespace strata::testing
