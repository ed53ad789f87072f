// cblas_sgemv and cblas_dgemv as reference CBLAS (CBLAS/src/cblas_sgemv.c):
// y := alpha*op(A)*x + beta*y with A m x n in either layout.
#include "blas_abi.hpp"
#include "gemv_arguments.hpp"
#include "gemv_bridge.hpp"

namespace fastmv::blas {
namespace {

template <typename T>
void cblas_gemv(const char* routine, int layout, int trans, int m, int n, T alpha, const T* a,
                int lda, const T* x, int incx, T beta, T* y, int incy) {
  if (layout != kCblasRowMajor && layout != kCblasColMajor) {
    cblas_xerbla(1, routine, "Illegal layout setting, %d\n", layout);
    return;
  }
  if (trans != kCblasNoTrans && trans != kCblasTrans && trans != kCblasConjTrans) {
    cblas_xerbla(2, routine, "Illegal TransA setting, %d\n", trans);
    return;
  }
  // A row-major m x n matrix is its column-major n x m transpose, so row-major
  // calls are the Fortran routine on (n, m) with the operation flipped
  // (ConjTrans is Trans for real types).
  const bool row_major = layout == kCblasRowMajor;
  const bool transposed = trans != kCblasNoTrans;
  const Op fortran_op = transposed != row_major ? Op::Trans : Op::NoTrans;
  const int rows = row_major ? n : m;
  const int cols = row_major ? m : n;
  const int info = gemv_fortran_info(true, rows, cols, lda, incx, incy);
  if (info != 0) {
    cblas_xerbla(gemv_cblas_parameter(info, row_major), routine, "");
    return;
  }
  gemv_fortran_shape(routine, fortran_op, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
}

}  // namespace
}  // namespace fastmv::blas

void cblas_sgemv(int layout, int trans, int m, int n, float alpha, const float* a, int lda,
                 const float* x, int incx, float beta, float* y, int incy) {
  fastmv::blas::cblas_gemv("cblas_sgemv", layout, trans, m, n, alpha, a, lda, x, incx, beta, y,
                           incy);
}

void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy) {
  fastmv::blas::cblas_gemv("cblas_dgemv", layout, trans, m, n, alpha, a, lda, x, incx, beta, y,
                           incy);
}
