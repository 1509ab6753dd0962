#pragma once
// The tuned lens (after Belrose et al., "Eliciting Latent Predictions from Transformers with the
// Tuned Lens", 2023, here predicting the final hidden state instead of the logits): for every
// chosen layer l an affine translator h_l ↦ A_l h_l + b_l trained to predict h_L of the same
// token, minimising the mean squared error with Adam on mini-batches, A_l = I and b_l = 0 at the
// start. Plain C++ and Eigen; no Strata code (plugins include only the ABI header).
//
// Conditioning: each layer's inputs and the target are centred and scaled by their training
// split's mean and RMS (tr(Σ) = d, as Strata normalises layers), so one learning rate suits
// every model. Both maps are affine, so the least-squares optimum is the same problem's optimum;
// the translators are written back in the store's own units.
//
// Determinism: the split, the statistics and the batches depend only on the settings and the
// store; a step's arithmetic only on the state (parameters, Adam moments, sampler), which a
// checkpoint holds in full. Layers train in parallel threads, each on its own layer, so the
// thread count changes no bit of the result, and a resumed run equals an uninterrupted one.

#include <Eigen/Dense>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tuned_lens {

struct LensSettings {
  std::string store;
  std::string layers = "all";
  int64_t steps = 1000;
  double lr = 1e-3;
  int64_t batch = 256;
  double heldOut = 0.1;
  uint64_t seed = 0;
  int64_t evalEvery = 100;
  int64_t checkpointEvery = 100;
  std::string schedule = "cosine";  // "cosine" (to 0 at the last step) or "constant"
  int threads = 0;                  // 0: one per core
};

/** Parses the host's "name=value" lines. Throws std::invalid_argument naming the setting. */
LensSettings parseSettings(const char* text);
/** The threads a step uses: `threads`, or one per core for 0. */
int threadCount(const LensSettings& settings);
/** "all" = 0..L-1, or "0,3,5-7" (each in 0..L), ascending, without repeats. */
std::vector<int64_t> parseLayers(const std::string& text, int64_t numLayers);
/** The learning rate of step t (1-based). */
double learningRate(const LensSettings& settings, int64_t step);

/** What the lens trains on, all derived deterministically from the store and the settings. */
struct LensData {
  int64_t numLayers = 0, hidden = 0, tokens = 0;  // L, d, N of the store
  std::vector<int64_t> layers;                    // the translated layers
  std::vector<int64_t> train, heldOut;            // token rows, ascending
  std::vector<Eigen::MatrixXf> inputs;            // per layer, normalised, d × N
  Eigen::MatrixXf target;                         // h_L normalised, d × N
  std::vector<Eigen::MatrixXf> heldOutInputs;     // the held-out columns, d × n_h
  Eigen::MatrixXf heldOutTarget;
  double heldOutTotal = 0;                 // Σ‖y − ȳ‖² over held-out (normalised)
  std::vector<Eigen::VectorXd> inputMean;  // per layer, store units
  std::vector<double> inputScale;
  Eigen::VectorXd targetMean;
  double targetScale = 1;
  /** The settings and store facts that decide the trajectory (checkpoints must match). */
  std::string fingerprint;
};

/** The store's sizes, the chosen layers and the split, without any layer (the header and
 *  /tokens/doc only: what the memory plan needs). Held-out = whole documents (shuffled with the
 *  seed) until they hold round(heldOut·N) tokens; per token when the documents cannot give a
 *  training split. Throws std::runtime_error naming the store or setting. */
LensData readLensShape(const LensSettings& settings);
/** Reads and normalises the chosen layers and the target into `data` (from readLensShape). */
void loadLensLayers(const LensSettings& settings, LensData& data);

/** Mini-batches: epochs over the training rows, each a Fisher–Yates shuffle by a mt19937_64. */
struct BatchSampler {
  std::mt19937_64 engine;
  std::vector<int64_t> order;  // positions into LensData::train
  uint64_t position = 0;
  void reshuffle();
  std::vector<Eigen::Index> next(const LensData& data, int64_t batch);
};

/** Everything a step changes: the translators (normalised units), Adam's moments, the sampler. */
struct LensState {
  int64_t step = 0;
  std::vector<Eigen::MatrixXf> weight, weightM, weightV;  // per layer, d × d
  std::vector<Eigen::VectorXf> bias, biasM, biasV;        // per layer, d
  BatchSampler sampler;
};

LensState initialState(const LensData& data, const LensSettings& settings);

/** One Adam step on every layer (same batch for all); returns the mean over layers of the
 *  batch's mean squared error (normalised units) before the update. */
double trainStep(const LensData& data, LensState& state, const LensSettings& settings, double lr);

struct HeldOutScores {
  std::vector<double> r2;  // per layer: 1 − Σ‖ŷ − y‖² / Σ‖y − ȳ‖² over the held-out tokens
  double meanSquaredError = 0;  // mean over layers and elements (normalised units)
};
HeldOutScores evaluateHeldOut(const LensData& data, const LensState& state);

/** Layer k's translator in the store's units: y ≈ A x + b. */
void storeUnits(const LensData& data, const LensState& state, size_t k, Eigen::MatrixXd& a,
                Eigen::VectorXd& b);

}  // namespace tuned_lens
