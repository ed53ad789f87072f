// The C ABI of libfastmv_blas.so as a user program declares it (reference BLAS
// Fortran symbols and reference cblas.h), independent of the library's sources.
#pragma once

#include <cstddef>

extern "C" {
void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, std::size_t trans_len);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, std::size_t trans_len);

enum CBLAS_LAYOUT { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };

void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                 const float* a, int lda, const float* x, int incx, float beta, float* y, int incy);
void cblas_dgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, double alpha,
                 const double* a, int lda, const double* x, int incx, double beta, double* y,
                 int incy);

void xerbla_(const char* srname, const int* info, std::size_t srname_len);
void cblas_xerbla(int info, const char* rout, const char* form, ...);
}

// Typed front ends: the same call for float and double.
inline void fortran_gemv(char trans, int m, int n, float alpha, const float* a, int lda,
                         const float* x, int incx, float beta, float* y, int incy) {
  sgemv_(&trans, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1);
}
inline void fortran_gemv(char trans, int m, int n, double alpha, const double* a, int lda,
                         const double* x, int incx, double beta, double* y, int incy) {
  dgemv_(&trans, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy, 1);
}
inline void cblas_gemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                       const float* a, int lda, const float* x, int incx, float beta, float* y,
                       int incy) {
  cblas_sgemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
inline void cblas_gemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, double alpha,
                       const double* a, int lda, const double* x, int incx, double beta, double* y,
                       int incy) {
  cblas_dgemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}
