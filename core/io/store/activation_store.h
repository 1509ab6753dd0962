#pragma once
// The activation store: one HDF5 file holding the hidden states of every layer of a model
// over a sampled corpus. Capture writes it layer by layer; geometry and the views read it.
//
// Layout (h5py: f["layers/7"][:], f["meta"].attrs):
//   /meta             group; attributes model_id, architecture, dtype, corpus_hash,
//                     sampling_policy, strata_version, created_utc (strings), hidden_size,
//                     num_layers (int64), plus free-form string attributes
//   /tokens/ids, /tokens/doc, /tokens/position        int32 [N]
//   /layers/<l>       float16 or float32 [N, d], l = 0..L (0 = embedding output); chunked
//                     by whole rows, shuffle + deflate (chunks compressed on a pool of
//                     threads and written directly: the same bytes HDF5's filters make)
//   /layers_complete  uint8 [L+1]; 1 once layer l is fully written and flushed
//
// Crash safety: the writer creates every object first, under a hidden staging name beside the
// store, switches the file to SWMR (single-writer/multiple-reader) mode and only then renames
// it into place; it flushes each layer before setting its flag. A writer killed before the
// rename leaves no store (and an old one it was to overwrite intact); killed at any later
// point, it leaves a file whose finished layers stay readable, by this reader and
// by h5py opened with swmr=True (a plain h5py open refuses: the file is still marked as
// being written until resume() finishes and closes it).
//
// Threading: neither class is thread-safe; do all calls on one object from one thread. The
// objects hold an open HDF5 file; they are move-only and close it when destroyed.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace strata::io {

/** Element type of the stored layers. Readers always get float32 back. */
enum class StoreDType { Float16, Float32 };

/** "float16" / "float32", as written in /meta@dtype and as numpy names them. */
const char* storeDTypeName(StoreDType dtype);

/** What the store holds and how it was made: the /meta attributes. */
struct StoreMeta {
  std::string modelId;
  /** modelFingerprint() of the model folder; empty in stores written before it was recorded. */
  std::string modelFingerprint;
  std::string architecture;
  int64_t hiddenSize = 0;  // d
  int64_t numLayers = 0;   // L: layers 0..L are stored, 0 being the embedding output
  StoreDType dtype = StoreDType::Float16;
  std::string corpusHash;
  std::string samplingPolicy;  // free text, typically JSON
  /** Extra string attributes; names must not clash with the ones above. */
  std::map<std::string, std::string> extra;
  // Set by the writer; ignored when passed to create(), filled in by the reader.
  std::string strataVersion;
  std::string createdUtc;  // ISO 8601, "2024-05-01T12:00:00Z"
};

/** The sampled tokens, one entry per stored row: token id, document index, position in doc. */
struct TokenTable {
  std::vector<int32_t> ids;
  std::vector<int32_t> doc;
  std::vector<int32_t> position;
  size_t size() const { return ids.size(); }
};

/**
 * How a writer compresses. Neither choice changes what readers see: the layers keep the
 * shuffle + deflate pipeline, so h5py and every HDF5 reader read any store the same way.
 */
struct StoreWriteOptions {
  /** Threads that shuffle and deflate a layer's chunks (the writing thread comes on top);
   *  0 = one per hardware thread. */
  int threads = 0;
  /** zlib level of a new store's datasets, 1 (fastest) .. 9. Hidden states are close to
   *  random bits: level 4 stores float16 layers in ~3 % fewer bytes than 1 at ~2.2x the time. */
  int deflateLevel = 1;
  /** false: hand whole blocks to HDF5, which filters the chunks itself on the writing thread
   *  (the path before direct chunk writes; kept as the reference they are checked against). */
  bool directChunks = true;
};

/** The compressing threads a writer uses: `options.threads`, or one per hardware thread. */
int writeThreadsFor(const StoreWriteOptions& options);

/**
 * Writes a store, one layer at a time, in any order. Every error names the file and, where
 * one is involved, the layer (FormatError for bad arguments or a file that is not a store,
 * IoError when the system or HDF5 refuses to write).
 *
 * While a writer is open it holds an advisory lock on the file, so a second writer (create
 * with overwrite, or resume) in this or another process is refused instead of corrupting the
 * file. A reader may open the store while it is written, also in the writer's own process.
 */
