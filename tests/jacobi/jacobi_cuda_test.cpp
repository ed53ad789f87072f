// What only the Cuda backend's Jacobi has: host operands only, pinned or pageable A,
// staging in several chunks, and the check interval it picks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "common/backend_under_test.hpp"
#include "common/expect_error.hpp"
#include "common/scoped_environment.hpp"
#include "fastmv/cuda.hpp"
#include "fastmv/fastmv.hpp"

namespace fastmv_test {
namespace {

using fastmv::index_t;
using fastmv::Layout;

class JacobiCudaTest : public BackendTest {};

// FASTMV_JACOBI_ITERATION set (null: unset) for the object's lifetime.
class IterationVariable : public ScopedEnvironment {
 public:
  explicit IterationVariable(const char* value) : ScopedEnvironment("FASTMV_JACOBI_ITERATION", value) {}
};

TEST_F(JacobiCudaTest, DeviceOperandsAreRefused) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const index_t n = 8;
  auto system = fastmv::generate_jacobi_system<float>(n, 1.2, 1);
  fastmv::cuda::DeviceBuffer<float> device(context, n * n);
  std::vector<float> x(n, 3.0f);
  try {
    fastmv::jacobi(context, Layout::RowMajor, n, n, device.data(), n, system.b.data(), x.data());
    ADD_FAILURE() << "device memory for A was accepted";
  } catch (const fastmv::InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "A");
    EXPECT_NE(std::string(error.what()).find("is device memory"), std::string::npos) << error.what();
  }
  EXPECT_EQ(x, std::vector<float>(n, 3.0f));
}

// 2500^2 floats are 25 MB: several 8 MiB staging chunks, with a last one partly full;
// from pinned memory the copy goes direct. Both give the Cpu backend's answer.
TEST_F(JacobiCudaTest, StagedAndPinnedMatricesGiveTheCpuAnswer) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const fastmv::Context cpu(fastmv::Backend::Cpu);
  const index_t n = 2500;
  for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
    SCOPED_TRACE(fastmv::to_string(layout));
    auto system = fastmv::generate_jacobi_system<float>(n, 1.2, 7, layout);
    fastmv::JacobiOptions options;
    options.tolerance = 1e-5;
    options.check_every = 1;
    std::vector<float> expected;
    const auto oracle = fastmv::jacobi(cpu, system.A, system.b, expected, options);
    ASSERT_EQ(oracle.status, fastmv::JacobiStatus::Converged);

    std::vector<float> x;
    const auto staged = fastmv::jacobi(context, system.A, system.b, x, options);
    fastmv::cuda::PinnedBuffer<float> pinned(n * n);
    std::copy(system.A.values.begin(), system.A.values.end(), pinned.data());
    std::vector<float> y(n);
    const auto direct = fastmv::jacobi(context, layout, n, n, pinned.data(), n, system.b.data(),
                                       y.data(), options);
    for (const auto* result : {&staged, &direct}) {
      EXPECT_EQ(result->status, fastmv::JacobiStatus::Converged);
      EXPECT_LE(std::abs(result->iterations - oracle.iterations), 3);
      EXPECT_GT(result->transfer_seconds, 0);
    }
    EXPECT_EQ(staged.iterations, direct.iterations);
    for (index_t i = 0; i < n; ++i) {
      ASSERT_NEAR(x[i], expected[i], 1e-4 * std::fabs(expected[i]) + 1e-9) << "element " << i;
      ASSERT_EQ(x[i], y[i]) << "element " << i << ": staged and pinned copies differ";
    }
  }
}

TEST_F(JacobiCudaTest, ChecksEvery16thIterationOnMatricesInL2) {
  const IterationVariable unset(nullptr);
  const fastmv::Context context(fastmv::Backend::Cuda);
  auto small = fastmv::generate_jacobi_system<float>(256, 1.4, 3);
  std::vector<float> x;
  const auto result = fastmv::jacobi(context, small.A, small.b, x);
  EXPECT_EQ(result.status, fastmv::JacobiStatus::Converged);
  EXPECT_EQ(result.check_every, 16);
  EXPECT_EQ(result.iterations % 16, 0);
}

