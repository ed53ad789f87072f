// Every error path of fastmv::gemv and fastmv::Context: the exception type, the
// argument it names, its value in the message, and that y was not modified. On the
// Cuda backend the operands are device copies (common/backend_memory.hpp), so the
// pointers in the calls and in the messages are device addresses.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "common/expect_error.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

// fastmv::checks::address formats pointers with %p; so do the tests.
std::string address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pointer);
  return text;
}

// Well-formed operands for an m x n double problem; individual tests break one
// argument. Every buffer is guarded, y is random so that any write shows. Tests
// take the operands' pointers from A_data(), x_data() and y_data(): the backend's
// memory.
class GemvErrorTest : public BackendTest {
 protected:
  struct Call {
    Layout layout = Layout::RowMajor;
    Op op = Op::NoTrans;
    index_t m = 5, n = 7;
    double alpha = -0.7;
    const double* A = nullptr;
    index_t lda = 7;
    const double* x = nullptr;
    index_t incx = 1;
    double beta = -0.7;
    double* y = nullptr;
    index_t incy = 1;
  };

  GemvErrorTest()
      : A_(Layout::RowMajor, 64, 64, 64, 1),
        x_(std::vector<double>(64, 0.5), 1, 1),
        y_(std::vector<double>(64, 0.25), 1, 1) {
    for (index_t i = 0; i < 64; ++i) {
      for (index_t j = 0; j < 64; ++j) A_(i, j) = random().uniform_nonzero<double>();
      x_.at(i) = random().uniform_nonzero<double>();
      y_.at(i) = random().uniform_nonzero<double>();
    }
  }

  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    const fastmv::Context context(kBackend);
    A_on_backend_.emplace(context, A_.buffer());
    x_on_backend_.emplace(context, x_.buffer());
    y_on_backend_.emplace(context, y_.buffer());
  }

  double* A_data() { return A_on_backend_->pointer(A_.data()); }
  double* x_data() { return x_on_backend_->pointer(x_.data()); }
  double* y_data() { return y_on_backend_->pointer(y_.data()); }

  Call valid_call() {
    Call call;
    call.A = A_data();
    call.x = x_data();
    call.y = y_data();
    return call;
  }

  static void run(const Call& c) {
    fastmv::gemv(fastmv::Context(kBackend), c.layout, c.op, c.m, c.n, c.alpha, c.A, c.lda, c.x,
                 c.incx, c.beta, c.y, c.incy);
  }

  // `call` must be rejected naming `argument` = `value`, leaving every operand as it was.
  void expect_rejected(const Call& call, const std::string& argument, const std::string& value) {
    const std::vector<double> a_before = A_on_backend_->contents();
    const std::vector<double> x_before = x_on_backend_->contents();
    const std::vector<double> y_before = y_on_backend_->contents();
    expect_invalid_argument([&] { run(call); }, "fastmv::gemv", argument, value);
    EXPECT_TRUE(A_on_backend_->equals(a_before)) << "A modified by a rejected call";
    EXPECT_TRUE(x_on_backend_->equals(x_before)) << "x modified by a rejected call";
    EXPECT_TRUE(y_on_backend_->equals(y_before)) << "y modified by a rejected call";
  }

  void expect_accepted(const Call& call) { EXPECT_NO_THROW(run(call)); }

  GuardedMatrix<double> A_;
  StridedVector<double> x_;
  StridedVector<double> y_;
  // Set in SetUp, once the backend is known to be available.
  std::optional<BackendCopy<double>> A_on_backend_, x_on_backend_, y_on_backend_;
};

TEST_F(GemvErrorTest, NegativeM) {
  Call call = valid_call();
  call.m = -1;
  expect_rejected(call, "m", "-1");
  call.m = std::numeric_limits<index_t>::min();
  expect_rejected(call, "m", std::to_string(std::numeric_limits<index_t>::min()));
}

TEST_F(GemvErrorTest, NegativeN) {
  Call call = valid_call();
  call.n = -3;
  expect_rejected(call, "n", "-3");
}

TEST_F(GemvErrorTest, LdaTooSmallRowMajor) {
  for (const Op op : {Op::NoTrans, Op::Trans}) {
    Call call = valid_call();
    call.op = op;
    call.layout = Layout::RowMajor;
    call.lda = call.n - 1;  // row-major needs lda >= n
    expect_rejected(call, "lda", std::to_string(call.lda));
  }
}

