#pragma once
// A tiny Llama folder the backbone can really run (unlike model_folder_fixture's zero weights):
// vocab 40, hidden 16, 2 layers, 4 heads, 2 KV heads, MLP 24, deterministic small nonzero F32
// weights, and a Metaspace BPE tokenizer over "▁" and a–z (ids 3–29) with <unk>/<s>/</s> as
// 0/1/2, so every token id fits the embedding. Plus a corpus of lowercase words in paragraphs.

#include <QString>

#include "engine/capture.h"

namespace strata::test {

/** Writes config.json, model.safetensors, tokenizer.json and tokenizer_config.json. */
void writeRunnableLlamaFolder(const QString& folder);

/** Writes `paragraphs` paragraphs of lowercase words, separated by blank lines. */
void writeWordCorpus(const QString& file, int paragraphs = 200);

/** A capture of `model` over `corpus` into `output` that takes a moment on the runnable Llama:
 *  100 tokens in sequences of 16, batches of 4, stored as float32. */
engine::CaptureConfig smallCapture(const QString& model, const QString& corpus,
                                   const QString& output);

}  // namespace strata::test
