#pragma once
// Real DiHAL inputs for the bridge view tests, made with core's API on the built-in default
// model (a byte-level Llama, 4 × 128): a small Python-like corpus, an activation store scored
// into /geometry, and a tiny bridge run (10 steps: plumbing, not quality).

#include <QString>
#include <cstdint>

namespace strata::test {

/** The built-in default model's folder (absolute, clean). */
QString defaultModelFolder();

/** A few KB of short Python functions, one blank line apart. */
void writeCodeCorpus(const QString& file);

/** What writeScoredStore computes beyond the three proxies. */
struct ScoredStoreExtras {
  int64_t bootstrapResamples = 0;  ///< 0: no intervals
  bool pluginMetrics = false;      ///< also every metric of the plugins built in this tree
};

/** Captures `tokens` tokens of the default model over `corpus` into `store`, scores every layer
 *  (small proxy settings) and writes /geometry. */
void writeScoredStore(const QString& store, const QString& corpus, int64_t tokens = 512,
                      const ScoredStoreExtras& extras = {});

/** Trains a 10-step bridge at `layer` of the default model into `run`. */
void trainTinyBridge(const QString& run, const QString& corpus, int64_t layer);

}  // namespace strata::test
