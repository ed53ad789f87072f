// Public GEMV entry points: check every argument once, bring the problem into the
// canonical form of kernels/gemv_kernels.hpp, pick the backend.
#include "fastmv/gemv.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "cuda/runtime.hpp"
#include "dispatch/checks.hpp"
#include "fastmv/error.hpp"
#include "kernels/gemv_kernels.hpp"

namespace fastmv {
namespace {

// The y of a strided batch never share memory with each other when the copies are
// separated by whole spans (|stride_y| >= span) or interleaved, every copy fitting in
// the gaps of the others (|incy| >= batch * |stride_y| > 0).
bool batch_outputs_disjoint(index_t y_len, index_t incy, index_t stride_y, index_t batch) {
  if (batch <= 1) return true;
  using checks::wide_int;
  const wide_int inc = incy < 0 ? -wide_int(incy) : wide_int(incy);
  const wide_int stride = stride_y < 0 ? -wide_int(stride_y) : wide_int(stride_y);
  const wide_int span = wide_int(y_len - 1) * inc + 1;
  if (stride >= span) return true;
  return stride > 0 && inc >= wide_int(batch) * stride;
}

template <typename TA, typename TX, typename TY>
void run_one_by_one(const kernels::GemvProblem<TA, TX, TY>& batched, const Context& context) {
  kernels::GemvProblem<TA, TX, TY> one = batched;
  one.batch = 1;
  for (index_t b = 0; b < batched.batch; ++b) {
    one.y = batched.y + b * batched.stride_y;
    if (batched.A != nullptr) one.A = batched.A + b * batched.stride_a;
    if (batched.x != nullptr) one.x = batched.x + b * batched.stride_x;
    if constexpr (std::is_same_v<TA, TX> && std::is_same_v<TX, TY> &&
                  !std::is_same_v<TA, half> && !std::is_same_v<TA, bfloat16>) {
      if (context.backend() == Backend::Cpu) {
        kernels::cpu::gemv(one, context.threads());
        continue;
      }
    }
    // The reference backend, and the Cpu backend for the half-precision types.
    kernels::reference::gemv(one);
  }
}

template <typename TA, typename TX, typename TY>
void gemv_checked(const char* function, const Context& context, Layout layout, Op op, index_t m,
                  index_t n, typename kernels::ScalarOf<TA>::type alpha, const TA* A, index_t lda,
                  index_t stride_a, const TX* x, index_t incx, index_t stride_x,
                  typename kernels::ScalarOf<TA>::type beta, TY* y, index_t incy,
                  index_t stride_y, index_t batch) {
  using Scalar = typename kernels::ScalarOf<TA>::type;
  using checks::require;
  using checks::str;
  const auto text = [](const char* message) { return [message] { return std::string(message); }; };
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, function, "layout",
          [=] { return str(static_cast<int>(layout)); }, text("is not a fastmv::Layout"));
  require(op == Op::NoTrans || op == Op::Trans || op == Op::ConjTrans, function, "op",
          [=] { return str(static_cast<int>(op)); }, text("is not a fastmv::Op"));
  require(m >= 0, function, "m", [=] { return str(m); }, text("must be >= 0"));
  require(n >= 0, function, "n", [=] { return str(n); }, text("must be >= 0"));
  const bool row_major = layout == Layout::RowMajor;
  const index_t min_lda = std::max<index_t>(1, row_major ? n : m);
  require(lda >= min_lda, function, "lda", [=] { return str(lda); }, [=] {
    return std::string("must be >= max(1, ") + (row_major ? "n" : "m") + ") = " + str(min_lda) +
           " for a " + to_string(layout) + " matrix";
  });
  require(incx != 0, function, "incx", [=] { return str(incx); }, text("must not be 0"));
  require(incy != 0, function, "incy", [=] { return str(incy); }, text("must not be 0"));
  require(batch >= 0, function, "batch", [=] { return str(batch); }, text("must be >= 0"));

  // Reference BLAS quick return: nothing to do, y untouched.
  if (m == 0 || n == 0 || batch == 0 || (alpha == Scalar(0) && beta == Scalar(1))) return;

