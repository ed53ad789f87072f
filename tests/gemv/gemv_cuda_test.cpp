// What only the Cuda backend has: contexts with a device and a stream, device and
// pinned memory (fastmv/cuda.hpp), the rejection of host pointers, and the
// ordering of asynchronous calls. Built into gemv_test_cuda only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/precision.hpp"
#include "common/test_environment.hpp"
#include "fastmv/cuda.hpp"
#include "common/expect_error.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

using fastmv::Backend;
using fastmv::cuda::DeviceBuffer;
using fastmv::cuda::PinnedBuffer;

static_assert(kBackend == Backend::Cuda, "gemv_cuda_test.cpp is built into gemv_test_cuda only");

std::string address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pointer);
  return text;
}

template <typename T>
bool same_contents(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

template <typename T>
std::vector<T> to_host(const fastmv::Context& context, const DeviceBuffer<T>& device) {
  std::vector<T> host(static_cast<std::size_t>(device.size()));
  fastmv::cuda::copy(context, host.data(), device.data(), device.size());
  return host;
}

template <typename T>
DeviceBuffer<T> to_device(const fastmv::Context& context, const std::vector<T>& host) {
  DeviceBuffer<T> device(context, static_cast<index_t>(host.size()));
  fastmv::cuda::copy(context, device.data(), host.data(), device.size());
  return device;
}

template <typename T>
std::vector<T> random_vector(Random& random, index_t length) {
  std::vector<T> values(static_cast<std::size_t>(length));
  for (T& value : values) value = random.uniform_nonzero<T>();
  return values;
}

// Entries of +-1: sums of them stay exact in fp32 below 2^24 terms.
std::vector<float> signs(Random& random, index_t length) {
  std::vector<float> values(static_cast<std::size_t>(length));
  for (float& value : values) value = static_cast<float>(random.nonzero_integer(1));
  return values;
}

// y = op(A) x on the host for row-major A with leading dimension lda, in double
// (exact for the sums of signs() above).
std::vector<float> exact_gemv(Op op, index_t m, index_t n, const float* A, index_t lda, const std::vector<float>& x) {
  const index_t outputs = op == Op::NoTrans ? m : n, terms = op == Op::NoTrans ? n : m;
  std::vector<float> y(static_cast<std::size_t>(outputs));
  for (index_t i = 0; i < outputs; ++i) {
    double sum = 0;
    for (index_t j = 0; j < terms; ++j) {
      const index_t r = op == Op::NoTrans ? i : j, c = op == Op::NoTrans ? j : i;
      sum += double(A[r * lda + c]) * x[static_cast<std::size_t>(j)];
    }
    y[static_cast<std::size_t>(i)] = static_cast<float>(sum);
  }
  return y;
}

// Puts the environment's GEMV policy back at the end of a test that installs others.
struct PolicyReset {
  ~PolicyReset() { fastmv::cuda::set_gemv_policy(nullptr); }
};

// Row-major m x n A (leading dimension lda, of TA) in an allocation of its minimal span,
// (m - 1) * lda + n elements, the gaps NaN, x and y (float) of exactly their lengths, so
// that a load past an operand's end is outside its allocation and memcheck reports it:
// y = op(A) x for both ops, beta 0 over NaN, exact (sums of signs) under each policy.
template <typename TA>
void expect_exact_under_policies(const fastmv::Context& context, Random& random, index_t m, index_t n, index_t lda,
                                 const std::vector<const char*>& policies) {
  std::vector<float> A = signs(random, (m - 1) * lda + n);
  for (index_t i = 0; i + 1 < m; ++i) {
    for (index_t j = n; j < lda; ++j) A[static_cast<std::size_t>(i * lda + j)] = quiet_nan<float>();
  }
  std::vector<TA> A_typed(A.size());
  for (std::size_t i = 0; i < A.size(); ++i) A_typed[i] = TA(A[i]);
  const DeviceBuffer<TA> dA = to_device(context, A_typed);
  for (const Op op : {Op::NoTrans, Op::Trans}) {
    const index_t outputs = op == Op::NoTrans ? m : n, terms = op == Op::NoTrans ? n : m;
    const std::vector<float> x = signs(random, terms);
    const std::vector<float> want = exact_gemv(op, m, n, A.data(), lda, x);
    const DeviceBuffer<float> dx = to_device(context, x);
    for (const char* policy : policies) {
      fastmv::cuda::set_gemv_policy(policy);
      DeviceBuffer<float> y = to_device(context, std::vector<float>(static_cast<std::size_t>(outputs), quiet_nan<float>()));
      fastmv::gemv(context, Layout::RowMajor, op, m, n, 1.0f, dA.data(), lda, dx.data(), 1, 0.0f, y.data(), 1);
      EXPECT_TRUE(same_contents(to_host(context, y), want))
          << (op == Op::Trans ? "A^T x" : "A x") << ", " << (sizeof(TA) == 2 ? "bf16" : "fp32") << " A " << m
          << " x " << n << " lda " << lda << ", policy '" << policy << "'";
    }
  }
}

class CudaContextTest : public BackendTest {};

TEST_F(CudaContextTest, ReportsDeviceAndStream) {
  EXPECT_TRUE(fastmv::cuda_built());
  EXPECT_GE(fastmv::cuda_device_count(), 1);
  const fastmv::Context context(Backend::Cuda);
  EXPECT_EQ(context.backend(), Backend::Cuda);
  EXPECT_GE(context.cuda_device(), 0);
  EXPECT_LT(context.cuda_device(), fastmv::cuda_device_count());
  EXPECT_NE(context.cuda_stream(), nullptr);
  EXPECT_NO_THROW(context.synchronize());

  const fastmv::Context copy = context;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.cuda_stream(), context.cuda_stream()) << "copies share the stream";
  const fastmv::Context same_device(Backend::Cuda, 0, context.cuda_device());
  EXPECT_EQ(same_device.cuda_device(), context.cuda_device());
  EXPECT_NE(same_device.cuda_stream(), context.cuda_stream()) << "every context has its own stream";

  EXPECT_EQ(fastmv::Context(Backend::Auto).backend(), Backend::Cuda)
      << "Auto resolves to Cuda when a device is present";
  const fastmv::Context cpu(Backend::Cpu);
  EXPECT_EQ(cpu.cuda_device(), -1);
  EXPECT_EQ(cpu.cuda_stream(), nullptr);
  EXPECT_NO_THROW(cpu.synchronize());
}