TEST_F(GemvErrorTest, LdaTooSmallColMajor) {
  for (const Op op : {Op::NoTrans, Op::Trans}) {
    Call call = valid_call();
    call.op = op;
    call.layout = Layout::ColMajor;
    call.lda = call.m - 1;  // column-major needs lda >= m, even though lda >= m - 1 ... < n
    expect_rejected(call, "lda", std::to_string(call.lda));
    call.lda = -2;
    expect_rejected(call, "lda", "-2");
  }
}

// lda >= max(1, ...) holds for empty matrices too (reference BLAS).
TEST_F(GemvErrorTest, LdaZeroWithEmptyMatrix) {
  for (const Layout layout : kLayouts) {
    for (const auto& [m, n] : {std::pair<index_t, index_t>{0, 0}, {0, 5}, {5, 0}}) {
      Call call = valid_call();
      call.layout = layout;
      call.m = m;
      call.n = n;
      call.lda = 0;
      expect_rejected(call, "lda", "0");
    }
  }
}

TEST_F(GemvErrorTest, IncxZero) {
  Call call = valid_call();
  call.incx = 0;
  expect_rejected(call, "incx", "0");
  call.m = 0;  // checked before the quick return
  expect_rejected(call, "incx", "0");
}

TEST_F(GemvErrorTest, IncyZero) {
  Call call = valid_call();
  call.incy = 0;
  expect_rejected(call, "incy", "0");
  call.alpha = 0;
  call.beta = 1;  // checked before the quick return
  expect_rejected(call, "incy", "0");
}

TEST_F(GemvErrorTest, InvalidLayout) {
  Call call = valid_call();
  call.layout = static_cast<Layout>(7);
  expect_rejected(call, "layout", "7");
  call.layout = static_cast<Layout>(-1);
  expect_rejected(call, "layout", "-1");
}

TEST_F(GemvErrorTest, InvalidOp) {
  Call call = valid_call();
  call.op = static_cast<Op>(3);
  expect_rejected(call, "op", "3");
  call.op = static_cast<Op>(-1);
  expect_rejected(call, "op", "-1");
}

TEST_F(GemvErrorTest, NullA) {
  Call call = valid_call();
  call.A = nullptr;
  expect_rejected(call, "A", "nullptr");
}

TEST_F(GemvErrorTest, NullX) {
  Call call = valid_call();
  call.x = nullptr;
  expect_rejected(call, "x", "nullptr");
}

TEST_F(GemvErrorTest, NullY) {
  Call call = valid_call();
  call.y = nullptr;
  expect_rejected(call, "y", "nullptr");
  call.alpha = 0;  // y is still written: y = beta * y
  expect_rejected(call, "y", "nullptr");
}

// alpha = 0: A and x are not read, so they may be null; y becomes beta * y.
TEST_F(GemvErrorTest, NullAAndXAcceptedWhenAlphaIsZero) {
  Call call = valid_call();
  call.alpha = 0;
  call.A = nullptr;
  call.x = nullptr;
  const double y0 = y_.at(0);
  expect_accepted(call);
  y_on_backend_->copy_to(y_.buffer());
  EXPECT_EQ(y_.at(0), -0.7 * y0);
  EXPECT_TRUE(y_.gaps_and_guards_intact());
}

// Nothing is written when m == 0 or n == 0 (or alpha = 0, beta = 1): y may be null.
TEST_F(GemvErrorTest, NullYAcceptedWhenNothingIsWritten) {
  Call call = valid_call();
  call.y = nullptr;
  call.m = 0;
  expect_accepted(call);
  call.m = 5;
  call.n = 0;
  expect_accepted(call);
  call.n = 7;
  call.alpha = 0;
  call.beta = 1;
  expect_accepted(call);
  call.A = nullptr;
  call.x = nullptr;
  expect_accepted(call);
}

TEST_F(GemvErrorTest, YOverlapsA) {
  Call call = valid_call();
  call.y = A_data() + 3;  // inside A
  expect_rejected(call, "y", address(call.y));
  call.y = A_data() + (call.m - 1) * call.lda + call.n - 1;  // y[0] is A's last element
  expect_rejected(call, "y", address(call.y));
  call.y = A_data() - 4;  // y's last element (incy = 1, m = 5) is A's first
  expect_rejected(call, "y", address(call.y));
}

