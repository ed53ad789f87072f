// A bfloat16 matrix of more than 2^31 elements (4 GiB) on the Cuda backend, so that
// element indices and byte offsets past 2^31 and 2^32 must be computed in 64 bits.
// Built into gemv_test_cuda only; skipped under FASTMV_TEST_QUICK and when the
// device has too little free memory.
//
// The host never holds the matrix. A is a periodic pattern: element e (counted
// from the start of the allocation) is pattern[e mod kPeriod], written by copying
// one pinned block of kPeriod elements over and over. kPeriod is odd, so it
// divides neither 2^31 nor 2^32: an index that wraps around reads another value.
// A and x are integers in [-4, 4] \ {0}, so every partial sum (at most 16 * 65536
// in magnitude, below 2^24) is exact in float in any order, and each selected
// output is checked exactly against a 64-bit integer sum on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/precision.hpp"
#include "common/test_environment.hpp"
#include "fastmv/cuda.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

using fastmv::Backend;
using fastmv::bfloat16;
using fastmv::cuda::DeviceBuffer;
using fastmv::cuda::PinnedBuffer;

static_assert(kBackend == Backend::Cuda,
              "gemv_cuda_large_index_test.cpp is built into gemv_test_cuda only");

// The stored vectors of A (rows when row-major, columns when column-major): kCount
// of kLength elements, lda = kLength; kCount * kLength = 2^31 + 2^16 elements.
constexpr index_t kCount = 65536;
constexpr index_t kLength = 32769;
constexpr index_t kElements = kCount * kLength;
static_assert(kElements > (index_t(1) << 31), "more than 2^31 elements");
constexpr index_t kPeriod = (index_t(1) << 22) + 3;
// Outputs checked exactly per call: the first and last kEdgeOutputs, and
// kRandomOutputs others.
constexpr index_t kEdgeOutputs = 64;
constexpr index_t kRandomOutputs = 128;
// y sits between guards of poison on the device.
constexpr index_t kGuard = 64;

class CudaLargeIndexTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    if (quick_mode()) GTEST_SKIP() << "4 GiB matrix skipped under FASTMV_TEST_QUICK";
    context_.emplace(Backend::Cuda);
    try {
      // One extra element: the misaligned calls start at A + 1.
      A_.emplace(*context_, kElements + 1);
    } catch (const fastmv::CudaError& error) {
      GTEST_SKIP() << "not enough free device memory for a 4 GiB matrix: " << error.what();
    }
    pattern_.resize(static_cast<std::size_t>(kPeriod));
    PinnedBuffer<bfloat16> block(kPeriod);
    for (index_t k = 0; k < kPeriod; ++k) {
      pattern_[static_cast<std::size_t>(k)] = static_cast<std::int8_t>(random().nonzero_integer(4));
      block[k] = bfloat16(float(pattern_[static_cast<std::size_t>(k)]));
    }
    for (index_t start = 0; start < kElements + 1; start += kPeriod) {
      fastmv::cuda::copy(*context_, A_->data() + start, block.data(),
                         std::min(kPeriod, kElements + 1 - start));
    }
    context_->synchronize();  // before `block` is freed
  }

  // The value of A's element `e`, counted from the start of the allocation.
  int a_value(index_t e) const { return pattern_[static_cast<std::size_t>(e % kPeriod)]; }

  // y = 2 * op(A) x with A at A_ + offset, x, y in TX; beta = 0 over poisoned y.
  template <typename TX>
  void check(Layout layout, Op op, index_t offset) {
    const bool row_major = layout == Layout::RowMajor;
    const index_t m = row_major ? kCount : kLength;
    const index_t n = row_major ? kLength : kCount;
    const index_t x_len = x_length(op, m, n), y_len = y_length(op, m, n);
    // One dot product per stored vector, or sums of scaled stored vectors.
    const bool dot = row_major == (op == Op::NoTrans);
    SCOPED_TRACE(std::string("A bfloat16, x and y ") + type_name<TX>() + ", " +
                 fastmv::to_string(layout) + " op=" + fastmv::to_string(op) +
                 " m=" + std::to_string(m) + " n=" + std::to_string(n) + " A offset " +
                 std::to_string(offset));
    const fastmv::Context& context = *context_;

    std::vector<int> x_values(static_cast<std::size_t>(x_len));
    std::vector<TX> x_host(x_values.size());
    for (std::size_t j = 0; j < x_values.size(); ++j) {
      x_values[j] = random().nonzero_integer(4);
      x_host[j] = from_double<TX>(x_values[j]);
    }
    DeviceBuffer<TX> x(context, x_len);
    fastmv::cuda::copy(context, x.data(), x_host.data(), x_len);
    std::vector<TX> y_host(static_cast<std::size_t>(y_len + 2 * kGuard), sentinel<TX>());
    DeviceBuffer<TX> y(context, y_len + 2 * kGuard);
    fastmv::cuda::copy(context, y.data(), y_host.data(), y.size());

    fastmv::gemv(context, layout, op, m, n, 2.0f, A_->data() + offset, kLength, x.data(), 1, 0.0f,
                 y.data() + kGuard, 1);
    fastmv::cuda::copy(context, y_host.data(), y.data(), y.size());

    for (index_t g = 0; g < kGuard; ++g) {
      ASSERT_TRUE(same_bits(y_host[std::size_t(g)], sentinel<TX>())) << "front guard written";
      ASSERT_TRUE(same_bits(y_host[std::size_t(kGuard + y_len + g)], sentinel<TX>()))
          << "back guard written";
    }
    index_t unwritten = 0;
    for (index_t i = 0; i < y_len; ++i) {
      if (!std::isfinite(to_double(y_host[std::size_t(kGuard + i)]))) ++unwritten;
    }
    EXPECT_EQ(unwritten, 0) << "elements of y still poisoned (or not finite)";

    std::vector<index_t> outputs;
    for (index_t i = 0; i < kEdgeOutputs; ++i) {
      outputs.push_back(i);
      outputs.push_back(y_len - 1 - i);
    }
    for (index_t k = 0; k < kRandomOutputs; ++k) {
      outputs.push_back(std::abs(random().nonzero_integer(int(y_len))) - 1);  // [0, y_len)
    }
    int bad = 0;
    for (const index_t output : outputs) {
      // y[output] = 2 * sum over the reduction of A(stored vector, element) * x.
      std::int64_t sum = 0;
      for (index_t j = 0; j < x_len; ++j) {
        const index_t element = dot ? output * kLength + j : j * kLength + output;
        sum += std::int64_t(a_value(offset + element)) * x_values[std::size_t(j)];
      }
      const double want = to_double(from_double<TX>(double(2 * sum)));
      const double got = to_double(y_host[std::size_t(kGuard + output)]);
      if (got == want) continue;
      if (++bad <= 5) ADD_FAILURE() << "y[" << output << "] = " << got << ", want " << want;
    }
    EXPECT_EQ(bad, 0) << "of " << outputs.size() << " outputs checked";
  }

  std::optional<fastmv::Context> context_;
  std::optional<DeviceBuffer<bfloat16>> A_;
  std::vector<std::int8_t> pattern_;
};

TEST_F(CudaLargeIndexTest, MatrixOfMoreThan2To31Elements) {
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      // Aligned for row-major, one element (2 bytes) off for column-major.
      const index_t offset = layout == Layout::RowMajor ? 0 : 1;
      check<float>(layout, op, offset);
      check<bfloat16>(layout, op, offset);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
}  // namespace fastmv_test