TEST_F(CudaContextTest, NonexistentDeviceRejected) {
  for (const int device : {999, fastmv::cuda_device_count(), -2}) {
    expect_invalid_argument([&] { fastmv::Context context(Backend::Cuda, 0, device); },
                            "fastmv::Context", "cuda_device", std::to_string(device));
  }
}

// Host memory, pageable (std::vector) or pinned (PinnedBuffer), passed for A, x or
// y: InvalidArgument naming the argument, before any work (y unchanged on the
// device and on the host).
TEST_F(CudaContextTest, HostPointersRejected) {
  const fastmv::Context context(Backend::Cuda);
  constexpr index_t m = 33, n = 17;
  const std::vector<float> A_values = random_vector<float>(random(), m * n);
  const std::vector<float> x_values = random_vector<float>(random(), n);
  const std::vector<float> y_values = random_vector<float>(random(), m);
  const DeviceBuffer<float> A = to_device(context, A_values);
  const DeviceBuffer<float> x = to_device(context, x_values);
  DeviceBuffer<float> y = to_device(context, y_values);

  std::vector<float> pageable_A = A_values, pageable_x = x_values, pageable_y = y_values;
  PinnedBuffer<float> pinned_A(m * n), pinned_x(n), pinned_y(m);
  std::copy(A_values.begin(), A_values.end(), pinned_A.data());
  std::copy(x_values.begin(), x_values.end(), pinned_x.data());
  std::copy(y_values.begin(), y_values.end(), pinned_y.data());

  struct HostMemory {
    const char* kind;
    const float* A;
    const float* x;
    float* y;
  };
  for (const HostMemory host :
       {HostMemory{"pageable", pageable_A.data(), pageable_x.data(), pageable_y.data()},
        HostMemory{"pinned", pinned_A.data(), pinned_x.data(), pinned_y.data()}}) {
    SCOPED_TRACE(std::string(host.kind) + " host memory");
    const auto expect_rejected = [&](const char* argument, const float* A_pointer,
                                     const float* x_pointer, float* y_pointer,
                                     const void* host_pointer) {
      expect_invalid_argument(
          [&] {
            fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, m, n, -0.7f, A_pointer, n,
                         x_pointer, 1, 0.5f, y_pointer, 1);
          },
          "fastmv::gemv", argument, address(host_pointer));
      expect_invalid_argument(
          [&] {
            fastmv::gemv_strided_batched(context, Layout::RowMajor, Op::NoTrans, m, n, -0.7f,
                                         A_pointer, n, 0, x_pointer, 1, 0, 0.5f, y_pointer, 1, m,
                                         1);
          },
          "fastmv::gemv_strided_batched", argument, address(host_pointer));
      EXPECT_TRUE(same_contents(to_host(context, y), y_values)) << "device y modified";
    };
    expect_rejected("A", host.A, x.data(), y.data(), host.A);
    expect_rejected("x", A.data(), host.x, y.data(), host.x);
    expect_rejected("y", A.data(), x.data(), host.y, host.y);
    EXPECT_TRUE(std::memcmp(host.y, y_values.data(), y_values.size() * sizeof(float)) == 0)
        << "host y modified";
  }

  // A mixed-precision overload, with the host pointer for the 16-bit A.
  const std::vector<fastmv::half> half_values = random_vector<fastmv::half>(random(), m * n);
  expect_invalid_argument(
      [&] {
        fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, m, n, 1.0f, half_values.data(), n,
                     x.data(), 1, 0.0f, y.data(), 1);
      },
      "fastmv::gemv", "A", address(half_values.data()));
}

