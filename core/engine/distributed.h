#pragma once
// Data parallelism across processes: c10d's ProcessGroupGloo (CPU training) or ProcessGroupNCCL
// (CUDA training) over a TCPStore rendezvous (there is no C++ DDP in LibTorch, so gradients are
// all-reduced here, by hand). Rank 0 hosts the store at masterAddress:masterPort; every rank
// connects to it. Used by the training loop only when DistributedSetup::active().

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <memory>
#include <vector>

#include "engine/training_run.h"

namespace strata::engine {

class DataParallelGroup {
 public:
  /** Joins the group (blocks until all worldSize ranks have joined, at most `timeoutSeconds`).
   *  `device`: where the ranks train — the CPU reduces over Gloo, a CUDA device over NCCL with
   *  the buffers on that device. Throws strata::Error naming the address and the problem when
   *  the rendezvous fails, or for CUDA in a build without NCCL. */
  explicit DataParallelGroup(const DistributedSetup& setup, int timeoutSeconds = 300,
                             const at::Device& device = at::kCPU);
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  int rank() const;
  int worldSize() const;
  /** Replaces every parameter with rank 0's (call once after building the model). */
  void broadcastParameters(const std::vector<at::Tensor>& parameters);
  /** Sums every defined gradient over the ranks and divides by the world size (one flattened
   *  all-reduce per dtype). */
  void averageGradients(const std::vector<at::Tensor>& parameters);
  /** The mean over ranks of `value` (for logging losses). */
  double average(double value);
  void barrier();

 private:
  struct State;
  std::unique_ptr<State> m_state;
};

}  // namespace strata::engine
