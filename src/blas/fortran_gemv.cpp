// SGEMV and DGEMV with the Fortran calling convention of reference BLAS
// (BLAS/SRC/sgemv.f): y := alpha*A*x + beta*y or y := alpha*A**T*x + beta*y,
// A column-major m x n.
#include <optional>

#include "blas_abi.hpp"
#include "gemv_arguments.hpp"
#include "gemv_bridge.hpp"

namespace fastmv::blas {
namespace {

// routine: the name reference BLAS passes to XERBLA, blank-padded to 6 characters.
template <typename T>
void fortran_gemv(const char (&routine)[7], char trans, int m, int n, T alpha, const T* a, int lda,
                  const T* x, int incx, T beta, T* y, int incy) {
  const std::optional<Op> op = op_from_fortran(trans);
  const int info = gemv_fortran_info(op.has_value(), m, n, lda, incx, incy);
  if (info != 0) {
    xerbla_(routine, &info, sizeof routine - 1);
    return;
  }
  gemv_fortran_shape(routine, *op, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

}  // namespace
}  // namespace fastmv::blas

// TRANS is CHARACTER*1 for the callers that matter, but like LSAME only its first
// character is read, so its hidden length is not needed.
void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, std::size_t /*trans_len*/) {
  fastmv::blas::fortran_gemv("SGEMV ", *trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}

void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, std::size_t /*trans_len*/) {
  fastmv::blas::fortran_gemv("DGEMV ", *trans, *m, *n, *alpha, a, *lda, x, *incx, *beta, y, *incy);
}