// Compares a device result with the Reference backend's on the same inputs.
void expect_matches_reference(const std::vector<float>& got, const std::vector<float>& A,
                              Layout layout, Op op, index_t m, index_t n,
                              const std::vector<float>& x, const std::string& what) {
  SCOPED_TRACE(what);
  const index_t y_len = y_length(op, m, n), x_len = x_length(op, m, n);
  const index_t lda = min_lda(layout, m, n);
  std::vector<float> want(static_cast<std::size_t>(y_len));
  fastmv::gemv(fastmv::Context(Backend::Reference), layout, op, m, n, 1.0f, A.data(), lda, x.data(),
               1, 0.0f, want.data(), 1);
  ASSERT_EQ(got.size(), want.size());
  int bad = 0;
  for (index_t i = 0; i < y_len; ++i) {
    double magnitude = 0;
    for (index_t j = 0; j < x_len; ++j) {
      const index_t row = op == Op::NoTrans ? i : j, col = op == Op::NoTrans ? j : i;
      const float a = A[static_cast<std::size_t>(layout == Layout::RowMajor ? row * lda + col
                                                                            : col * lda + row)];
      magnitude += std::fabs(double(a)) * std::fabs(double(x[static_cast<std::size_t>(j)]));
    }
    const std::size_t k = static_cast<std::size_t>(i);
    const double tolerance = gemv_tolerance<float, float>(x_len, magnitude, want[k]);
    if (std::fabs(double(got[k]) - double(want[k])) <= tolerance) continue;
    if (++bad <= 5) {
      ADD_FAILURE() << "y[" << i << "] = " << got[k] << ", want " << want[k] << " (tolerance "
                    << tolerance << ")";
    }
  }
  EXPECT_EQ(bad, 0);
}

// Calls are queued on the context's stream: a chain of calls, each reading the
// previous one's output, is ordered without any synchronisation by the caller;
// synchronize() waits for all of them (a copy on another context's stream then sees
// the results); a copy to host on the same context waits by itself.
TEST_F(CudaContextTest, AsynchronousCallsAreOrderedAndSynchronized) {
  const fastmv::Context context(Backend::Cuda);
  const index_t size = quick_mode() ? 512 : 4096;
  const std::vector<float> A_values = random_vector<float>(random(), size * size);
  const std::vector<float> x_values = random_vector<float>(random(), size);
  const DeviceBuffer<float> A = to_device(context, A_values);
  const DeviceBuffer<float> x = to_device(context, x_values);
  const std::vector<float> poison(static_cast<std::size_t>(size), quiet_nan<float>());
  DeviceBuffer<float> y1 = to_device(context, poison), y2 = to_device(context, poison),
                      y3 = to_device(context, poison);
  // y1 = A x, y2 = A^T y1, y3 = A y2 (scaled to stay near 1), all queued at once.
  const float scale = 1.0f / std::sqrt(float(size));
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, size, size, 1.0f, A.data(), size, x.data(),
               1, 0.0f, y1.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::Trans, size, size, scale, A.data(), size, y1.data(),
               1, 0.0f, y2.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, size, size, scale, A.data(), size, y2.data(),
               1, 0.0f, y3.data(), 1);
  context.synchronize();
  const fastmv::Context other(Backend::Cuda, 0, context.cuda_device());
  const std::vector<float> got1 = to_host(other, y1), got2 = to_host(other, y2),
                           got3 = to_host(other, y3);
  expect_matches_reference(got1, A_values, Layout::RowMajor, Op::NoTrans, size, size, x_values,
                           "y1 = A x");
  std::vector<float> scaled1 = got1, scaled2 = got2;
  for (float& value : scaled1) value *= scale;
  for (float& value : scaled2) value *= scale;
  // alpha = scale is applied to the sum; the reference applies it to x: the same up
  // to one rounding, inside the tolerance.
  expect_matches_reference(got2, A_values, Layout::RowMajor, Op::Trans, size, size, scaled1,
                           "y2 = scale * A^T y1");
  expect_matches_reference(got3, A_values, Layout::RowMajor, Op::NoTrans, size, size, scaled2,
                           "y3 = scale * A y2");

  // Queue again over y1 and copy on the same context without synchronize().
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, size, size, -1.0f, A.data(), size, x.data(),
               1, 0.0f, y1.data(), 1);
  std::vector<float> negated = to_host(context, y1);
  for (float& value : negated) value = -value;
  expect_matches_reference(negated, A_values, Layout::RowMajor, Op::NoTrans, size, size, x_values,
                           "-y1 after a copy to host without synchronize()");
}

