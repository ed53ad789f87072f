// The six symbols libfastmv_blas.so exports, with the calling conventions of
// reference BLAS (Netlib LAPACK 3.11 BLAS/SRC) and reference CBLAS (CBLAS/src).
//
// Fortran (gfortran, LP64): every argument by pointer, INTEGER is 32-bit, and each
// CHARACTER argument adds a hidden length (size_t) after the last argument.
// CBLAS: the enums CBLAS_LAYOUT and CBLAS_TRANSPOSE are passed as int; an invalid
// value must be reported, so they are taken as int here.
#pragma once

#include <cstddef>

#define FASTMV_BLAS_API __attribute__((visibility("default")))

// Values of the reference cblas.h enums.
namespace fastmv::blas {
constexpr int kCblasRowMajor = 101;
constexpr int kCblasColMajor = 102;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;
constexpr int kCblasConjTrans = 113;
}  // namespace fastmv::blas

extern "C" {

FASTMV_BLAS_API void sgemv_(const char* trans, const int* m, const int* n, const float* alpha,
                            const float* a, const int* lda, const float* x, const int* incx,
                            const float* beta, float* y, const int* incy, std::size_t trans_len);
FASTMV_BLAS_API void dgemv_(const char* trans, const int* m, const int* n, const double* alpha,
                            const double* a, const int* lda, const double* x, const int* incx,
                            const double* beta, double* y, const int* incy, std::size_t trans_len);

FASTMV_BLAS_API void cblas_sgemv(int layout, int trans, int m, int n, float alpha, const float* a,
                                 int lda, const float* x, int incx, float beta, float* y, int incy);
FASTMV_BLAS_API void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double* a,
                                 int lda, const double* x, int incx, double beta, double* y,
                                 int incy);

// Error handlers. Each lives in its own translation unit and is called through the
// PLT, so a program that defines its own xerbla_ / cblas_xerbla replaces ours.
FASTMV_BLAS_API void xerbla_(const char* srname, const int* info, std::size_t srname_len);
FASTMV_BLAS_API void cblas_xerbla(int info, const char* rout, const char* form, ...);

}  // extern "C"