class ActivationStoreWriter {
 public:
  /**
   * Creates the file with every group, attribute and dataset and starts SWMR mode, under the
   * staging name `.<name>.creating` in the same folder, then renames it to `file`. Refuses an
   * existing file unless `overwrite`, and a store another writer still holds even then. Needs N =
   * tokens.size() > 0 and meta.hiddenSize > 0.
   */
  static ActivationStoreWriter create(const std::filesystem::path& file, const StoreMeta& meta,
                                      const TokenTable& tokens, bool overwrite = false,
                                      const StoreWriteOptions& options = {});
  /**
   * What create() would refuse for the place alone, checked before the work that fills the
   * store (sampling a corpus, loading a model): an existing `file` without `overwrite` (or one
   * that is a folder), a folder that does not exist or cannot be written. Throws IoError with
   * create()'s wording; writes nothing.
   */
  static void checkCreatable(const std::filesystem::path& file, bool overwrite);
  /**
   * Reopens an existing store to finish it, also one whose writer was killed: clears the
   * "being written" mark such a writer leaves behind (what `h5clear` does), then continues in
   * SWMR mode. missingLayers() says what is left to write. Layers keep the deflate level the
   * store was created with (options.deflateLevel is not used).
   */
  static ActivationStoreWriter resume(const std::filesystem::path& file,
                                      const StoreWriteOptions& options = {});

  ActivationStoreWriter(ActivationStoreWriter&&) noexcept;
  ActivationStoreWriter& operator=(ActivationStoreWriter&&) noexcept;
  ActivationStoreWriter(const ActivationStoreWriter&) = delete;
  ActivationStoreWriter& operator=(const ActivationStoreWriter&) = delete;
  /** Closes the file; errors are swallowed here, so call close() to see them. */
  ~ActivationStoreWriter();

  /**
   * Writes layer `layer` (0..L) from N×d row-major values, flushes it to the file, then marks
   * it complete. Rewriting a layer is allowed. For float16 stores a value beyond the float16
   * range (±65504) is refused rather than stored as infinity.
   */
  void writeLayer(int64_t layer, std::span<const float> rowsMajor);
  /** Layers not yet marked complete, ascending. */
  std::vector<int64_t> missingLayers() const;
  const StoreMeta& meta() const;
  int64_t numTokens() const;
  const std::filesystem::path& path() const;
  /** Flushes and closes the file and releases the lock. Idempotent; throws IoError on failure. */
  void close();

 private:
  struct State;
  explicit ActivationStoreWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

/**
 * Reads a store. open() validates the layout (attributes and their types, dataset shapes and
 * types) and throws FormatError naming the file and the missing or malformed item. Only
 * completed layers are served; asking for another is a FormatError saying it was not finished.
 * A store still being written (or left by a killed writer) is opened in SWMR-read mode.
 */
class ActivationStore {
 public:
  static ActivationStore open(const std::filesystem::path& file);

  ActivationStore(ActivationStore&&) noexcept;
  ActivationStore& operator=(ActivationStore&&) noexcept;
  ActivationStore(const ActivationStore&) = delete;
  ActivationStore& operator=(const ActivationStore&) = delete;
  ~ActivationStore();

  const StoreMeta& meta() const;
  const TokenTable& tokens() const;
  int64_t numTokens() const;
  const std::filesystem::path& path() const;

  std::vector<int64_t> completedLayers() const;
  bool layerComplete(int64_t layer) const;
  /** Re-reads the completion flags: picks up layers a live writer has finished since open. */
  void refresh();

  /** The whole layer, N×d row-major float32 (float16 stores are widened exactly). */
  std::vector<float> readLayer(int64_t layer) const;
  /** Rows [firstRow, firstRow + count) of a layer, count×d row-major float32. */
  std::vector<float> readRows(int64_t layer, int64_t firstRow, int64_t count) const;

 private:
  struct State;
  explicit ActivationStore(std::unique_ptr<State> state);
  std::unique_ptr<State> m_state;
};

}  // namespace strata::io