// On a device that can (compute capability 9), the Cuda backend launches its kernels
// early (programmatic dependent launch: GemvPolicy::early_launch), each waiting for
// the kernel before it before touching memory. Queued at once, with no
// synchronisation, each after a long call whose last blocks are still running when the
// next call's blocks start: a call whose matrix is the previous call's output (its last
// rows); a call that overwrites the vector the long call before it reads; split
// reductions back to back (they share the context's workspace) in both forms. Entries
// +-1 keep every sum exact, so the results must equal the host's bit for bit.
TEST_F(CudaContextTest, CallsWaitForTheKernelBefore) {
  const fastmv::Context context(Backend::Cuda);
  const index_t rows = 4096;                         // the long calls: rows x long_n
  const index_t long_n = quick_mode() ? 4096 : 16384;
  const index_t k = 16;                              // Y: y1's last k * k entries
  const index_t wide = quick_mode() ? 262144 : 2097152;  // 8 x wide: a split reduction
  const auto signs = [&](index_t length) { return fastmv_test::signs(random(), length); };
  const std::vector<float> A0 = signs(rows * long_n), x0 = signs(long_n), x2 = signs(k),
                           D = signs(rows * long_n), x3 = signs(long_n), C = signs(long_n * 16),
                           x4 = signs(16), S = signs(8 * wide), x5 = signs(wide);
  const DeviceBuffer<float> dA0 = to_device(context, A0), dx0 = to_device(context, x0),
                            dx2 = to_device(context, x2), dD = to_device(context, D),
                            dC = to_device(context, C), dx4 = to_device(context, x4),
                            dS = to_device(context, S), dx5 = to_device(context, x5);
  DeviceBuffer<float> dx3 = to_device(context, x3);
  const auto poisoned = [&](index_t length) {
    return to_device(context, std::vector<float>(static_cast<std::size_t>(length), quiet_nan<float>()));
  };
  DeviceBuffer<float> y1 = poisoned(rows), y2 = poisoned(k), y3 = poisoned(rows), y5 = poisoned(8),
                      y6 = poisoned(8), y7 = poisoned(8);
  context.synchronize();

  // y1 = A0 x0 (long), then y2 = Y^T x2, Y the last k x k entries of y1 (row-major).
  const float* Y = y1.data() + (rows - k * k);
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, rows, long_n, 1.0f, dA0.data(), long_n, dx0.data(),
               1, 0.0f, y1.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::Trans, k, k, 1.0f, Y, k, dx2.data(), 1, 0.0f, y2.data(), 1);
  // y3 = D x3 (long), then x3 = C x4 overwrites the vector it reads.
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, rows, long_n, 1.0f, dD.data(), long_n, dx3.data(),
               1, 0.0f, y3.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, long_n, 16, 1.0f, dC.data(), 16, dx4.data(), 1,
               0.0f, dx3.data(), 1);
  // Split reductions back to back: 8 long rows (Dot form), the same numbers as `wide`
  // stored vectors of 8 (Axpy form, S^T x5), 8 long rows again.
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, 8, wide, 1.0f, dS.data(), wide, dx5.data(), 1,
               0.0f, y5.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::Trans, wide, 8, 1.0f, dS.data(), 8, dx5.data(), 1, 0.0f,
               y6.data(), 1);
  fastmv::gemv(context, Layout::RowMajor, Op::NoTrans, 8, wide, -1.0f, dS.data(), wide, dx5.data(), 1,
               0.0f, y7.data(), 1);

  const std::vector<float> want1 = exact_gemv(Op::NoTrans, rows, long_n, A0.data(), long_n, x0);
  EXPECT_TRUE(same_contents(to_host(context, y1), want1)) << "y1 = A0 x0";
  EXPECT_TRUE(same_contents(to_host(context, y2), exact_gemv(Op::Trans, k, k, want1.data() + (rows - k * k), k, x2)))
      << "y2 = Y^T x2, Y the end of y1";
  EXPECT_TRUE(same_contents(to_host(context, y3), exact_gemv(Op::NoTrans, rows, long_n, D.data(), long_n, x3)))
      << "y3 = D x3, before x3 = C x4";
  EXPECT_TRUE(same_contents(to_host(context, dx3), exact_gemv(Op::NoTrans, long_n, 16, C.data(), 16, x4)))
      << "x3 = C x4";
  std::vector<float> want5 = exact_gemv(Op::NoTrans, 8, wide, S.data(), wide, x5);
  EXPECT_TRUE(same_contents(to_host(context, y5), want5)) << "y5 = S x5";
  EXPECT_TRUE(same_contents(to_host(context, y6), exact_gemv(Op::Trans, wide, 8, S.data(), 8, x5)))
      << "y6 = S^T x5, S as wide x 8";
  for (float& value : want5) value = -value;
  EXPECT_TRUE(same_contents(to_host(context, y7), want5)) << "y7 = -S x5";
}

