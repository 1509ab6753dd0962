#include "engine/capture.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>

#include "common/error.h"
#include "common/human_format.h"
#include "common/job.h"
#include "common/non_finite.h"
#include "engine/capture_sink.h"
#include "engine/device_choice.h"
#include "engine/memory_plan.h"
#include "engine/progress_share.h"
#include "io/corpus/corpus.h"
#include "io/corpus/corpus_hash.h"
#include "io/gguf/gguf_import.h"
#include "io/hf/model_fingerprint.h"
#include "model/backbone/backbone.h"
#include "model/backbone/buffer_cache.h"
#include "tokenizer/bos_convention.h"
#include "tokenizer/tokenizer.h"

namespace strata::engine {

namespace {

using Clock = std::chrono::steady_clock;

/** The sampled sequences as batches of [B, T] ids with their padding masks. */
struct SequenceBatches {
  std::vector<at::Tensor> ids;
  std::vector<at::Tensor> paddingMasks;
};

SequenceBatches batchesOf(const io::TokenSample& sample, int64_t batchSequences) {
  SequenceBatches batches;
  const int64_t T = sample.sequenceLength;
  const auto all =
      at::from_blob(const_cast<int32_t*>(sample.ids.data()), {sample.numSequences(), T}, at::kInt)
          .to(at::kLong);
  const auto lengths = at::from_blob(const_cast<int32_t*>(sample.lengths.data()),
                                     {sample.numSequences(), 1}, at::kInt)
                           .to(at::kLong);
  const auto mask = at::arange(T, at::kLong).unsqueeze(0) < lengths;
  for (int64_t first = 0; first < sample.numSequences(); first += batchSequences) {
    const int64_t count = std::min(batchSequences, sample.numSequences() - first);
    batches.ids.push_back(all.narrow(0, first, count));
    batches.paddingMasks.push_back(mask.narrow(0, first, count));
  }
  return batches;
}

/** Row indices (into the flattened [S·T] positions) of the stored tokens, in storage order. */
at::Tensor storedRowIndex(const io::TokenSample& sample) {
  std::vector<int64_t> rows;
  rows.reserve(sample.tokens.size());
  for (int64_t s = 0; s < sample.numSequences(); ++s)
    for (int64_t t = sample.firstStored[s]; t < sample.lengths[s]; ++t)
      rows.push_back(s * sample.sequenceLength + t);
  if (rows.size() != sample.tokens.size())
    throw Error("capture: the sample lists " + std::to_string(sample.tokens.size()) +
                " tokens but its sequences hold " + std::to_string(rows.size()));
  return at::tensor(rows, at::kLong);
}

io::StoreMeta storeMetaFor(const CaptureConfig& config, const io::ModelConfig& model,
                           const io::TokenSample& sample, const tokenizer::BosConvention& bos) {
  io::StoreMeta meta;
  meta.modelId = std::filesystem::absolute(config.modelFolder).lexically_normal().string();
  meta.modelFingerprint = io::modelFingerprint(config.modelFolder);
  meta.architecture = model.architectureName;
  meta.hiddenSize = model.hiddenSize;
  meta.numLayers = model.numLayers;
  meta.dtype = config.dtype;
  meta.corpusHash = corpusHash(config.corpus, config.corpusOptions);
  meta.samplingPolicy = sample.policy;
  meta.extra["bos_prepended"] = sample.bos ? "true" : "false";
  meta.extra["bos_rule"] = bos.rule;
  meta.extra["compute_dtype"] = computeDTypeName(config.computeDType);
  // The corpus by name, for tabs and listings (the hash above identifies it).
  std::filesystem::path corpus = config.corpus.lexically_normal();
  if (corpus.filename().empty()) corpus = corpus.parent_path();  // "texts/" names the folder
  meta.extra["corpus_name"] = corpus.filename().string();
  return meta;
}

/**
 * Writes layers on a background thread so that deflating and writing layer l overlaps the
 * forward passes of layer l + 1. At most one write is in flight, so memory holds at most two
 * layers of stored rows. HDF5 is never called by two threads at once: the caller touches the
 * store only after finish() (or this object's destruction) has waited for the worker.
 */
class BackgroundLayerWriter {
 public:
  explicit BackgroundLayerWriter(io::ActivationStoreWriter& store) : m_store(store) {}
  /** Waits for the write in flight (when unwinding after a cancel, so that the store keeps
   *  that layer); its error, if any, is dropped here: call finish() to see it. */
  ~BackgroundLayerWriter() {
    if (m_pending.valid()) m_pending.wait();
  }
  BackgroundLayerWriter(const BackgroundLayerWriter&) = delete;
  BackgroundLayerWriter& operator=(const BackgroundLayerWriter&) = delete;

