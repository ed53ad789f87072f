// What only the Cuda backend's Jacobi has: host operands only, pinned or pageable A,
// staging in several chunks, and the check interval it picks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/backend_under_test.hpp"
#include "common/expect_error.hpp"
#include "fastmv/cuda.hpp"
#include "fastmv/fastmv.hpp"

namespace fastmv_test {
namespace {

using fastmv::index_t;
using fastmv::Layout;

class JacobiCudaTest : public BackendTest {};

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

TEST_F(JacobiCudaTest, ChecksLessOftenOnSmallMatrices) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  auto small = fastmv::generate_jacobi_system<float>(256, 1.4, 3);
  std::vector<float> x;
  const auto result = fastmv::jacobi(context, small.A, small.b, x);
  EXPECT_EQ(result.status, fastmv::JacobiStatus::Converged);
  EXPECT_EQ(result.check_every, 32);
  EXPECT_EQ(result.iterations % 32, 0);
}

}  // namespace
}  // namespace fastmv_test