// Split reductions (each split's partial sums through the context's workspace, the
// last block of a tile adding them after an acquire-release handshake:
// arrive_acq_rel in gemv_common.cuh) queued back to back and launched early, a dozen
// calls of one shape with two vectors in turn: a last block that read partial sums not
// yet visible, or the call before's, would change a sum. Entries +-1 keep every sum
// exact. Shapes that split on an H100: a tall matrix with few outputs in the Axpy form
// (the TMA kernel's splits), few long rows in the Dot form, short stored vectors (the
// flat Axpy kernel, whose blocks add up the same way).
TEST_F(CudaContextTest, SplitReductionsBackToBackAreExact) {
  const fastmv::Context context(Backend::Cuda);
  struct Case {
    Op op;
    index_t m, n;
  };
  const index_t tall = quick_mode() ? 8192 : 65536;
  const std::vector<Case> cases = {{Op::Trans, tall, 512}, {Op::NoTrans, 8, tall * 16}, {Op::Trans, tall * 16, 8}};
  constexpr int kCalls = 12;
  for (const Case& c : cases) {
    const index_t outputs = c.op == Op::NoTrans ? c.m : c.n, terms = c.op == Op::NoTrans ? c.n : c.m;
    const std::vector<float> A = signs(random(), c.m * c.n);
    const std::vector<float> x[2] = {signs(random(), terms), signs(random(), terms)};
    const DeviceBuffer<float> dA = to_device(context, A);
    const DeviceBuffer<float> dx[2] = {to_device(context, x[0]), to_device(context, x[1])};
    std::vector<DeviceBuffer<float>> y;
    for (int call = 0; call < kCalls; ++call) {
      y.push_back(to_device(context, std::vector<float>(static_cast<std::size_t>(outputs), quiet_nan<float>())));
    }
    context.synchronize();
    for (int call = 0; call < kCalls; ++call) {
      fastmv::gemv(context, Layout::RowMajor, c.op, c.m, c.n, 1.0f, dA.data(), c.n, dx[call % 2].data(), 1, 0.0f,
                   y[static_cast<std::size_t>(call)].data(), 1);
    }
    const std::vector<float> want[2] = {exact_gemv(c.op, c.m, c.n, A.data(), c.n, x[0]),
                                        exact_gemv(c.op, c.m, c.n, A.data(), c.n, x[1])};
    for (int call = 0; call < kCalls; ++call) {
      EXPECT_TRUE(same_contents(to_host(context, y[static_cast<std::size_t>(call)]), want[call % 2]))
          << (c.op == Op::Trans ? "A^T x" : "A x") << ", A " << c.m << " x " << c.n << ", call " << call;
    }
  }
}

// fastmv::cuda::set_gemv_policy: products stay exact under every policy installed, one
// after another in one process (the masked-select kernel everywhere it can run, the
// other kernel everywhere, the narrow kernel pipelined everywhere), and nullptr goes back
// to the environment's policy. Row-major A^T x: the Axpy form, at orders with a masked
// round of 8, a skinny one and a narrow-kernel one.
TEST_F(CudaContextTest, InstalledPoliciesKeepProductsExact) {
  const fastmv::Context context(Backend::Cuda);
  const PolicyReset reset;
  const char* const policies[] = {"axpy_masked_select=2", "", "axpy_masked_select=0",
                                  "axpy_narrow=2,axpy_narrow_pipelined=2", nullptr};
  struct Dims {
    index_t m, n;
  };
  for (const Dims shape : {Dims{520, 520}, Dims{1032, 264}, Dims{2561, 2561}}) {
    const std::vector<float> A = signs(random(), shape.m * shape.n);
    const std::vector<float> x = signs(random(), shape.m);
    const std::vector<float> want = exact_gemv(Op::Trans, shape.m, shape.n, A.data(), shape.n, x);
    const DeviceBuffer<float> dA = to_device(context, A);
    const DeviceBuffer<float> dx = to_device(context, x);
    for (const char* policy : policies) {
      fastmv::cuda::set_gemv_policy(policy);
      DeviceBuffer<float> y = to_device(context, std::vector<float>(static_cast<std::size_t>(shape.n), quiet_nan<float>()));
      fastmv::gemv(context, Layout::RowMajor, Op::Trans, shape.m, shape.n, 1.0f, dA.data(), shape.n, dx.data(), 1,
                   0.0f, y.data(), 1);
      EXPECT_TRUE(same_contents(to_host(context, y), want))
          << "A^T x, A " << shape.m << " x " << shape.n << ", policy " << (policy ? policy : "(environment)");
    }
  }
}

