#include "commands.h"

namespace strata::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list{
      {"inspect", "describe a Hugging Face model folder (architecture, sizes, dtypes, tokenizer)",
       runInspect},
      {"verify", "compare a model folder's hidden states, logits and tokens with HF transformers",
       runVerify},
      {"capture", "hidden states of every layer over a corpus, into an HDF5 activation store",
       runCapture},
      {"import-gguf", "convert a GGUF model file (llama.cpp) into a Hugging Face folder",
       runImportGguf},
      {"import-llama2c", "convert a llama2.c model.bin + tokenizer.bin into a Hugging Face folder",
       runImportLlama2c},
      {"score", "per-layer geometry proxies, the DiHAL score and l* of an activation store",
       runScore},
      {"generate", "continue a prompt with a model folder (greedy or top-p sampling)", runGenerate},
      {"pretrain", "train a small Llama from scratch on a local corpus into a Hugging Face folder",
       runPretrain},
      {"train", "train a recipe (pretrain, ...) into a run folder; --nproc N for data parallelism",
       runTrain},
      {"resume", "continue a stopped or interrupted run from its newest valid checkpoint",
       runResume},
      {"runs", "list training runs with their state and progress", runRuns},
      {"sweep-bridges", "bridgeability study: a bridge at every layer, Spearman rho(score, -loss)",
       runSweepBridges},
      {"compare-dlm", "mdlm vs bdlm vs dcdm (and K / routing ablations) on the same budget",
       runCompareDlm},
      {"mask", "the training attention mask of mdlm / bdlm / dcdm (2L×2L dual stream, chunk ids)",
       runMask},
      {"compare-align", "REPR-ALIGN: λ = 0 vs 10, full vs frozen embeddings + MLPs, same budget",
       runCompareAlign},
      {"study", "a replication study (dcdm, dihal, repr-align): seeds, intervals, verdicts, plots",
       runStudy},
      {"plugins", "metric and recipe plugins found at start-up, and those that failed to load",
       runPlugins},
      {"about", "versions, compute device and threads of this installation", runAbout},
  };
  return list;
}

}  // namespace strata::cli
