// Data parallelism across real processes: each rank is a fork()ed child that joins the group
// on a free loopback port and reports its tensors as text through a pipe. The parent kills
// every child at a deadline, so a hung rendezvous or collective fails the test, never CI.

#include <torch/torch.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "engine/distributed.h"

namespace strata::engine {

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

/** A port nobody listens on now (the kernel's choice for port 0). */
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  close(fd);
  return ntohs(address.sin_port);
}

/** gtest's EXPECT cannot report from a child process: a throw becomes the rank's failure. */
void require(bool condition, const std::string& what) {
  if (!condition) throw std::runtime_error("requirement failed: " + what);
}

DistributedSetup loopback(int rank, int worldSize, int port) {
  return {rank, worldSize, "127.0.0.1", port};
}

/** What one rank's process sent back: the body's text, or its error / why it was killed. */
struct RankOutcome {
  bool ok = false;
  std::string output;
};

/**
 * Runs body(rank) in `ranks` forked processes at once. A child runs single-threaded torch
 * (OpenMP state inherited through fork() is not safe to reuse) and never returns into gtest.
 */
std::vector<RankOutcome> runRanks(int ranks, const std::function<std::string(int)>& body,
                                  std::chrono::seconds limit = 60s) {
  std::fflush(nullptr);  // or the children would print the parent's buffered output again
  std::vector<pid_t> children;
  std::vector<pollfd> pipes;
  for (int rank = 0; rank < ranks; ++rank) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
    const pid_t pid = fork();
    if (pid == 0) {
      close(fds[0]);
      torch::set_num_threads(1);
      std::string text;
      int code = 0;
      try {
        text = body(rank);
      } catch (const std::exception& error) {
        text = error.what();
        code = 1;
      }
      for (size_t sent = 0; sent < text.size();) {
        const ssize_t n = write(fds[1], text.data() + sent, text.size() - sent);
        if (n <= 0) break;
        sent += static_cast<size_t>(n);
      }
      _exit(code);
    }
    close(fds[1]);
    children.push_back(pid);
    pipes.push_back({fds[0], POLLIN, 0});
  }

  std::vector<RankOutcome> outcomes(ranks);
  std::vector<bool> finished(ranks, false);
  const auto deadline = Clock::now() + limit;
  for (int open = ranks; open > 0 && Clock::now() < deadline;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (poll(pipes.data(), pipes.size(), static_cast<int>(left.count()) + 1) <= 0) continue;
    for (int rank = 0; rank < ranks; ++rank) {
      if (pipes[rank].fd < 0 || pipes[rank].revents == 0) continue;
      char chunk[4096];
      const ssize_t n = read(pipes[rank].fd, chunk, sizeof chunk);
      if (n > 0) {
        outcomes[rank].output.append(chunk, static_cast<size_t>(n));
      } else {
        close(pipes[rank].fd);
        pipes[rank].fd = -1;  // poll() skips negative descriptors
        finished[rank] = true;
        --open;
      }
    }
  }
  for (int rank = 0; rank < ranks; ++rank) {
    if (!finished[rank]) {
      kill(children[rank], SIGKILL);
      close(pipes[rank].fd);
      outcomes[rank].output = "killed after " + std::to_string(limit.count()) + " s";
    }
    int status = 0;
    waitpid(children[rank], &status, 0);
    outcomes[rank].ok = finished[rank] && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  return outcomes;
}

/** Exact text form of a tensor's values ("%.17g" round-trips a double). */
std::string encode(const torch::Tensor& values) {
  const auto flat = values.detach().to(torch::kDouble).reshape(-1).contiguous();
  std::ostringstream out;
  out.precision(17);
  for (int64_t i = 0; i < flat.numel(); ++i) out << flat.data_ptr<double>()[i] << ' ';
  return out.str();
}

torch::Tensor decode(const std::string& text) {
  std::istringstream in(text);
  std::vector<double> values;
  for (double value; in >> value;) values.push_back(value);
  return torch::tensor(values, torch::kDouble);
}