// GemvPolicy::axpy_sum_kernel: split grids of the held realigned Axpy kernel (2-byte
// vectors off 16-byte boundaries) with their tiles' partial sums added by a second kernel
// (axpy_split_sum_kernel; every such grid under 2, by default the one-wave grids that
// leave room for it) give the products that the last-block handshake gives (0):
// row-major A^T x in bf16 with odd lda, a batch of two whose second matrix starts off a
// boundary too, alpha 2 and beta 0.5 over y, y strided with its gaps left alone; a large
// matrix (many splits) and a small one. The same for the staged kernel's split grids
// (GemvPolicy::axpy_staged_sum_kernel; 20001 vectors of 151, as short vectors in chunks
// of 16 KiB and of an odd 40000 bytes, and as one-group vectors, 12 MB, which the
// defaults stage in 64 KiB chunks with the sums by the second kernel, also with the sums
// by the last block, copied through cp.async, and in two groups of threads). Exact: sums
// of signs.
TEST_F(CudaContextTest, SplitSumsAddedLater) {
  const fastmv::Context context(Backend::Cuda);
  const PolicyReset reset;
  struct Shape {
    index_t m, n, lda;
  };
  for (const Shape shape :
       {Shape{2561, 2561, 2561}, Shape{700, 515, 517}, Shape{4100, 1031, 1033}, Shape{20001, 151, 153}}) {
    constexpr index_t kBatch = 2, kIncy = 2;
    const index_t stride_a = shape.m * shape.lda + 3, stride_y = shape.n * kIncy;
    const std::vector<float> A = signs(random(), stride_a * kBatch);
    const std::vector<float> x = signs(random(), shape.m * kBatch);
    const std::vector<float> y0 = signs(random(), stride_y * kBatch);
    std::vector<fastmv::bfloat16> A16(A.size());
    for (std::size_t i = 0; i < A.size(); ++i) A16[i] = fastmv::bfloat16(A[i]);
    std::vector<float> want = y0;
    for (index_t b = 0; b < kBatch; ++b) {
      const std::vector<float> xb(x.begin() + b * shape.m, x.begin() + (b + 1) * shape.m);
      const std::vector<float> sums = exact_gemv(Op::Trans, shape.m, shape.n, A.data() + b * stride_a, shape.lda, xb);
      for (index_t i = 0; i < shape.n; ++i) {
        float& out = want[static_cast<std::size_t>(b * stride_y + i * kIncy)];
        out = 2.0f * sums[static_cast<std::size_t>(i)] + 0.5f * out;
      }
    }
    const DeviceBuffer<fastmv::bfloat16> dA = to_device(context, A16);
    const DeviceBuffer<float> dx = to_device(context, x);
    for (const char* policy :
         {"axpy_sum_kernel=2,axpy_narrow=0", "axpy_sum_kernel=0,axpy_narrow=0", "axpy_narrow=0",
          "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_sum_kernel=1,axpy_staged_one_group_min_bytes_2byte=0",
          "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_sum_kernel=0,axpy_staged_one_group_min_bytes_2byte=0",
          "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_sum_kernel=1,axpy_staged_chunk_bytes=40000,"
          "axpy_staged_one_group_min_bytes_2byte=0",
          "axpy_staged_one_group_min_bytes_2byte=1", "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_sum_kernel=0",
          "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_async_copy=1",
          "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_two_groups=1"}) {
      fastmv::cuda::set_gemv_policy(policy);
      DeviceBuffer<float> y = to_device(context, y0);
      fastmv::gemv_strided_batched(context, Layout::RowMajor, Op::Trans, shape.m, shape.n, 2.0f, dA.data(), shape.lda,
                                   stride_a, dx.data(), 1, shape.m, 0.5f, y.data(), kIncy, stride_y, kBatch);
      EXPECT_TRUE(same_contents(to_host(context, y), want))
          << "A^T x, A " << shape.m << " x " << shape.n << " lda " << shape.lda << ", policy " << policy;
    }
  }
}

