#include "engine/distributed.h"

#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <torch/torch.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <thread>
#ifdef STRATA_WITH_NCCL
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "common/error.h"

namespace strata::engine {

namespace {

// A joined group waits on its peers this long inside a collective: ranks legitimately drift
// apart (rank 0 writes a checkpoint while the others wait in the next all-reduce), so this is
// c10d's own default (30 min) rather than the rendezvous timeout.
constexpr std::chrono::milliseconds kCollectiveTimeout = std::chrono::minutes(30);

// c10::Error::what() appends a C++ backtrace; the user needs the first line only.
std::string describe(const std::exception& error) {
  if (const auto* c10Error = dynamic_cast<const c10::Error*>(&error)) {
    return c10Error->what_without_backtrace();
  }
  return error.what();
}

std::string endpoint(const DistributedSetup& setup) {
  return setup.masterAddress + ":" + std::to_string(setup.masterPort);
}

// The local address from which this machine reaches the master: gloo must bind to an address
// its peers can connect to, and the route to the master picks the right interface on a cluster
// (and 127.0.0.1 when the master is local). connect() on a UDP socket sends nothing.
std::string localAddressTowards(const DistributedSetup& setup) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(setup.masterPort);
  if (const int rc = getaddrinfo(setup.masterAddress.c_str(), port.c_str(), &hints, &found)) {
    throw Error("distributed rendezvous at " + endpoint(setup) + ": cannot resolve the address (" +
                gai_strerror(rc) + ")");
  }
  std::string local;
  for (const addrinfo* info = found; info && local.empty(); info = info->ai_next) {
    const int fd = socket(info->ai_family, info->ai_socktype, 0);
    if (fd < 0) continue;
    sockaddr_storage self{};
    socklen_t length = sizeof self;
    if (connect(fd, info->ai_addr, info->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&self), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw =
          self.ss_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(&self)->sin_addr)
              : &reinterpret_cast<sockaddr_in6*>(&self)->sin6_addr;
      if (inet_ntop(self.ss_family, raw, text, sizeof text)) local = text;
    }
    close(fd);
  }
  freeaddrinfo(found);
  if (local.empty()) {
    throw Error("distributed rendezvous at " + endpoint(setup) +
                ": no network route from this machine to the address");
  }
  return local;
}

std::shared_ptr<::gloo::transport::Device> makeDevice(const DistributedSetup& setup) {
  // GLOO_SOCKET_IFNAME is PyTorch's override for machines whose route to the master is not
  // the interface the peers should use; honour it the same way.
  if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface) {
    return c10d::ProcessGroupGloo::createDeviceForInterface(interface);
  }
  return c10d::ProcessGroupGloo::createDeviceForHostname(localAddressTowards(setup));
}

// Half and bfloat16 gradients are summed in float32: adding many ranks' values in 8 mantissa
// bits would lose the small ones.
torch::ScalarType reductionType(torch::ScalarType type) {
  return type == torch::kHalf || type == torch::kBFloat16 ? torch::kFloat : type;
}

}  // namespace

struct DataParallelGroup::State {
  DistributedSetup setup;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::Backend> group;   // Gloo on the CPU, NCCL on CUDA
  torch::Device bufferDevice = torch::kCPU;  // where collectives' buffers live (NCCL: the GPU)

  // Runs one collective and waits for it; failures name the group so a log line is enough.
  template <typename Start>
  void run(const char* what, Start start) {
    try {
      start()->wait();
    } catch (const std::exception& error) {
      throw Error(std::string("distributed ") + what + " failed on rank " +
                  std::to_string(setup.rank) + " of " + std::to_string(setup.worldSize) + " (" +
                  endpoint(setup) + "): " + describe(error));
    }
  }

  // Flattens `tensors` (same reduction dtype) into one buffer, lets `collective` work on it
  // in place, and copies each slice back into its tensor.
  template <typename Collective>
  void throughFlatBuffer(const std::vector<torch::Tensor>& tensors, Collective collective) {
    const torch::NoGradGuard noGrad;
    std::vector<torch::Tensor> pieces;
    pieces.reserve(tensors.size());
    for (const auto& tensor : tensors) {
      pieces.push_back(
          tensor.detach().reshape(-1).to(bufferDevice, reductionType(tensor.scalar_type())));
    }
    std::vector<torch::Tensor> buffer{torch::cat(pieces)};
    collective(buffer);
    int64_t offset = 0;
    for (const auto& tensor : tensors) {
      const int64_t count = tensor.numel();
      tensor.detach().copy_(buffer[0].narrow(0, offset, count).view(tensor.sizes()));
      offset += count;
    }
  }
};

