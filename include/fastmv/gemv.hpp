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
// Pointers: host memory for the Reference and Cpu backends, device memory of the
// context's device for the Cuda backend (see fastmv/cuda.hpp); any alignment.
// 16-byte aligned A, x, y with lda a multiple of 16 bytes take the fastest paths.
//
// Precisions: float and double; and mixed precision with A in half or bfloat16
// (fastmv/half.hpp) and x, y either float or A's own type. Mixed precision always
// accumulates in float, alpha and beta are float, and y is rounded once, at the end.
// The Cpu backend runs the mixed-precision overloads through the reference loops
// (correct, not tuned); the Cuda backend has tuned kernels for all of them.
//
// Strided batches: gemv_strided_batched computes `batch` independent products,
// product b using A + b * stride_a, x + b * stride_x and y + b * stride_y (strides in
// elements, any sign; 0 shares one operand among the whole batch, except for y).
// The y of different products must not share memory with each other, and no y may
// share memory with any A or x (InvalidArgument otherwise). batch == 0 does nothing.
#pragma once

#include "fastmv/context.hpp"
#include "fastmv/export.hpp"
#include "fastmv/half.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const float* A, index_t lda, const float* x, index_t incx, float beta, float* y,
          index_t incy);

FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, double alpha,
          const double* A, index_t lda, const double* x, index_t incx, double beta, double* y,
          index_t incy);

// Mixed precision: A in half or bfloat16; x and y in float, or in A's type.
FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const half* A, index_t lda, const float* x, index_t incx, float beta, float* y,
          index_t incy);
FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const half* A, index_t lda, const half* x, index_t incx, float beta, half* y,
          index_t incy);
FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const bfloat16* A, index_t lda, const float* x, index_t incx, float beta, float* y,
          index_t incy);
FASTMV_API void gemv(const Context& context, Layout layout, Op op, index_t m, index_t n, float alpha,
          const bfloat16* A, index_t lda, const bfloat16* x, index_t incx, float beta,
          bfloat16* y, index_t incy);

// Strided batches of independent products (see above), for every precision of gemv.
#define FASTMV_GEMV_STRIDED_BATCHED(Scalar, TA, TX, TY)                                        \
  FASTMV_API void gemv_strided_batched(                                                        \
      const Context& context, Layout layout, Op op, index_t m, index_t n, Scalar alpha,        \
      const TA* A, index_t lda, index_t stride_a, const TX* x, index_t incx, index_t stride_x, \
      Scalar beta, TY* y, index_t incy, index_t stride_y, index_t batch)
FASTMV_GEMV_STRIDED_BATCHED(float, float, float, float);
FASTMV_GEMV_STRIDED_BATCHED(double, double, double, double);
FASTMV_GEMV_STRIDED_BATCHED(float, half, float, float);
FASTMV_GEMV_STRIDED_BATCHED(float, half, half, half);
FASTMV_GEMV_STRIDED_BATCHED(float, bfloat16, float, float);
FASTMV_GEMV_STRIDED_BATCHED(float, bfloat16, bfloat16, bfloat16);
#undef FASTMV_GEMV_STRIDED_BATCHED

}  // namespace fastmv