// GemvPolicy::flat_one_group_min_bytes: rows (vectors) of more than 128 granules, one
// row group a flat block, go to the flat kernels only from a size (2-byte Axpy vectors)
// or never by default, at any size under 0, everywhere under dot_flat=2,axpy_flat=2,
// nowhere under 0; the staged Axpy kernel takes vectors of up to a block's 256 threads
// under axpy_staged_max_vector_bytes=1024 (with axpy_flat=0: every such vector), and
// one-group vectors from its own 2 MiB under axpy_staged_one_group_min_bytes_2byte=1 and
// _4byte=1 (here 8191 x 255; the smaller shapes go where the defaults send them), in
// their 64 KiB chunks with the sums by a second kernel (the defaults), in 16 KiB and odd
// 40000-byte ones with the sums by the last block, and every staged vector in chunks
// of 96 KiB with the split sums by a second kernel (axpy_staged_chunk_bytes,
// axpy_staged_one_group_chunk_bytes, axpy_staged_sum_kernel), with the chunks copied
// through cp.async (axpy_staged_async_copy), and vectors of 129-256 elements in two
// groups of threads (axpy_staged_two_groups; 256 outputs fill both). The
// same sums under each: row-major A with odd lengths (2-byte granules for bf16, 4-byte
// for fp32) and 256, both forms (A x: Dot, A^T x: Axpy), beta 0 over NaN. Exact: sums of
// signs.
// Allocations of exactly the matrix (the harness's guards would hide a read past its
// end from memcheck): in 4001 x 151, 2049 x 201 and 1025 x 101 bf16 the last row starts
// on a 16-byte boundary, whose masked loads dot_kernel once read past the end.
TEST_F(CudaContextTest, FlatKernelsOneGroupRule) {
  const fastmv::Context context(Backend::Cuda);
  const PolicyReset reset;
  const std::vector<const char*> policies = {"flat_one_group_min_bytes=0,axpy_flat_one_group_min_bytes_2byte=0", "",
                                             "dot_flat=2,axpy_flat=2", "dot_flat=0,axpy_flat=0",
                                             "axpy_staged_max_vector_bytes=1024",
                                             "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0",
                                             "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_one_group_min_bytes_4byte=1",
                                             "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_one_group_min_bytes_4byte=1,"
                                             "axpy_staged_sum_kernel=0,axpy_staged_one_group_chunk_bytes=16384",
                                             "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_one_group_min_bytes_4byte=1,"
                                             "axpy_staged_sum_kernel=0,axpy_staged_one_group_chunk_bytes=40000",
                                             "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,"
                                             "axpy_staged_sum_kernel=1,axpy_staged_chunk_bytes=98304",
                                             "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,"
                                             "axpy_staged_async_copy=2",
                                             "axpy_staged_one_group_min_bytes_2byte=1,axpy_staged_one_group_min_bytes_4byte=1,"
                                             "axpy_staged_async_copy=1,axpy_staged_one_group_chunk_bytes=40000",
                                             "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,"
                                             "axpy_staged_two_groups=1",
                                             "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,"
                                             "axpy_staged_two_groups=1,axpy_staged_async_copy=2,axpy_staged_sum_kernel=1"};
  for (const auto& [m, n] :
       {std::pair<index_t, index_t>{4001, 151}, {2049, 201}, {8191, 255}, {1025, 101}, {3001, 256}, {33, 129}}) {
    expect_exact_under_policies<fastmv::bfloat16>(context, random(), m, n, n, policies);
    expect_exact_under_policies<float>(context, random(), m, n, n, policies);
  }
}

// Every kernel family on allocations of the minimal span BLAS asks of the caller: A of
// (m - 1) * lda + n elements (no padding after the last row), x and y of exactly their
// lengths, so that a load past an operand's end is outside its allocation and memcheck
// reports it (the GEMV harness's guard elements hide such loads when their data is
// dropped). Row-major A with lda = n and n + 1 (the gaps NaN), both forms; counts of 8k + 1
// rows, whose last row starts on a 16-byte boundary for odd 2-byte lda, and others; under
// the default policy and policies that force each family where it can run (the flat,
// held-x, shared-x, balanced, TMA Dot, narrow, realigned, summed-later, TMA and staged Axpy
// kernels). Exact: sums of signs.
TEST_F(CudaContextTest, MinimalSpanAllocations) {
  const fastmv::Context context(Backend::Cuda);
  const PolicyReset reset;
  const std::vector<const char*> policies = {
      "",
      "axpy_flat=2,dot_flat=2",
      "dot_held_x=2,dot_held_x_narrow=2",
      "dot_shared_x=2",
      "dot_balanced=2",
      "dot_tma=2",
      "axpy_narrow=2",
      "axpy_interleave_unaligned=0,axpy_narrow=0",
      "axpy_sum_kernel=2,axpy_interleave_unaligned=0,axpy_realigned_held_min_bytes=1,axpy_narrow=0",
      "axpy_tma_min_bytes=1,axpy_tma_unaligned=2,axpy_tma_unaligned_min_bytes=0,axpy_flat=0,axpy_narrow=0",
      "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0",
      "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_staged_sum_kernel=1",
      "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_staged_async_copy=2",
      "axpy_flat=0,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_staged_two_groups=1",
  };
  for (const auto& [m, n] : {std::pair<index_t, index_t>{1025, 101}, {257, 515}, {2051, 37}, {9, 4099}, {35, 1001}}) {
    for (const index_t extra : {0, 1}) {
      expect_exact_under_policies<fastmv::bfloat16>(context, random(), m, n, n + extra, policies);
      expect_exact_under_policies<float>(context, random(), m, n, n + extra, policies);
    }
  }
}

TEST_F(CudaContextTest, DeviceBufferMoves) {
  const fastmv::Context context(Backend::Cuda);
  const DeviceBuffer<float> empty;
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0);
  EXPECT_EQ(empty.device(), -1);

  const std::vector<float> values = random_vector<float>(random(), 1000);
  DeviceBuffer<float> a = to_device(context, values);
  float* const memory = a.data();
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(a.size(), 1000);
  EXPECT_EQ(a.device(), context.cuda_device());

  DeviceBuffer<float> b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(b.size(), 1000);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(a.size(), 0);

  DeviceBuffer<float> c(context, 10);
  c = std::move(b);  // c's 10 elements are freed
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c.size(), 1000);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(same_contents(to_host(context, c), values)) << "contents lost in the moves";

  c = DeviceBuffer<float>();  // frees the memory
  EXPECT_EQ(c.data(), nullptr);
  EXPECT_EQ(DeviceBuffer<float>(context, 0).size(), 0);
  expect_invalid_argument([&] { DeviceBuffer<float> bad(context, -1); },
                          "fastmv::cuda::DeviceBuffer", "count", "-1");
}

