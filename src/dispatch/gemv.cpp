// Public GEMV entry points: check every argument once, bring the problem into the
// canonical form of kernels/gemv_kernels.hpp, pick the backend.
#include "fastmv/gemv.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "dispatch/checks.hpp"
#include "fastmv/error.hpp"
#include "kernels/gemv_kernels.hpp"

namespace fastmv {
namespace {

constexpr const char* kFunction = "fastmv::gemv";

template <typename T>
void gemv_checked(const Context& context, Layout layout, Op op, index_t m, index_t n, T alpha,
                  const T* A, index_t lda, const T* x, index_t incx, T beta, T* y,
                  index_t incy) {
  using checks::require;
  using checks::str;
  const auto text = [](const char* message) { return [message] { return std::string(message); }; };
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, kFunction, "layout",
          [=] { return str(static_cast<int>(layout)); }, text("is not a fastmv::Layout"));
  require(op == Op::NoTrans || op == Op::Trans || op == Op::ConjTrans, kFunction, "op",
          [=] { return str(static_cast<int>(op)); }, text("is not a fastmv::Op"));
  require(m >= 0, kFunction, "m", [=] { return str(m); }, text("must be >= 0"));
  require(n >= 0, kFunction, "n", [=] { return str(n); }, text("must be >= 0"));
  const bool row_major = layout == Layout::RowMajor;
  const index_t min_lda = std::max<index_t>(1, row_major ? n : m);
  require(lda >= min_lda, kFunction, "lda", [=] { return str(lda); }, [=] {
    return std::string("must be >= max(1, ") + (row_major ? "n" : "m") + ") = " + str(min_lda) +
           " for a " + to_string(layout) + " matrix";
  });
  require(incx != 0, kFunction, "incx", [=] { return str(incx); }, text("must not be 0"));
  require(incy != 0, kFunction, "incy", [=] { return str(incy); }, text("must not be 0"));

  // Reference BLAS quick return: nothing to do, y untouched.
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;

  const bool transposed = op != Op::NoTrans;
  const index_t x_len = transposed ? m : n;
  const index_t y_len = transposed ? n : m;
  const bool reads_a_and_x = alpha != T(0);
  const auto null = [] { return std::string("nullptr"); };
  require(y != nullptr, kFunction, "y", null, [=] { return "must point to " + str(y_len) + " elements"; });
  if (reads_a_and_x) {
    require(A != nullptr, kFunction, "A", null, text("must point to the matrix"));
    require(x != nullptr, kFunction, "x", null,
            [=] { return "must point to " + str(x_len) + " elements"; });
  }

  kernels::GemvProblem<T> problem{};
  // Row-major A^T x and column-major A x accumulate scaled stored vectors; the
  // other two take one dot product per stored vector.
  problem.form = (row_major != transposed) ? kernels::GemvForm::Dot : kernels::GemvForm::Axpy;
  problem.count = row_major ? m : n;
  problem.length = row_major ? n : m;
  problem.alpha = alpha;
  problem.A = A;
  problem.lda = lda;
  problem.beta = beta;

  const checks::Span y_span = checks::vector_span(kFunction, "y", y, y_len, incy);
  problem.y = y + y_span.first_element_offset;
  problem.incy = incy;
  if (reads_a_and_x) {
    const checks::Span a_span =
        checks::matrix_span(kFunction, A, problem.count, problem.length, lda);
    const checks::Span x_span = checks::vector_span(kFunction, "x", x, x_len, incx);
    const auto y_address = [=] { return checks::address(y); };
    require(!checks::overlap(y_span, a_span), kFunction, "y", y_address,
            text("must not share memory with A"));
    require(!checks::overlap(y_span, x_span), kFunction, "y", y_address,
            text("must not share memory with x"));
    problem.x = x + x_span.first_element_offset;
    problem.incx = incx;
  } else {
    problem.x = nullptr;
    problem.incx = 1;
  }

  switch (context.backend()) {
    case Backend::Reference: kernels::reference::gemv(problem); return;
    case Backend::Cpu: kernels::cpu::gemv(problem, context.threads()); return;
    case Backend::Auto:
    case Backend::Cuda: break;
  }
  throw BackendUnavailable(std::string(kFunction) + ": no GEMV kernels for backend '" +
                           to_string(context.backend()) + "'");
}

}  // namespace

void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const float* A, index_t lda, const float* x, index_t incx, float beta, float* y,
          index_t incy) {
  gemv_checked(context, layout, op, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, double alpha,
          const double* A, index_t lda, const double* x, index_t incx, double beta, double* y,
          index_t incy) {
  gemv_checked(context, layout, op, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

}  // namespace fastmv
