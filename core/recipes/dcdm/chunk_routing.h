#pragma once
// How a trained masked diffusion LM (dcdm run) routes a text: every token's chunk, its affinity
// to each of the K chunks and the soft assignment, at the best checkpoint or at any checkpoint
// (to watch routing change over training). The Chunk routing view and its CSV export read this.
// The routing is the one training computes for the text as clean tokens: chunk-sequential
// (model/diffusion/chunk_layout.h), each token's affinities and assignments from the pass that
// assigned it. bdlm runs report positional blocks, mdlm one chunk (no affinities). No torch here.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/diffusion/dlm_variant.h"

namespace strata::recipes {

struct ChunkRoutingReport {
  model::DlmVariant variant = model::DlmVariant::Dcdm;
  int64_t chunks = 1;  ///< K (bdlm: number of blocks in the text; mdlm: 1)
  int64_t checkpointStep = 0;
  int64_t trainedSeqLen = 0;  ///< the run's seq_len: the length of the windows it trained on
  /** The whole text's tokens (specials added); tokenIds holds the first of them that were
   *  routed, so textTokens > tokenIds.size() when the text was cut. */
  int64_t textTokens = 0;
  std::vector<int32_t> tokenIds;
  std::vector<std::string> tokenTexts;  ///< each token decoded alone (bytes may be partial UTF-8)
  std::vector<int64_t> chunkIds;        ///< c_l (hard, with the balance bias)
  std::vector<std::vector<float>>
      affinities;  ///< [T][K], from l's assigning pass; empty unless dcdm
  std::vector<std::vector<float>> assignments;  ///< [T][K] softmax; empty unless dcdm
  /** [2T][2T] 0/1, noisy rows/columns then clean: the attention mask training uses for this
   *  text (row may attend column; training_mask.h), the same `strata-cli mask` prints. */
  std::vector<std::vector<uint8_t>> trainingMask;
};

/** The steps of the run's valid checkpoints, ascending. */
std::vector<int64_t> dlmCheckpointSteps(const std::filesystem::path& runFolder);

/** How much of a text routeText routes: the rest of a longer text is cut off. */
enum class RoutedLength {
  ModelPositions,  ///< as many tokens as the model has positions (max(seq_len, 1024))
  /** The first seq_len tokens, a window as long as training's: later positions were never
   *  trained (the Chunk Routing view). */
  TrainedSeqLen,
};

/** Routes `text` (encoded with the run's tokenizer, specials added, cut as `routed` says) with the
 *  weights of `checkpointStep` (default: the best / newest valid). */
ChunkRoutingReport routeText(const std::filesystem::path& runFolder, const std::string& text,
                             std::optional<int64_t> checkpointStep = std::nullopt,
                             RoutedLength routed = RoutedLength::ModelPositions);

/** Writes position, token, chunk and the K affinities per row as CSV. */
void writeChunkRoutingCsv(const ChunkRoutingReport& report, const std::filesystem::path& file);

}  // namespace strata::recipes
