#pragma once
// Which model an activation store was captured from, checked by content rather than by path:
// a store's rows are only meaningful next to the weights that produced them, and two
// checkpoints of one architecture (before and after fine-tuning, two seeds) share every shape.

#include <cstdint>
#include <filesystem>
#include <string>

namespace strata::io {

struct StoreMeta;

/**
 * SHA-256 (hex) over config.json's bytes and, per weight file in index order, its name, its
 * size and 66 blocks of 4 KiB of it: the first, the last and 64 spread evenly in between (the
 * whole file when it is smaller). Reading ~264 KiB per file keeps this instant for an 8B model;
 * the price is that a change confined to a few tensors between the sampled blocks goes unseen.
 * Throws like inspectModelFolder when the folder is not a model.
 */
std::string modelFingerprint(const std::filesystem::path& modelFolder);

/**
 * Refuses (FormatError naming `store`) a store whose recorded fingerprint is not
 * `fingerprint`, or whose width or depth differ from `hiddenSize`/`numLayers`. Stores written
 * before fingerprints were recorded are checked by width and depth only.
 */
void requireStoreOfModel(const std::filesystem::path& store, const StoreMeta& meta,
                         const std::filesystem::path& modelFolder, const std::string& fingerprint,
                         int64_t hiddenSize, int64_t numLayers);

}  // namespace strata::io