  /** Waits for the previous write (rethrowing its error), then starts writing `rows` (float32,
   *  contiguous, on the CPU); the worker keeps them alive until written. */
  void write(int64_t layer, at::Tensor rows) {
    finish();
    m_pending = std::async(std::launch::async, [this, layer, rows = std::move(rows)] {
      m_store.writeLayer(layer, {rows.data_ptr<float>(), static_cast<std::size_t>(rows.numel())});
    });
  }
  /** Waits for the write in flight, if any, and rethrows its error. */
  void finish() {
    if (m_pending.valid()) m_pending.get();
  }

 private:
  io::ActivationStoreWriter& m_store;
  std::future<void> m_pending;
};

/** The stored rows of one layer's states: [N, d] float32, contiguous, on the CPU. */
at::Tensor storedRows(const std::vector<at::Tensor>& hidden, const at::Tensor& rows) {
  const at::Tensor all = at::cat(hidden);
  // Picked on the compute device, so that only the stored rows travel back to the CPU.
  return all.reshape({-1, all.size(-1)})
      .index_select(0, rows.to(all.device()))
      .to(at::kCPU, at::kFloat)
      .contiguous();
}

/**
 * What the plan leaves of the host's memory beyond the sink's planned bytes. On the CPU the
 * capture's plan counted them; on a GPU it planned the device's memory, so the sink's (host)
 * bytes are checked here against the host's.
 */
int64_t spareHostMemory(const MemoryPlan& plan, const MemoryRequest& request, JobContext& job) {
  if (!request.cuda) return usableShareOf(plan.available) - plan.needed();
  if (request.sinkBytes == 0) return 0;
  const int64_t available = availableHostMemory();
  const int64_t spare =
      usableShareOf(available) - processCost(request.config.vocabSize, false) - request.sinkBytes;
  if (spare < 0)
    throw MemoryError("scoring each layer as it is captured needs about " +
                      formatBytes(request.sinkBytes) + " of host memory besides the process, but " +
                      formatBytes(available) +
                      " is available. Capture fewer tokens (--tokens), or score without plugin "
                      "metrics (--no-plugins)");
  job.info("scoring holds " + formatBytes(request.sinkBytes) + " of host memory");
  return spare;
}

/** NaN and ±Inf values among `rows` (float32, contiguous, on the CPU), counted in place: no
 *  mask, no copy, so the check adds nothing to the capture's memory. */
int64_t nonFiniteValues(const at::Tensor& rows) {
  const float* data = rows.data_ptr<float>();
  return at::parallel_reduce(
      int64_t{0}, rows.numel(), int64_t{1} << 16, int64_t{0},
      [data](int64_t begin, int64_t end, int64_t count) {
        return count + countNonFinite({data + begin, static_cast<std::size_t>(end - begin)});
      },
      [](int64_t a, int64_t b) { return a + b; });
}

/** The writer for this run: a new store, or the interrupted one when resuming. */
io::ActivationStoreWriter openWriter(const CaptureStart& start) {
  const CaptureConfig& config = start.config;
  if (!config.resume || !std::filesystem::exists(config.output))
    return io::ActivationStoreWriter::create(config.output, start.meta, start.tokens,
                                             config.overwrite, config.write);
  {
    // The stored rows must be exactly the ones this run will compute.
    const io::ActivationStore existing = io::ActivationStore::open(config.output);
    const io::TokenTable& stored = existing.tokens();
    io::requireStoreOfModel(config.output, existing.meta(), config.modelFolder,
                            start.meta.modelFingerprint, start.meta.hiddenSize,
                            start.meta.numLayers);
    if (stored.ids != start.tokens.ids || stored.doc != start.tokens.doc ||
        stored.position != start.tokens.position)
      throw FormatError(config.output,
                        "holds other tokens than this capture samples (different corpus, "
                        "tokenizer or sampling options): cannot resume it");
  }
  return io::ActivationStoreWriter::resume(config.output, config.write);
}

/** The activation store as a capture's sink: config.output, new or resumed; each layer written
 *  (and flushed) in the background while the next one is computed. */
class StoreSink final : public CaptureSink {
 public:
  std::vector<int64_t> begin(const CaptureStart& start) override {
    m_writer.emplace(openWriter(start));
    m_layers.emplace(*m_writer);
    const std::vector<int64_t> missing = m_writer->missingLayers();
    layersKept = start.meta.numLayers + 1 - static_cast<int64_t>(missing.size());
    return missing;
  }
  void consume(int64_t layer, at::Tensor rows, JobContext&) override {
    m_layers->write(layer, std::move(rows));
  }
  void finish() override {
    if (m_layers) m_layers->finish();
    if (m_writer) m_writer->close();
  }
  std::string keptBefore(int64_t layer) const override {
    return layer == 0 ? std::string("no layer was stored")
                      : "the store keeps layers 0.." + std::to_string(layer - 1);
  }