DataParallelGroup::DataParallelGroup(const DistributedSetup& setup, int timeoutSeconds,
                                     const torch::Device& device)
    : m_state(std::make_unique<State>()) {
  m_state->setup = setup;
#ifndef STRATA_WITH_NCCL
  if (device.is_cuda())
    throw Error(
        "distributed training on CUDA needs NCCL, and this build of Strata found no NCCL "
        "header or library (rebuild with the wheel's nvidia-nccl package or the CUDA "
        "toolkit's NCCL), or train on the CPU with device=cpu");
#endif
  if (setup.worldSize < 1 || setup.rank < 0 || setup.rank >= setup.worldSize) {
    throw Error("distributed setup: rank " + std::to_string(setup.rank) +
                " is outside a world of size " + std::to_string(setup.worldSize));
  }
  if (setup.masterPort < 1 || setup.masterPort > 65535) {
    throw Error("distributed setup: master port " + std::to_string(setup.masterPort) +
                " is not in 1..65535");
  }
  const int seconds = std::max(1, timeoutSeconds);
  const std::chrono::milliseconds timeout(seconds * int64_t{1000});
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const auto failure = [&](const std::string& problem) {
    return Error("distributed rendezvous at " + endpoint(setup) + " failed for rank " +
                 std::to_string(setup.rank) + " of " + std::to_string(setup.worldSize) + " (" +
                 std::to_string(seconds) + " s timeout): " + problem);
  };
  try {
    // Resolving the master first makes a bad address fail at once rather than at the timeout
    // (NCCL finds its own interfaces, as PyTorch's does: NCCL_SOCKET_IFNAME).
    std::shared_ptr<::gloo::transport::Device> glooDevice;
    if (!device.is_cuda()) glooDevice = makeDevice(setup);
    // Rank 0 serves the store; the others retry connecting to it until the timeout.
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(setup.masterPort);
    options.isServer = setup.rank == 0;
    options.numWorkers = static_cast<std::size_t>(setup.worldSize);
    options.waitWorkers = false;  // ignores the timeout in LibTorch 1.13: counted below instead
    options.timeout = timeout;
    m_state->store = c10::make_intrusive<c10d::TCPStore>(setup.masterAddress, options);

    // Every rank counts itself in and waits for the others, so a missing rank fails every
    // present one at the deadline (gloo's own rendezvous would wait the collective timeout).
    const std::string joinedKey = "strata/joined";
    int64_t joined = m_state->store->add(joinedKey, 1);
    while (joined < setup.worldSize) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw failure("only " + std::to_string(joined) + " of " + std::to_string(setup.worldSize) +
                      " ranks joined");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      joined = m_state->store->add(joinedKey, 0);
    }

#ifdef STRATA_WITH_NCCL
    if (device.is_cuda()) {
      // Each rank reduces on its own GPU; NCCL's communicator is made at the first collective.
      auto ncclOptions = c10d::ProcessGroupNCCL::Options::create();
      ncclOptions->timeout = std::max(timeout, kCollectiveTimeout);
      m_state->bufferDevice = device;
      m_state->group = c10::make_intrusive<c10d::ProcessGroupNCCL>(m_state->store, setup.rank,
                                                                   setup.worldSize, ncclOptions);
      return;
    }
#endif
    // A rank that dies between counting in and gloo's own rendezvous below is noticed only at
    // the collective timeout: gloo has one timeout for both, and collectives need the long one.
    auto groupOptions =
        c10d::ProcessGroupGloo::Options::create(std::max(timeout, kCollectiveTimeout));
    groupOptions->devices.push_back(std::move(glooDevice));
    // Every collective is waited for at once, so one worker thread is enough.
    groupOptions->threads = 1;
    m_state->group = c10::make_intrusive<c10d::ProcessGroupGloo>(m_state->store, setup.rank,
                                                                 setup.worldSize, groupOptions);
  } catch (const Error&) {
    throw;
  } catch (const std::exception& error) {
    throw failure(describe(error));
  }
}

DataParallelGroup::~DataParallelGroup() = default;

int DataParallelGroup::rank() const { return m_state->setup.rank; }

int DataParallelGroup::worldSize() const { return m_state->setup.worldSize; }

void DataParallelGroup::broadcastParameters(const std::vector<torch::Tensor>& parameters) {
  std::map<torch::ScalarType, std::vector<torch::Tensor>> byType;
  for (const auto& parameter : parameters) {
    if (parameter.defined()) byType[reductionType(parameter.scalar_type())].push_back(parameter);
  }
  // std::map keeps the dtype order the same on every rank, so the collectives pair up.
  for (const auto& [type, group] : byType) {
    m_state->throughFlatBuffer(group, [&](std::vector<torch::Tensor>& buffer) {
      c10d::BroadcastOptions options;
      options.rootRank = 0;
      m_state->run("broadcast", [&] { return m_state->group->broadcast(buffer, options); });
    });
  }
}

void DataParallelGroup::averageGradients(const std::vector<torch::Tensor>& parameters) {
  // Which gradients are defined must agree across ranks (same model, same loss): otherwise
  // the ranks' buffers differ in size or number and their collectives no longer pair up.
  std::map<torch::ScalarType, std::vector<torch::Tensor>> byType;
  for (const auto& parameter : parameters) {
    if (parameter.defined() && parameter.grad().defined()) {
      byType[reductionType(parameter.grad().scalar_type())].push_back(parameter.grad());
    }
  }
  const double ranks = m_state->setup.worldSize;
  for (const auto& [type, grads] : byType) {
    m_state->throughFlatBuffer(grads, [&](std::vector<torch::Tensor>& buffer) {
      m_state->run("all-reduce", [&] { return m_state->group->allreduce(buffer); });
      buffer[0].div_(ranks);
    });
  }
}

double DataParallelGroup::average(double value) {
  std::vector<torch::Tensor> buffer{torch::full(
      {1}, value, torch::TensorOptions().dtype(torch::kDouble).device(m_state->bufferDevice))};
  m_state->run("all-reduce", [&] { return m_state->group->allreduce(buffer); });
  return buffer[0].item<double>() / m_state->setup.worldSize;
}

void DataParallelGroup::barrier() {
  m_state->run("barrier", [&] { return m_state->group->barrier(); });
}

}  // namespace strata::engine