TEST_F(GemvErrorTest, YOverlapsX) {
  Call call = valid_call();
  call.y = const_cast<double*>(call.x);  // same vector
  expect_rejected(call, "y", address(call.y));
  for (const index_t incy : {3, -3}) {
    // x = x_[10 .. 16] (n = 7); y at x_[1] with |incy| = 3 touches x_[1], 4, 7, 10,
    // 13: it shares x_[10] and x_[13] with x only through its stride.
    call.x = x_data() + 10;
    call.y = x_data() + 1;
    call.incy = incy;
    expect_rejected(call, "y", address(call.y));
    // Interleaved: y = x_[1], 4, ..., 13 and x = x_[2 .. 3] within y's span; the
    // spans overlap, which fastmv rejects (it checks spans, not elements).
    call.n = 2;
    call.x = x_data() + 2;
    expect_rejected(call, "y", address(call.y));
    call.n = 7;
  }
  // With a negative incx, x's span starts at the pointer passed: y = x_[-4 .. 0] overlaps
  // x only in x_[0], the last logical element of x.
  call = valid_call();
  call.incx = -1;
  call.y = x_data() - 4;
  expect_rejected(call, "y", address(call.y));
}

// A and x may share memory with each other (neither is written).
TEST_F(GemvErrorTest, AAndXMayOverlap) {
  Call call = valid_call();
  call.x = A_data() + 2;
  expect_accepted(call);
}

// Sizes whose span overflows the address space throw before any memory is touched.
TEST_F(GemvErrorTest, SpanOverflowsAddressSpace) {
  Call call = valid_call();
  call.m = call.n = index_t(1) << 40;
  call.lda = call.n;
  {
    // y spans 2^40 elements: representable, so the A span (2^80 elements) is what fails.
    SCOPED_TRACE("m = n = 2^40");
    expect_rejected(call, "lda", std::to_string(call.lda));
  }
  // A vector too long for memory is named with its length and increment.
  const auto vector_value = [](index_t length, index_t inc) {
    return std::to_string(length) + " elements with increment " + std::to_string(inc);
  };
  call = valid_call();
  call.incx = index_t(1) << 62;
  expect_rejected(call, "x", vector_value(call.op == Op::NoTrans ? call.n : call.m, call.incx));
  call = valid_call();
  call.incy = -(index_t(1) << 62);
  expect_rejected(call, "y", vector_value(call.op == Op::NoTrans ? call.m : call.n, call.incy));
  call = valid_call();
  call.layout = Layout::RowMajor;
  call.op = Op::NoTrans;
  call.m = index_t(1) << 61;  // 2^64 bytes of y
  call.n = 1;
  call.lda = 1;
  expect_rejected(call, "y", vector_value(call.m, call.incy));
  call = valid_call();
  call.layout = Layout::ColMajor;
  call.lda = std::numeric_limits<index_t>::max();
  expect_rejected(call, "lda", std::to_string(call.lda));
}

TEST_F(GemvErrorTest, ContextNegativeThreads) {
  expect_invalid_argument([] { fastmv::Context context(kBackend, -1); }, "fastmv::Context",
                          "threads", "-1");
  fastmv::Context context(kBackend, 2);
  expect_invalid_argument([&] { context.set_threads(-5); }, "fastmv::Context", "threads", "-5");
  EXPECT_EQ(context.threads(), 2) << "a rejected set_threads changed the context";
}

TEST_F(GemvErrorTest, ContextInvalidBackend) {
  expect_invalid_argument([] { fastmv::Context context(static_cast<fastmv::Backend>(9)); },
                          "fastmv::Context", "backend", "9");
}

TEST_F(GemvErrorTest, CudaUnavailable) {
  if (fastmv::Context::available(fastmv::Backend::Cuda)) {
    EXPECT_NO_THROW(fastmv::Context(fastmv::Backend::Cuda));
  } else {
    EXPECT_THROW(fastmv::Context(fastmv::Backend::Cuda), fastmv::BackendUnavailable);
    EXPECT_NE(fastmv::Context(fastmv::Backend::Auto).backend(), fastmv::Backend::Cuda);
  }
}

}  // namespace
}  // namespace fastmv_test