TEST(DataParallelGroup, AveragesGradientsToTheExactMean) {
  const int port = freePort();
  const auto outcomes = runRanks(2, [port](int rank) {
    DataParallelGroup group(loopback(rank, 2, port), 30);
    const double scale = rank + 1;  // rank 0 holds g, rank 1 holds 2g: the mean is 1.5g
    auto weights = torch::zeros({2, 3}, torch::requires_grad());
    weights.mutable_grad() = torch::arange(6, torch::kFloat).reshape({2, 3}) * scale;
    auto offsets = torch::zeros({4}, torch::dtype(torch::kDouble).requires_grad(true));
    offsets.mutable_grad() = torch::full({4}, 0.25, torch::kDouble) * scale;
    auto halfPrecision = torch::zeros({2}, torch::dtype(torch::kBFloat16).requires_grad(true));
    halfPrecision.mutable_grad() = torch::full({2}, 3.0, torch::kBFloat16) * scale;
    auto unused = torch::zeros({5}, torch::requires_grad());  // no gradient: must stay so
    group.averageGradients({weights, offsets, unused, halfPrecision});
    group.barrier();
    require(halfPrecision.grad().scalar_type() == torch::kBFloat16, "bfloat16 stays bfloat16");
    return encode(
        torch::cat({weights.grad().reshape(-1).to(torch::kDouble), offsets.grad(),
                    halfPrecision.grad().to(torch::kDouble),
                    torch::tensor({unused.grad().defined() ? 1.0 : 0.0}, torch::kDouble)}));
  });
  const auto expected =
      torch::cat({torch::arange(6, torch::kDouble) * 1.5, torch::full({4}, 0.375, torch::kDouble),
                  torch::full({2}, 4.5, torch::kDouble), torch::zeros({1}, torch::kDouble)});
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok) << "rank " << rank << ": " << outcomes[rank].output;
    EXPECT_TRUE(torch::equal(decode(outcomes[rank].output), expected)) << outcomes[rank].output;
  }
}

TEST(DataParallelGroup, BroadcastGivesEveryRankRankZerosParameters) {
  const int port = freePort();
  const auto outcomes = runRanks(2, [port](int rank) {
    DataParallelGroup group(loopback(rank, 2, port), 30);
    auto weights = torch::full({2, 2}, rank + 1.0, torch::requires_grad());
    auto counts = torch::arange(3, torch::kDouble) + 10.0 * rank;
    group.broadcastParameters({weights, counts});
    group.barrier();
    return encode(torch::cat({weights.reshape(-1).to(torch::kDouble), counts}));
  });
  const auto expected = torch::tensor({1.0, 1.0, 1.0, 1.0, 0.0, 1.0, 2.0}, torch::kDouble);
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok) << "rank " << rank << ": " << outcomes[rank].output;
    EXPECT_TRUE(torch::equal(decode(outcomes[rank].output), expected)) << outcomes[rank].output;
  }
}

TEST(DataParallelGroup, AveragesAScalarOverRanks) {
  const int port = freePort();
  const auto outcomes = runRanks(2, [port](int rank) {
    DataParallelGroup group(loopback(rank, 2, port), 30);
    require(group.rank() == rank && group.worldSize() == 2, "rank and world size");
    return encode(torch::tensor({group.average(rank == 0 ? 1.0 : 4.0)}, torch::kDouble));
  });
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok) << "rank " << rank << ": " << outcomes[rank].output;
    EXPECT_EQ(decode(outcomes[rank].output).item<double>(), 2.5);
  }
}

/**
 * Three SGD-with-momentum steps of a linear model on the mean-squared error of a fixed 4-row
 * batch; with a group, this rank sees rows [2r, 2r + 2) only and averages the gradients.
 * Rank 1 starts from different weights, so the broadcast is part of what is checked.
 */
torch::Tensor trainLinear(DataParallelGroup* group) {
  torch::manual_seed(group ? 7 + group->rank() : 7);
  torch::nn::Linear model(3, 2);
  if (group) group->broadcastParameters(model->parameters());
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1).momentum(0.9));
  auto inputs = torch::sin(torch::arange(12, torch::kFloat)).reshape({4, 3});
  auto targets = torch::cos(torch::arange(8, torch::kFloat)).reshape({4, 2});
  if (group) {
    inputs = inputs.narrow(0, 2 * group->rank(), 2);
    targets = targets.narrow(0, 2 * group->rank(), 2);
  }
  for (int step = 0; step < 3; ++step) {
    optimizer.zero_grad();
    torch::mse_loss(model->forward(inputs), targets).backward();
    if (group) group->averageGradients(model->parameters());
    optimizer.step();
  }
  std::vector<torch::Tensor> flat;
  for (const auto& parameter : model->parameters()) flat.push_back(parameter.detach().reshape(-1));
  return torch::cat(flat);
}

