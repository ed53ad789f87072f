// fastmv: dense matrix-vector product, BLAS xGEMV semantics.
//
//   y = alpha * op(A) * x + beta * y
//
// A is m x n, stored in `layout` with leading dimension lda (the distance in
// elements between consecutive rows for RowMajor, consecutive columns for ColMajor).
// op(A) = A (Op::NoTrans): x has n elements, y has m.
// op(A) = A^T (Op::Trans or Op::ConjTrans): x has m elements, y has n.
//
// Vectors follow BLAS increments: element i of x is x[i * incx] when incx > 0 and
// x[(len - 1 - i) * |incx|] when incx < 0 (a negative increment walks the array
// backwards from its end); likewise y.
//
// Exactly as reference BLAS:
//   - m == 0 or n == 0, or alpha == 0 and beta == 1: return at once, y untouched;
//   - beta == 0: y is written without being read (NaN or Inf in y disappear);
//   - alpha == 0: A and x are not read (y = beta * y).
// One deliberate difference: reference BLAS skips the columns of A whose x_j is 0 in
// the non-transposed case, so an Inf or NaN there does not reach y; fastmv, like
// optimized BLAS kernels, multiplies every element and IEEE arithmetic propagates it.
//
// Requirements (fastmv::InvalidArgument otherwise, and nothing is written):
//   m >= 0, n >= 0; lda >= max(1, n) for RowMajor, lda >= max(1, m) for ColMajor;
//   incx != 0, incy != 0; A, x, y non-null whenever they would be read or written;
//   the memory y spans (from its first to its last element, gaps included) does not
//   intersect what A or x spans, so y interleaved with x by strides is rejected too
//   (A and x may share memory with each other).
//
// Pointers: host memory for the Reference and Cpu backends; any alignment.
#pragma once

#include "fastmv/context.hpp"
#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const float* A, index_t lda, const float* x, index_t incx, float beta, float* y,
          index_t incy);

FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, double alpha,
          const double* A, index_t lda, const double* x, index_t incx, double beta, double* y,
          index_t incy);

}  // namespace fastmv