  const bool transposed = op != Op::NoTrans;
  const index_t x_len = transposed ? m : n;
  const index_t y_len = transposed ? n : m;
  const bool reads_a_and_x = alpha != Scalar(0);
  const auto null = [] { return std::string("nullptr"); };
  require(y != nullptr, function, "y", null, [=] { return "must point to " + str(y_len) + " elements"; });
  if (reads_a_and_x) {
    require(A != nullptr, function, "A", null, text("must point to the matrix"));
    require(x != nullptr, function, "x", null,
            [=] { return "must point to " + str(x_len) + " elements"; });
  }
  require(batch_outputs_disjoint(y_len, incy, stride_y, batch), function, "stride_y",
          [=] { return str(stride_y); }, [=] {
            return "makes the y of different products share memory (incy = " + str(incy) +
                   ", " + str(y_len) + " elements, batch = " + str(batch) + ")";
          });

  kernels::GemvProblem<TA, TX, TY> problem{};
  // Row-major A^T x and column-major A x accumulate scaled stored vectors; the
  // other two take one dot product per stored vector.
  problem.form = (row_major != transposed) ? kernels::GemvForm::Dot : kernels::GemvForm::Axpy;
  problem.count = row_major ? m : n;
  problem.length = row_major ? n : m;
  problem.alpha = alpha;
  problem.A = A;
  problem.lda = lda;
  problem.beta = beta;
  problem.batch = batch;
  problem.stride_y = stride_y;

  const checks::Span y_span = checks::batched_span(
      function, "stride_y", checks::vector_span(function, "y", y, y_len, incy), stride_y,
      sizeof(TY), batch);
  problem.y = y + y_span.first_element_offset;
  problem.incy = incy;
  if (reads_a_and_x) {
    const checks::Span a_span = checks::batched_span(
        function, "stride_a", checks::matrix_span(function, A, problem.count, problem.length, lda),
        stride_a, sizeof(TA), batch);
    const checks::Span x_span = checks::batched_span(
        function, "stride_x", checks::vector_span(function, "x", x, x_len, incx), stride_x,
        sizeof(TX), batch);
    const auto y_address = [=] { return checks::address(y); };
    require(!checks::overlap(y_span, a_span), function, "y", y_address,
            text("must not share memory with A"));
    require(!checks::overlap(y_span, x_span), function, "y", y_address,
            text("must not share memory with x"));
    problem.x = x + x_span.first_element_offset;
    problem.incx = incx;
    problem.stride_a = stride_a;
    problem.stride_x = stride_x;
  } else {
    problem.x = nullptr;
    problem.incx = 1;
  }

  switch (context.backend()) {
    case Backend::Reference:
    case Backend::Cpu: run_one_by_one(problem, context); return;
    case Backend::Cuda: {
      detail::CudaState& state = cuda::state_of(context, function);
      cuda::require_device_pointer(state, function, "y", y);
      if (reads_a_and_x) {
        cuda::require_device_pointer(state, function, "A", A);
        cuda::require_device_pointer(state, function, "x", x);
      }
      kernels::cuda::gemv(problem, state);
      return;
    }
    case Backend::Auto: break;
  }
  throw BackendUnavailable(std::string(function) + ": no GEMV kernels for backend '" +
                           to_string(context.backend()) + "'");
}

constexpr const char* kGemv = "fastmv::gemv";
constexpr const char* kBatched = "fastmv::gemv_strided_batched";

}  // namespace

#define FASTMV_DEFINE_GEMV(Scalar, TA, TX, TY)                                                  \
  void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, Scalar alpha,  \
            const TA* A, index_t lda, const TX* x, index_t incx, Scalar beta, TY* y,            \
            index_t incy) {                                                                     \
    gemv_checked<TA, TX, TY>(kGemv, context, layout, op, m, n, alpha, A, lda, 0, x, incx, 0,    \
                             beta, y, incy, 0, 1);                                              \
  }                                                                                             \
  void gemv_strided_batched(const Context& context, Layout layout, Op op, index_t m, index_t n, \
                            Scalar alpha, const TA* A, index_t lda, index_t stride_a,           \
                            const TX* x, index_t incx, index_t stride_x, Scalar beta, TY* y,    \
                            index_t incy, index_t stride_y, index_t batch) {                    \
    gemv_checked<TA, TX, TY>(kBatched, context, layout, op, m, n, alpha, A, lda, stride_a, x,   \
                             incx, stride_x, beta, y, incy, stride_y, batch);                   \
  }

FASTMV_DEFINE_GEMV(float, float, float, float)
FASTMV_DEFINE_GEMV(double, double, double, double)
FASTMV_DEFINE_GEMV(float, half, float, float)
FASTMV_DEFINE_GEMV(float, half, half, half)
FASTMV_DEFINE_GEMV(float, bfloat16, float, float)
FASTMV_DEFINE_GEMV(float, bfloat16, bfloat16, bfloat16)
#undef FASTMV_DEFINE_GEMV

}  // namespace fastmv
