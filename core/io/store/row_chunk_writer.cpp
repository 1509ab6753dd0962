#include "io/store/row_chunk_writer.h"

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "common/error.h"

namespace strata::io {

namespace {

/** One chunk's compressed bytes, or the error that stopped its encoding. */
struct EncodedChunk {
  std::vector<std::byte> bytes;
  std::exception_ptr error;
  bool ready = false;
};

/**
 * The hand-over between the workers and the writing thread. Workers claim chunk indices in
 * order but finish in any order; the writer takes them in order. Invariant: a worker never
 * claims chunk k unless k < written + window, so at most `window` chunks are held at a time.
 */
class ChunkHandOver {
 public:
  ChunkHandOver(int64_t chunks, int64_t window) : m_chunks(chunks), m_window(window) {
    m_slots.resize(static_cast<size_t>(chunks));
  }

  /** The next chunk for a worker, or -1 when there is none left or the write stopped. */
  int64_t claim() {
    std::unique_lock lock(m_mutex);
    m_space.wait(lock,
                 [&] { return m_stopped || m_next >= m_chunks || m_next < m_written + m_window; });
    if (m_stopped || m_next >= m_chunks) return -1;
    return m_next++;
  }
  void deliver(int64_t chunk, EncodedChunk encoded) {
    {
      const std::lock_guard lock(m_mutex);
      encoded.ready = true;
      m_slots[static_cast<size_t>(chunk)] = std::move(encoded);
    }
    m_ready.notify_all();
  }
  /** Waits for chunk `chunk` (the writer's next) and takes it out of its slot. */
  EncodedChunk take(int64_t chunk) {
    std::unique_lock lock(m_mutex);
    EncodedChunk& slot = m_slots[static_cast<size_t>(chunk)];
    m_ready.wait(lock, [&] { return slot.ready; });
    return std::move(slot);
  }
  void written(int64_t chunks) {
    {
      const std::lock_guard lock(m_mutex);
      m_written = chunks;
    }
    m_space.notify_all();
  }
  void stop() {
    {
      const std::lock_guard lock(m_mutex);
      m_stopped = true;
    }
    m_space.notify_all();
  }

 private:
  const int64_t m_chunks, m_window;
  std::mutex m_mutex;
  std::condition_variable m_space, m_ready;
  std::vector<EncodedChunk> m_slots;
  int64_t m_next = 0, m_written = 0;
  bool m_stopped = false;
};

/** Stops and joins the workers however the writer leaves, so none outlives the rows. */
class Workers {
 public:
  explicit Workers(ChunkHandOver& handOver) : m_handOver(handOver) {}
  ~Workers() {
    m_handOver.stop();
    for (std::thread& thread : m_threads) thread.join();
  }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;
  template <typename Work>
  void start(int count, Work work) {
    for (int i = 0; i < count; ++i) m_threads.emplace_back(work);
  }

 private:
  ChunkHandOver& m_handOver;
  std::vector<std::thread> m_threads;
};

}  // namespace

void writeRowChunks(hid_t dataset, const RowChunks& geometry,
                    const chunk_filters::ShuffleDeflate& filters, int threads,
                    const RowEncoder& encode, const std::filesystem::path& file,
                    const std::string& name) {
  const int64_t chunks = (geometry.rows + geometry.chunkRows - 1) / geometry.chunkRows;
  const size_t chunkBytes = static_cast<size_t>(geometry.chunkRows) * geometry.rowBytes;
  const int workerCount =
      static_cast<int>(std::clamp<int64_t>(threads, 1, std::max<int64_t>(chunks, 1)));
  ChunkHandOver handOver(chunks, 2 * static_cast<int64_t>(workerCount));
  Workers workers(handOver);
  workers.start(workerCount, [&] {
    std::vector<std::byte> raw, shuffled;
    for (int64_t chunk = handOver.claim(); chunk >= 0; chunk = handOver.claim()) {
      EncodedChunk encoded;
      try {  // nothing may escape a worker: its error goes to the writer with its chunk
        raw.resize(chunkBytes);
        shuffled.resize(chunkBytes);
        const int64_t first = chunk * geometry.chunkRows;
        const int64_t count = std::min(geometry.chunkRows, geometry.rows - first);
        const size_t used = static_cast<size_t>(count) * geometry.rowBytes;
        encode(first, count, std::span(raw).first(used));
        // HDF5 fills the part of an edge chunk outside the dataset with the fill value
        // (0 by default) and filters the whole chunk.
        std::memset(raw.data() + used, 0, chunkBytes - used);
        chunk_filters::shuffle(raw, filters.elementSize, shuffled);
        chunk_filters::deflate(shuffled, filters.level, encoded.bytes);
      } catch (...) {
        encoded.error = std::current_exception();
      }
      handOver.deliver(chunk, std::move(encoded));
    }
  });
  for (int64_t chunk = 0; chunk < chunks; ++chunk) {
    EncodedChunk encoded = handOver.take(chunk);
    if (encoded.error) std::rethrow_exception(encoded.error);  // ~Workers stops the rest
    const hsize_t offset[2] = {static_cast<hsize_t>(chunk * geometry.chunkRows), 0};
    // Filter mask 0: every filter of the pipeline was applied.
    if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset, encoded.bytes.size(),
                       encoded.bytes.data()) < 0) {
      throw IoError(file, "cannot write a chunk of dataset /" + name + " at row " +
                              std::to_string(offset[0]) + hdf5::detailSuffix());
    }
    handOver.written(chunk + 1);
  }
}

}  // namespace strata::io
