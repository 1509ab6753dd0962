#pragma once
// A capture the engine tests can run in well under a second: the random test backbone with the
// letter tokenizer (model/, written here) over the letter corpus (corpus.txt), into acts.h5, in
// sequences of 24 tokens. Each test sets the token budget, batch and precision it needs.

#include <filesystem>

#include "engine/capture.h"

namespace strata::testing {

/** Writes `dir`/model and `dir`/corpus.txt and returns the capture of one into `dir`/acts.h5. */
engine::CaptureConfig writeLetterCapture(const std::filesystem::path& dir);

}  // namespace strata::testing
