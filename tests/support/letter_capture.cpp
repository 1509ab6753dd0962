#include "support/letter_capture.h"

#include "support/letter_corpus.h"
#include "support/model_test_folders.h"

namespace strata::testing {

engine::CaptureConfig writeLetterCapture(const std::filesystem::path& dir) {
  writeRandomBackbone(dir / "model");
  writeLetterTokenizer(dir / "model");
  writeLetterCorpus(dir / "corpus.txt");
  engine::CaptureConfig config;
  config.modelFolder = dir / "model";
  config.corpus = dir / "corpus.txt";
  config.output = dir / "acts.h5";
  config.sampling.sequenceLength = 24;
  return config;
}

}  // namespace strata::testing
