// The tuned lens's data, steps and evaluation (see lens_training.h).

#include "lens_training.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "../common/plugin_options.h"
#include "lens_store.h"

namespace tuned_lens {
namespace {

using strata_plugins::trimmed;

constexpr float kBeta1 = 0.9f, kBeta2 = 0.999f, kEpsilon = 1e-8f;

int64_t integerSetting(const std::string& name, const std::string& text, int64_t minimum) {
  const auto value = strata_plugins::wholeNumber<int64_t>(text);
  if (!value || *value < minimum)
    throw std::invalid_argument("setting " + name + " must be an integer >= " +
                                std::to_string(minimum) + ", got '" + text + "'");
  return *value;
}

double realSetting(const std::string& name, const std::string& text, double minimum,
                   double maximum) {
  const auto value = strata_plugins::wholeNumber<double>(text);
  if (!value || !(*value >= minimum && *value <= maximum))
    throw std::invalid_argument("setting " + name + " must be a number in [" +
                                std::to_string(minimum) + ", " + std::to_string(maximum) +
                                "], got '" + text + "'");
  return *value;
}

/** Columns `rows` of `m`. */
Eigen::MatrixXf columns(const Eigen::MatrixXf& m, const std::vector<int64_t>& rows) {
  Eigen::MatrixXf out(m.rows(), static_cast<Eigen::Index>(rows.size()));
  for (size_t j = 0; j < rows.size(); ++j) out.col(static_cast<Eigen::Index>(j)) = m.col(rows[j]);
  return out;
}

/** Fisher–Yates with the engine's raw draws (portable, unlike std::shuffle's algorithm). */
template <typename T>
void shuffle(std::vector<T>& v, std::mt19937_64& engine) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[engine() % i]);
}

/** Centres and scales `m` (d × N) in place by its `train` columns' mean and RMS norm / √d. */
void normalise(Eigen::MatrixXf& m, const std::vector<int64_t>& train, Eigen::VectorXd& mean,
               double& scale) {
  mean = Eigen::VectorXd::Zero(m.rows());
  for (int64_t i : train) mean += m.col(i).cast<double>();
  mean /= static_cast<double>(train.size());
  double total = 0;
  for (int64_t i : train) total += (m.col(i).cast<double>() - mean).squaredNorm();
  scale = std::sqrt(total / (static_cast<double>(train.size()) * static_cast<double>(m.rows())));
  if (!(scale > 0)) scale = 1;  // a constant layer: centring alone
  const Eigen::VectorXf meanF = mean.cast<float>();
  const float inverse = static_cast<float>(1.0 / scale);
  m.colwise() -= meanF;
  m *= inverse;
}

/** Runs work(k) for every layer k on up to `threads` threads; each k on exactly one thread. */
template <typename Work>
void forEachLayer(size_t layers, int threads, Work work) {
  const size_t n = std::min<size_t>(layers, static_cast<size_t>(std::max(threads, 1)));
  std::vector<std::thread> pool;
  for (size_t w = 1; w < n; ++w)
    pool.emplace_back([&, w] {
      for (size_t k = w; k < layers; k += n) work(k);
    });
  for (size_t k = 0; k < layers; k += n) work(k);
  for (auto& t : pool) t.join();
}

}  // namespace

int threadCount(const LensSettings& settings) {
  if (settings.threads > 0) return settings.threads;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

LensSettings parseSettings(const char* text) {
  LensSettings s;
  std::istringstream lines(text ? text : "");
  for (std::string line; std::getline(lines, line);) {
    if (trimmed(line).empty()) continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos) throw std::invalid_argument("setting '" + line + "' has no value");
    const std::string name = trimmed(line.substr(0, eq)), value = trimmed(line.substr(eq + 1));
    if (name == "store")
      s.store = value;
    else if (name == "layers")
      s.layers = value;
    else if (name == "steps")
      s.steps = integerSetting(name, value, 1);
    else if (name == "lr")
      s.lr = realSetting(name, value, 1e-12, 10);
    else if (name == "batch")
      s.batch = integerSetting(name, value, 1);
    else if (name == "held_out")
      s.heldOut = realSetting(name, value, 0, 0.9);
    else if (name == "seed")
      s.seed = static_cast<uint64_t>(integerSetting(name, value, 0));
    else if (name == "eval_every")
      s.evalEvery = integerSetting(name, value, 0);
    else if (name == "checkpoint_every")
      s.checkpointEvery = integerSetting(name, value, 0);
    else if (name == "threads")
      s.threads = static_cast<int>(integerSetting(name, value, 0));
    else if (name == "schedule") {
      if (value != "cosine" && value != "constant")
        throw std::invalid_argument("setting schedule must be cosine or constant, got '" + value +
                                    "'");
      s.schedule = value;
    } else {
      throw std::invalid_argument("unknown setting '" + name + "'");
    }
  }
  if (s.store.empty())
    throw std::invalid_argument("setting store is required: an activation store (.h5)");
  return s;
}