TEST(DataParallelGroup, TwoRanksOnHalfBatchesTrainLikeOneProcessOnTheWholeBatch) {
  const int port = freePort();
  const auto outcomes = runRanks(2, [port](int rank) {
    DataParallelGroup group(loopback(rank, 2, port), 30);
    return encode(trainLinear(&group));
  });
  ASSERT_TRUE(outcomes[0].ok) << "rank 0: " << outcomes[0].output;
  ASSERT_TRUE(outcomes[1].ok) << "rank 1: " << outcomes[1].output;
  const auto rank0 = decode(outcomes[0].output);
  const auto rank1 = decode(outcomes[1].output);
  EXPECT_TRUE(torch::equal(rank0, rank1)) << "the ranks' parameters diverged";

  const auto single = trainLinear(nullptr).to(torch::kDouble);
  torch::manual_seed(7);
  const torch::nn::Linear untrained(3, 2);
  const auto initial =
      torch::cat({untrained->weight.reshape(-1), untrained->bias}).to(torch::kDouble).detach();
  ASSERT_EQ(rank0.numel(), single.numel());
  const double relative = ((rank0 - single).norm() / single.norm()).item<double>();
  EXPECT_LT(relative, 1e-6) << "two ranks: " << outcomes[0].output
                            << "\none process: " << encode(single);
  EXPECT_GT((single - initial).abs().max().item<double>(), 1e-3) << "training did not move";
}

TEST(DataParallelGroup, AveragesCudaGradientsOverNccl) {
  // NCCL needs one GPU per rank; the build machines have none.
  if (torch::cuda::device_count() < 2)
    GTEST_SKIP() << "NCCL needs two CUDA devices, found " << torch::cuda::device_count();
  const int port = freePort();
  const auto outcomes = runRanks(2, [port](int rank) {
    const torch::Device gpu(torch::kCUDA, static_cast<c10::DeviceIndex>(rank));
    DataParallelGroup group(loopback(rank, 2, port), 30, gpu);
    auto weights =
        torch::zeros({2, 3}, torch::dtype(torch::kFloat).device(gpu).requires_grad(true));
    weights.mutable_grad() = (torch::arange(6, torch::kFloat).reshape({2, 3}) * (rank + 1)).to(gpu);
    group.averageGradients({weights});
    require(weights.grad().device() == gpu, "the gradient stays on the rank's GPU");
    return encode(weights.grad().cpu());
  });
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_TRUE(outcomes[rank].ok) << "rank " << rank << ": " << outcomes[rank].output;
    EXPECT_TRUE(torch::equal(decode(outcomes[rank].output), torch::arange(6, torch::kDouble) * 1.5))
        << outcomes[rank].output;
  }
}

/** Joins alone a world of two with a short timeout; returns the error text, or "joined". */
std::string joinAlone(const DistributedSetup& setup) {
  try {
    DataParallelGroup group(setup, 3);
    return "joined";
  } catch (const Error& error) {
    return std::string("Error: ") + error.what();
  }
}

TEST(DataParallelGroup, RankZeroFailsWithThePortWhenAPeerNeverJoins) {
  const int port = freePort();
  const auto start = Clock::now();
  const auto outcomes = runRanks(
      1, [port](int) { return joinAlone(loopback(0, 2, port)); }, 30s);
  ASSERT_TRUE(outcomes[0].ok) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find("Error: "), std::string::npos) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << outcomes[0].output;
  EXPECT_LT(Clock::now() - start, 20s);
}

TEST(DataParallelGroup, OtherRankFailsWithThePortWhenNoServerListens) {
  const int port = freePort();
  const auto outcomes = runRanks(
      1, [port](int) { return joinAlone(loopback(1, 2, port)); }, 30s);
  ASSERT_TRUE(outcomes[0].ok) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find("Error: "), std::string::npos) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find("127.0.0.1:" + std::to_string(port)), std::string::npos)
      << outcomes[0].output;
}

TEST(DataParallelGroup, RankZeroFailsWhenThePortIsTaken) {
  const int port = freePort();
  const auto outcomes = runRanks(
      1,
      [port](int) {
        const int holder = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_ANY);
        address.sin_port = htons(static_cast<uint16_t>(port));
        if (bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(holder, 1) != 0) {
          throw std::runtime_error("cannot hold the port");
        }
        return joinAlone(loopback(0, 2, port));
      },
      30s);
  ASSERT_TRUE(outcomes[0].ok) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find("Error: "), std::string::npos) << outcomes[0].output;
  EXPECT_NE(outcomes[0].output.find(std::to_string(port)), std::string::npos) << outcomes[0].output;
}

TEST(DataParallelGroup, UnresolvableAddressFailsWithoutWaitingForTheTimeout) {
  const auto start = Clock::now();
  DistributedSetup setup{1, 2, "no-such-host.invalid", 29500};
  try {
    DataParallelGroup group(setup, 60);
    FAIL() << "joined a group at an unresolvable address";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("no-such-host.invalid:29500"), std::string::npos)
        << error.what();
  }
  EXPECT_LT(Clock::now() - start, 30s);  // a slow resolver, not the 60 s rendezvous timeout
}

TEST(DataParallelGroup, RejectsARankOutsideTheWorld) {
  EXPECT_THROW(DataParallelGroup(loopback(2, 2, 29500), 1), Error);
}

}  // namespace
}  // namespace strata::engine