// Both ways of iterating (one GEMV an update; one cooperative kernel an interval),
// forced for every shape, against the Cpu backend: the same iteration counts within
// 2 with a check every iteration, and the same x to within the tolerance.
template <typename T>
void expect_both_iterations_agree(const fastmv::Context& context, index_t n, Layout layout, double alpha) {
  SCOPED_TRACE("n = " + std::to_string(n) + ", " + fastmv::to_string(layout) + ", " +
               (sizeof(T) == 4 ? "float" : "double") + ", alpha = " + std::to_string(alpha));
  const fastmv::Context cpu(fastmv::Backend::Cpu);
  auto system = fastmv::generate_jacobi_system<T>(n, alpha, static_cast<unsigned long long>(n) + 11, layout);
  fastmv::JacobiOptions options;
  options.tolerance = sizeof(T) == 4 ? 1e-5 : 1e-12;
  options.check_every = 1;
  std::vector<T> expected;
  const auto oracle = fastmv::jacobi(cpu, system.A, system.b, expected, options);
  ASSERT_EQ(oracle.status, fastmv::JacobiStatus::Converged);
  for (const char* iteration : {"gemv", "fused"}) {
    SCOPED_TRACE(iteration);
    const IterationVariable forced(iteration);
    std::vector<T> x(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN());
    const auto result = fastmv::jacobi(context, system.A, system.b, x, options);
    EXPECT_EQ(result.status, fastmv::JacobiStatus::Converged);
    EXPECT_LE(std::abs(result.iterations - oracle.iterations), 2);
    EXPECT_LE(result.residual, options.tolerance);
    for (index_t i = 0; i < n; ++i) {
      ASSERT_NEAR(x[i], expected[i], 20 * options.tolerance * (std::fabs(expected[i]) + 1)) << "element " << i;
    }
  }
}

TEST_F(JacobiCudaTest, GemvAndFusedIterationsGiveTheCpuAnswer) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
    for (const index_t n : {1, 2, 3, 5, 17, 100, 257, 1001}) {
      expect_both_iterations_agree<float>(context, n, layout, 1.2);
      expect_both_iterations_agree<double>(context, n, layout, 1.4);
    }
  }
}

TEST_F(JacobiCudaTest, BothIterationsReportDivergence) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  auto system = fastmv::generate_jacobi_system<float>(300, 0.5, 5);
  for (const char* iteration : {"gemv", "fused"}) {
    SCOPED_TRACE(iteration);
    const IterationVariable forced(iteration);
    std::vector<float> x;
    const auto result = fastmv::jacobi(context, system.A, system.b, x);
    EXPECT_EQ(result.status, fastmv::JacobiStatus::Diverged);
    EXPECT_LE(result.iterations, 24 + 2 * result.check_every);
  }
}

TEST_F(JacobiCudaTest, AnUnknownIterationIsRefused) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  auto system = fastmv::generate_jacobi_system<float>(8, 1.2, 1);
  const IterationVariable forced("cublas");
  std::vector<float> x(8, 3.0f);
  try {
    fastmv::jacobi(context, fastmv::Layout::RowMajor, 8, 8, system.A.values.data(), 8, system.b.data(),
                   x.data());
    ADD_FAILURE() << "FASTMV_JACOBI_ITERATION=cublas was accepted";
  } catch (const fastmv::InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "FASTMV_JACOBI_ITERATION");
  }
  EXPECT_EQ(x, std::vector<float>(8, 3.0f));
}

// Solves running at once on one context each get their own streams, events and
// pinned memory (CudaState::SolverSet), and their own answers.
TEST_F(JacobiCudaTest, ConcurrentSolvesOnOneContext) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const fastmv::Context cpu(fastmv::Backend::Cpu);
  constexpr int kThreads = 4;
  std::vector<fastmv::JacobiSystem<float>> systems;
  std::vector<std::vector<float>> expected(kThreads), solved(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    systems.push_back(fastmv::generate_jacobi_system<float>(200 + 700 * t, 1.2, 20 + t));
    fastmv::JacobiOptions options;
    fastmv::jacobi(cpu, systems[t].A, systems[t].b, expected[t], options);
  }
  std::vector<std::thread> threads;
  std::vector<std::string> errors(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int repeat = 0; repeat < 3; ++repeat) fastmv::jacobi(context, systems[t].A, systems[t].b, solved[t]);
      } catch (const std::exception& error) {
        errors[t] = error.what();
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(errors[t], "") << "system " << t;
    ASSERT_EQ(solved[t].size(), expected[t].size());
    for (std::size_t i = 0; i < solved[t].size(); ++i) {
      ASSERT_NEAR(solved[t][i], expected[t][i], 1e-4 * (std::fabs(expected[t][i]) + 1)) << "system " << t;
    }
  }
}

}  // namespace
}  // namespace fastmv_test