std::vector<int64_t> parseLayers(const std::string& text, int64_t numLayers) {
  std::set<int64_t> out;
  if (trimmed(text) == "all" || trimmed(text).empty()) {
    for (int64_t l = 0; l < numLayers; ++l) out.insert(l);
  } else {
    std::istringstream items(text);
    for (std::string item; std::getline(items, item, ',');) {
      item = trimmed(item);
      const auto dash = item.find('-', 1);
      const int64_t first = integerSetting("layers", trimmed(item.substr(0, dash)), 0);
      const int64_t last = dash == std::string::npos
                               ? first
                               : integerSetting("layers", trimmed(item.substr(dash + 1)), 0);
      if (first > last || last > numLayers)
        throw std::invalid_argument("setting layers: '" + item + "' is not within 0.." +
                                    std::to_string(numLayers) + " (the store's layers)");
      for (int64_t l = first; l <= last; ++l) out.insert(l);
    }
  }
  if (out.empty()) throw std::invalid_argument("setting layers selects no layer");
  return {out.begin(), out.end()};
}

double learningRate(const LensSettings& settings, int64_t step) {
  if (settings.schedule == "constant") return settings.lr;
  const double progress = static_cast<double>(step - 1) / static_cast<double>(settings.steps);
  return settings.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

LensData readLensShape(const LensSettings& settings) {
  const LensStore store(settings.store);
  LensData data;
  data.numLayers = store.numLayers();
  data.hidden = store.hiddenSize();
  data.tokens = store.numTokens();
  data.layers = parseLayers(settings.layers, data.numLayers);

  // The split: whole documents, so no held-out token has a training neighbour in its text.
  const std::vector<int32_t> docs = store.documents();
  std::map<int32_t, std::vector<int64_t>> byDoc;
  for (int64_t i = 0; i < data.tokens; ++i) byDoc[docs[static_cast<size_t>(i)]].push_back(i);
  std::vector<int32_t> docIds;
  for (const auto& entry : byDoc) docIds.push_back(entry.first);
  std::mt19937_64 splitEngine(settings.seed ^ 0x9E3779B97F4A7C15ull);
  shuffle(docIds, splitEngine);
  const auto wanted =
      static_cast<int64_t>(std::llround(settings.heldOut * static_cast<double>(data.tokens)));
  std::vector<char> held(static_cast<size_t>(data.tokens), 0);
  int64_t count = 0;
  for (size_t k = 0; k < docIds.size() && count < wanted; ++k)
    for (int64_t i : byDoc[docIds[k]]) held[static_cast<size_t>(i)] = 1, ++count;
  if (wanted > 0 && count >= data.tokens) {  // one document, or one too large: split tokens
    std::vector<int64_t> rows(static_cast<size_t>(data.tokens));
    for (int64_t i = 0; i < data.tokens; ++i) rows[static_cast<size_t>(i)] = i;
    shuffle(rows, splitEngine);
    std::fill(held.begin(), held.end(), 0);
    for (int64_t k = 0; k < wanted; ++k)
      held[static_cast<size_t>(rows[static_cast<size_t>(k)])] = 1;
  }
  for (int64_t i = 0; i < data.tokens; ++i)
    (held[static_cast<size_t>(i)] ? data.heldOut : data.train).push_back(i);
  if (data.train.size() < 2)
    throw std::invalid_argument("setting held_out leaves " + std::to_string(data.train.size()) +
                                " training tokens of " + std::to_string(data.tokens));

  std::ostringstream fingerprint;
  fingerprint << "L=" << data.numLayers << " d=" << data.hidden << " N=" << data.tokens
              << " layers=";
  for (int64_t l : data.layers) fingerprint << l << ",";
  fingerprint << " steps=" << settings.steps << " lr=" << settings.lr << " batch=" << settings.batch
              << " held_out=" << settings.heldOut << " seed=" << settings.seed
              << " schedule=" << settings.schedule;
  data.fingerprint = fingerprint.str();
  return data;
}

void loadLensLayers(const LensSettings& settings, LensData& data) {
  const LensStore store(settings.store);
  if (store.numLayers() != data.numLayers || store.hiddenSize() != data.hidden ||
      store.numTokens() != data.tokens)
    throw std::runtime_error("store " + settings.store + " changed while it was being read");
  data.target = store.layer(data.numLayers);
  normalise(data.target, data.train, data.targetMean, data.targetScale);
  for (int64_t layer : data.layers) {
    data.inputs.push_back(store.layer(layer));
    data.inputMean.emplace_back();
    data.inputScale.push_back(1);
    normalise(data.inputs.back(), data.train, data.inputMean.back(), data.inputScale.back());
    data.heldOutInputs.push_back(columns(data.inputs.back(), data.heldOut));
  }
  data.heldOutTarget = columns(data.target, data.heldOut);
  if (!data.heldOut.empty()) {
    const Eigen::MatrixXd y = data.heldOutTarget.cast<double>();
    data.heldOutTotal = (y.colwise() - y.rowwise().mean()).squaredNorm();
  }
}

void BatchSampler::reshuffle() {
  shuffle(order, engine);
  position = 0;
}

std::vector<Eigen::Index> BatchSampler::next(const LensData& data, int64_t batch) {
  std::vector<Eigen::Index> rows(static_cast<size_t>(batch));
  for (auto& row : rows) {
    if (position == order.size()) reshuffle();
    row = data.train[static_cast<size_t>(order[position++])];
  }
  return rows;
}

LensState initialState(const LensData& data, const LensSettings& settings) {
  LensState state;
  const Eigen::Index d = data.hidden;
  for (size_t k = 0; k < data.layers.size(); ++k) {
    state.weight.push_back(Eigen::MatrixXf::Identity(d, d));
    state.weightM.push_back(Eigen::MatrixXf::Zero(d, d));
    state.weightV.push_back(Eigen::MatrixXf::Zero(d, d));
    state.bias.push_back(Eigen::VectorXf::Zero(d));
    state.biasM.push_back(Eigen::VectorXf::Zero(d));
    state.biasV.push_back(Eigen::VectorXf::Zero(d));
  }
  state.sampler.engine.seed(settings.seed * 0x2545F4914F6CDD1Dull + 1);
  state.sampler.order.resize(data.train.size());
  for (size_t i = 0; i < data.train.size(); ++i) state.sampler.order[i] = static_cast<int64_t>(i);
  state.sampler.reshuffle();
  return state;
}

double trainStep(const LensData& data, LensState& state, const LensSettings& settings, double lr) {
  const std::vector<Eigen::Index> rows = state.sampler.next(data, settings.batch);
  const Eigen::MatrixXf y = data.target(Eigen::all, rows);
  const int64_t t = state.step + 1;
  const double elements = static_cast<double>(settings.batch) * static_cast<double>(data.hidden);
  const float gradScale = static_cast<float>(2.0 / elements);
  const float correction1 = static_cast<float>(1.0 - std::pow(double(kBeta1), double(t)));
  const float correction2 = static_cast<float>(1.0 - std::pow(double(kBeta2), double(t)));
  const float rate = static_cast<float>(lr);
  std::vector<double> losses(data.layers.size());

  forEachLayer(data.layers.size(), threadCount(settings), [&](size_t k) {
    const Eigen::MatrixXf x = data.inputs[k](Eigen::all, rows);
    Eigen::MatrixXf residual = state.weight[k] * x;
    residual.colwise() += state.bias[k];
    residual -= y;
    losses[k] = residual.cast<double>().squaredNorm() / elements;
    // ∂/∂A mean‖A x + b − y‖² = (2 / (B·d)) R xᵀ, ∂/∂b = (2 / (B·d)) R 1.
    const Eigen::MatrixXf gradW = gradScale * (residual * x.transpose());
    const Eigen::VectorXf gradB = gradScale * residual.rowwise().sum();
    auto adam = [&](auto& p, auto& m, auto& v, const auto& g) {
      m = kBeta1 * m + (1 - kBeta1) * g;
      v = kBeta2 * v + (1 - kBeta2) * g.cwiseProduct(g);
      p.array() -= rate * (m.array() / correction1) / ((v.array() / correction2).sqrt() + kEpsilon);
    };
    adam(state.weight[k], state.weightM[k], state.weightV[k], gradW);
    adam(state.bias[k], state.biasM[k], state.biasV[k], gradB);
  });
  state.step = t;
  double mean = 0;
  for (double loss : losses) mean += loss;  // in layer order: the same bits on any thread count
  return mean / static_cast<double>(losses.size());
}

HeldOutScores evaluateHeldOut(const LensData& data, const LensState& state) {
  HeldOutScores scores;
  scores.r2.assign(data.layers.size(), std::nan(""));
  if (data.heldOut.empty()) return scores;
  std::vector<double> errors(data.layers.size());
  for (size_t k = 0; k < data.layers.size(); ++k) {
    Eigen::MatrixXf residual = state.weight[k] * data.heldOutInputs[k];
    residual.colwise() += state.bias[k];
    residual -= data.heldOutTarget;
    errors[k] = residual.cast<double>().squaredNorm();
  }
  const double elements =
      static_cast<double>(data.heldOut.size()) * static_cast<double>(data.hidden);
  for (size_t k = 0; k < errors.size(); ++k) {
    scores.r2[k] = 1.0 - errors[k] / data.heldOutTotal;
    scores.meanSquaredError += errors[k] / elements / static_cast<double>(errors.size());
  }
  return scores;
}

void storeUnits(const LensData& data, const LensState& state, size_t k, Eigen::MatrixXd& a,
                Eigen::VectorXd& b) {
  // ỹ = W x̃ + c with x̃ = (x − μx)/sx, ỹ = (y − μy)/sy  ⇒  y = (sy/sx) W x + μy + sy c − A μx.
  a = (data.targetScale / data.inputScale[k]) * state.weight[k].cast<double>();
  b = data.targetMean + data.targetScale * state.bias[k].cast<double>() - a * data.inputMean[k];
}

}  // namespace tuned_lens