TEST_F(CudaContextTest, PinnedBufferMoves) {
  PinnedBuffer<double> a(100);
  ASSERT_NE(a.data(), nullptr);
  EXPECT_EQ(a.size(), 100);
  for (index_t i = 0; i < 100; ++i) a[i] = double(i) / 3;
  const double* const memory = a.data();
  PinnedBuffer<double> b(std::move(a));
  EXPECT_EQ(b.data(), memory);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(a.size(), 0);
  PinnedBuffer<double> c(7);
  c = std::move(b);
  EXPECT_EQ(c.data(), memory);
  EXPECT_EQ(c.size(), 100);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
  for (index_t i = 0; i < 100; ++i) EXPECT_EQ(c[i], double(i) / 3);
  EXPECT_EQ(PinnedBuffer<float>(0).size(), 0);
  expect_invalid_argument([] { PinnedBuffer<float> bad(-3); }, "fastmv::cuda::PinnedBuffer",
                          "count", "-3");
}

// host -> device -> device -> pinned -> host is bitwise the original (NaN payloads
// included), also into the middle of a buffer and for 16-bit types.
TEST_F(CudaContextTest, CopyRoundTrips) {
  const fastmv::Context context(Backend::Cuda);
  std::vector<float> values = random_vector<float>(random(), 4097);
  values[5] = sentinel<float>();
  values[6] = -0.0f;
  DeviceBuffer<float> first(context, 4097), second(context, 5000);
  fastmv::cuda::copy(context, first.data(), values.data(), 4097);
  fastmv::cuda::copy(context, second.data() + 3, first.data(), 4097);  // device -> device
  PinnedBuffer<float> pinned(4097);
  fastmv::cuda::copy(context, pinned.data(), second.data() + 3, 4097);
  std::vector<float> back(4097);
  fastmv::cuda::copy(context, back.data(), pinned.data(), 4097);  // host -> host
  EXPECT_TRUE(same_contents(back, values));

  const std::vector<fastmv::bfloat16> narrow = random_vector<fastmv::bfloat16>(random(), 999);
  EXPECT_TRUE(same_contents(to_host(context, to_device(context, narrow)), narrow));

  // Nothing to copy: no pointer is used.
  EXPECT_NO_THROW(fastmv::cuda::copy<float>(context, nullptr, nullptr, 0));
  expect_invalid_argument([&] { fastmv::cuda::copy(context, back.data(), first.data(), -1); },
                          "fastmv::cuda::copy", "count", "-1");
  expect_invalid_argument([&] { fastmv::cuda::copy<float>(context, nullptr, first.data(), 4); },
                          "fastmv::cuda::copy", "destination", "nullptr");
  expect_invalid_argument([&] { fastmv::cuda::copy<float>(context, first.data(), nullptr, 4); },
                          "fastmv::cuda::copy", "source", "nullptr");
}

// Device memory and copies need a Cuda context (this runs on any machine).
TEST(CudaMemoryTest, NeedsACudaContext) {
  const fastmv::Context cpu(Backend::Cpu);
  std::vector<float> source(8, 1.0f), destination(8, 0.0f);
  EXPECT_THROW(fastmv::cuda::copy(cpu, destination.data(), source.data(), 8),
               fastmv::BackendUnavailable);
  EXPECT_THROW(DeviceBuffer<float>(cpu, 8), fastmv::BackendUnavailable);
  EXPECT_EQ(destination, std::vector<float>(8, 0.0f));
}

// A malformed policy is refused with the parser's message (this runs on any machine: the
// text is parsed on the host).
TEST(CudaGemvPolicyTest, MalformedPolicyThrows) {
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("no_such_knob=1"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_masked_select=3"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_masked_select"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_sum_kernel=3"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_sum_kernel=3"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_async_copy=3"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_two_groups=2"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_chunk_bytes=98305"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_chunk_bytes=0"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_one_group_chunk_bytes=98305"), fastmv::InvalidArgument);
  EXPECT_THROW(fastmv::cuda::set_gemv_policy("axpy_staged_one_group_chunk_bytes=15"), fastmv::InvalidArgument);
  fastmv::cuda::set_gemv_policy("axpy_staged_sum_kernel=1,axpy_staged_chunk_bytes=98304");
  fastmv::cuda::set_gemv_policy("axpy_staged_sum_kernel=2,axpy_staged_one_group_chunk_bytes=98304");
  // The message names the item and its value once.
  try {
    fastmv::cuda::set_gemv_policy("no_such_knob=17");
    ADD_FAILURE() << "no_such_knob=17 accepted";
  } catch (const fastmv::InvalidArgument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("no_such_knob"), std::string::npos) << message;
    EXPECT_EQ(message.find("no_such_knob=17"), std::string::npos) << message;
  }
  fastmv::cuda::set_gemv_policy(nullptr);
}

}  // namespace
}  // namespace fastmv_test