  int64_t layersKept = 0;

 private:
  // Declared in this order so that the layer in flight is written before the file closes.
  std::optional<io::ActivationStoreWriter> m_writer;
  std::optional<BackgroundLayerWriter> m_layers;
};

/**
 * What the forward passes compute in: Auto resolved for `device`, except that a resumed store
 * keeps the precision its finished layers were computed in (Auto adopts it; another explicit
 * choice is refused, so that one store never mixes precisions).
 */
ComputeDType captureComputeDType(const CaptureConfig& config, const at::Device& device,
                                 JobContext& job) {
  if (config.resume && std::filesystem::exists(config.output)) {
    const io::ActivationStore existing = io::ActivationStore::open(config.output);
    const auto& extra = existing.meta().extra;
    if (const auto stored = extra.find("compute_dtype"); stored != extra.end()) {
      const ComputeDType was = parseComputeDType(stored->second, "/meta@compute_dtype");
      if (config.computeDType != ComputeDType::Auto && config.computeDType != was)
        throw FormatError(config.output, std::string("was captured in ") + computeDTypeName(was) +
                                             ": resume it with --compute-dtype " +
                                             computeDTypeOption(was) +
                                             " (or start over with --overwrite)");
      job.info(std::string("computing in ") + computeDTypeName(was) +
               ", as the store being resumed was");
      return was;
    }
  }
  const ComputeChoice choice =
      chooseComputeDType(config.computeDType, device.is_cuda() ? "cuda" : "cpu");
  job.info(std::string("computing in ") + computeDTypeName(choice.dtype) + " (" +
           (config.computeDType == ComputeDType::Auto ? "auto: " : "") + choice.reason + ")");
  return choice.dtype;
}

}  // namespace

int storeWriteThreads(int requested) {
  return requested > 0 ? requested : std::max(1, at::get_num_threads());
}

CaptureSummary runCapture(const CaptureConfig& given, CaptureSink& sink, JobContext& job) {
  if (given.batchSequences < 1) throw ConfigError({}, "batch", "must be at least 1");
  // A corpus that cannot be read (missing, a folder without text, binary) is named before the
  // model is resolved and the compute dtype chosen, which may first time a bf16 product.
  io::CorpusReader::open(given.corpus, given.corpusOptions);
  // A .gguf model is imported once into a model folder (io/gguf/gguf_import.h), read from there.
  CaptureConfig config = given;
  config.write.threads = storeWriteThreads(given.write.threads);
  config.modelFolder = io::resolveModelFolder(given.modelFolder, &job);
  const at::Device device = computeDevice(config.device, "device");
  config.computeDType = captureComputeDType(config, device, job);
  const auto tokenizer = tokenizer::loadTokenizer(config.modelFolder);
  job.checkCancelled();

  // BOS only where the model's convention has one: a model trained without BOS (Strata's
  // pretrain, GPT-2) never saw it as input.
  const tokenizer::BosConvention bos =
      config.sampling.addBos
          ? tokenizer::BosConvention{*config.sampling.addBos, "set by the caller"}
          : tokenizer::bosConvention(config.modelFolder, *tokenizer);
  io::TokenSamplerConfig sampling = config.sampling;
  sampling.addBos = bos.prepend;
  job.progress(-1.0, "sampling tokens");
  const io::TokenSample sample =
      io::TokenSampler(*tokenizer, sampling).sample(config.corpus, config.corpusOptions, &job);
  if (sample.tokens.size() == 0) throw FormatError(config.corpus, "yields no tokens to capture");

  // Planned before the model is loaded, for the sample's own shape: the model streams its
  // layers when it would not fit resident, and a job that would not fit even so is refused
  // here, with what to change.
  MemoryRequest request = memoryRequestFor(config.modelFolder);
  request.computeBytes = config.computeDType == ComputeDType::BFloat16 ? 2 : 4;
  request.cuda = device.is_cuda();
  request.batchSequences = config.batchSequences;
  request.sequenceLength = sample.sequenceLength;
  request.sampleTokens = sample.numSequences() * sample.sequenceLength;
  request.streamRequested = config.streamLayers;
  request.sinkBytes =
      sink.plannedBytes(static_cast<int64_t>(sample.tokens.size()), request.config.hiddenSize);
  const MemoryPlan plan = checkMemory(request, &job, device.has_index() ? device.index() : 0);
  sink.spareMemory(spareHostMemory(plan, request, job));
  config.streamLayers = plan.stream;
  job.progress(-1.0, "loading the model");
  const auto backbone = model::Backbone::load(
      config.modelFolder,
      {.device = device,
       .streamLayers = config.streamLayers,
       .computeDType = config.computeDType == ComputeDType::BFloat16 ? at::kBFloat16 : at::kFloat});
  job.checkCancelled();

  const io::StoreMeta meta = storeMetaFor(config, backbone->config(), sample, bos);
  const std::vector<int64_t> wanted = sink.begin({config, meta, sample.tokens});
  const int64_t L = backbone->numLayers();

  CaptureSummary summary;
  summary.tokens = static_cast<int64_t>(sample.tokens.size());
  summary.sequences = sample.numSequences();
  if (wanted.empty()) {
    sink.finish();
    return summary;
  }

  at::InferenceMode inference;
  // Every block of every batch asks for the same buffer sizes: kept and handed back, they are
  // not mapped and faulted in afresh each time. Within what the plan counts for one batch.
  const model::BufferCache reusedBuffers(plan.blockBuffers);
  const SequenceBatches batches = batchesOf(sample, config.batchSequences);
  std::vector<model::AttentionOptions> attention(batches.ids.size());
  std::vector<model::PreparedAttention>
      prepared;  // each batch's mask and RoPE tables, for every layer
  for (std::size_t b = 0; b < batches.ids.size(); ++b) {
    attention[b].paddingMask = batches.paddingMasks[b];
    prepared.push_back(
        backbone->prepare(attention[b], batches.ids[b].size(0), batches.ids[b].size(1)));
  }
  const at::Tensor rows = storedRowIndex(sample);
  const int64_t lastNeeded = wanted.back();
  std::vector<at::Tensor> hidden(batches.ids.size());
  const auto started = Clock::now();
  // Invariant: after step l, hidden[b] holds h_l of batch b; layers are handed over in order.
  // Each layer has 1/(lastNeeded + 1) of the bar: its forward passes, then the sink's share.
  const double step = 1.0 / double(lastNeeded + 1);
  for (int64_t layer = 0; layer <= lastNeeded; ++layer) {
    const bool handed = std::binary_search(wanted.begin(), wanted.end(), layer);
    const double forward = step * (handed ? 1.0 - sink.layerShare() : 1.0);
    for (std::size_t b = 0; b < batches.ids.size(); ++b) {
      job.checkCancelled();
      hidden[b] = layer == 0 ? backbone->embed(batches.ids[b], attention[b])
                             : backbone->runLayers(hidden[b], layer - 1, layer, prepared[b]);
      job.progress(layer * step + forward * (b + 1.0) / batches.ids.size(),
                   "layer " + std::to_string(layer) + " of " + std::to_string(L));
    }
    if (!handed) continue;
    at::Tensor stored = storedRows(hidden, rows);
    // A NaN would poison every proxy of the layer; stop here and keep the layers before it.
    // Checked before the sink waits for its previous layer, so that the check overlaps it.
    if (const int64_t bad = nonFiniteValues(stored); bad > 0) {
      const std::string kept = sink.keptBefore(layer);
      throw Error("layer " + std::to_string(layer) + ": " + std::to_string(bad) + " of " +
                  std::to_string(stored.numel()) +
                  " hidden-state values are NaN or infinite (non-finite weights, or activations "
                  "beyond float range)" +
                  (kept.empty() ? "" : "; " + kept));
    }
    ProgressShareSink share(job, layer * step + forward, step - forward);
    JobContext layerJob = share.context();
    sink.consume(layer, std::move(stored), layerJob);
    ++summary.layersWritten;
  }
  sink.finish();
  summary.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  summary.tokensPerSecond =
      summary.seconds > 0 ? summary.tokens * static_cast<double>(lastNeeded + 1) / summary.seconds
                          : 0;
  job.progress(1.0, "done");
  return summary;
}

CaptureSummary runCapture(const CaptureConfig& config, JobContext& job) {
  // A store that could not be created is refused before the corpus is sampled and the model
  // loaded (minutes for a large one), not after.
  if (!config.resume || !std::filesystem::exists(config.output))
    io::ActivationStoreWriter::checkCreatable(config.output, config.overwrite);
  StoreSink store;
  CaptureSummary summary = runCapture(config, store, job);
  summary.layersKept = store.layersKept;
  return summary;
}

}  // namespace strata::engine
