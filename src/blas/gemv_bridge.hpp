// The one path from the BLAS entry points into fastmv::gemv.
#pragma once

#include "fastmv/types.hpp"

namespace fastmv::blas {

// y = alpha * op(A) * x + beta * y for a call already validated in Fortran shape:
// A column-major m x n with leading dimension lda, BLAS increments. Runs on one
// process-wide Cpu context and never throws. `routine` names the caller in the
// report of an internal error.
void gemv_fortran_shape(const char* routine, Op op, int m, int n, float alpha, const float* A,
                        int lda, const float* x, int incx, float beta, float* y, int incy) noexcept;
void gemv_fortran_shape(const char* routine, Op op, int m, int n, double alpha, const double* A,
                        int lda, const double* x, int incx, double beta, double* y,
                        int incy) noexcept;

}  // namespace fastmv::blas
