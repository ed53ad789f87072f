#include "gemv_bridge.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

#include "dispatch/checks.hpp"
#include "fastmv/context.hpp"
#include "fastmv/gemv.hpp"

namespace fastmv::blas {
namespace {

// Offset of logical element i of a BLAS vector from its base pointer.
index_t element_offset(index_t i, index_t length, int inc) {
  return inc > 0 ? i * inc : (length - 1 - i) * -static_cast<index_t>(inc);
}

// One Cpu context for the life of the process: built on first use (thread-safe
// static initialisation), then shared read-only by every call.
const Context& cpu_context() {
  static const Context context(Backend::Cpu);
  return context;
}

// Every argument was validated before fastmv::gemv is called, so an exception
// here means an impossible state (out of memory, operands larger than the address
// space): it must not cross the C boundary.
[[noreturn]] void internal_error(const char* routine, const char* what) {
  std::fprintf(stderr, "fastmv_blas: %s: internal error: %s\n", routine, what);
  std::abort();
}

template <typename T>
void gemv_checked(const char* routine, Op op, int m, int n, T alpha, const T* A, int lda,
                  const T* x, int incx, T beta, T* y, int incy) noexcept {
  // Reference quick return: y untouched (not even scaled).
  if (m == 0 || n == 0 || (alpha == T(0) && beta == T(1))) return;
  const index_t x_length = op == Op::NoTrans ? n : m;
  const index_t y_length = op == Op::NoTrans ? m : n;
  try {
    // A and x are read only when alpha != 0.
    // Spans as fastmv::gemv computes them (column-major: n stored vectors of m).
    const checks::Span y_span = checks::vector_span(routine, "y", y, y_length, incy);
    const bool y_overlaps_input =
        alpha != T(0) &&
        (checks::overlap(y_span, checks::matrix_span(routine, A, n, m, lda)) ||
         checks::overlap(y_span, checks::vector_span(routine, "x", x, x_length, incx)));
    if (!y_overlaps_input) {
      gemv(cpu_context(), Layout::ColMajor, op, m, n, alpha, A, lda, x, incx, beta, y, incy);
      return;
    }
    // Reference BLAS leaves y overlapping A or x undefined and fastmv::gemv rejects
    // it. Compute into a private copy of y (O(len y)) so that A and x are read as
    // they were on entry, then store: y = alpha * op(A) * x + beta * y of the
    // values on entry.
    std::vector<T> result(static_cast<std::size_t>(y_length));
    if (beta != T(0)) {
      for (index_t i = 0; i < y_length; ++i) result[i] = y[element_offset(i, y_length, incy)];
    }
    gemv(cpu_context(), Layout::ColMajor, op, m, n, alpha, A, lda, x, incx, beta, result.data(), 1);
    for (index_t i = 0; i < y_length; ++i) y[element_offset(i, y_length, incy)] = result[i];
  } catch (const std::exception& error) {
    internal_error(routine, error.what());
  } catch (...) {
    internal_error(routine, "unknown exception");
  }
}

}  // namespace

void gemv_fortran_shape(const char* routine, Op op, int m, int n, float alpha, const float* A,
                        int lda, const float* x, int incx, float beta, float* y,
                        int incy) noexcept {
  gemv_checked(routine, op, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

void gemv_fortran_shape(const char* routine, Op op, int m, int n, double alpha, const double* A,
                        int lda, const double* x, int incx, double beta, double* y,
                        int incy) noexcept {
  gemv_checked(routine, op, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

}  // namespace fastmv::blas
