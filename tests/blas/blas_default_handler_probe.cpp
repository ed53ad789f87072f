// Makes one invalid call so that libfastmv_blas's default error handler runs: this
// program defines neither xerbla_ nor cblas_xerbla. Used by blas_gemv_errors_test.
// Exit status 3 means the handler returned, which the default handlers never do.
#include <cstdio>
#include <cstring>

#include "blas_prototypes.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr,
                 "usage: %s sgemv_lda|dgemv_incy|cblas_sgemv_layout|cblas_dgemv_rowmajor_m\n",
                 argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  float a_single[16] = {};
  float x_single[4] = {};
  float y_single[4] = {};
  double a_double[16] = {};
  double x_double[4] = {};
  double y_double[4] = {};
  if (std::strcmp(mode, "sgemv_lda") == 0) {
    fortran_gemv('N', 4, 3, 1.0f, a_single, 3, x_single, 1, 0.0f, y_single, 1);
  } else if (std::strcmp(mode, "dgemv_incy") == 0) {
    fortran_gemv('T', 4, 3, 1.0, a_double, 4, x_double, 1, 0.0, y_double, 0);
  } else if (std::strcmp(mode, "cblas_sgemv_layout") == 0) {
    cblas_gemv(static_cast<CBLAS_LAYOUT>(5), CblasNoTrans, 4, 3, 1.0f, a_single, 4, x_single, 1,
               0.0f, y_single, 1);
  } else if (std::strcmp(mode, "cblas_dgemv_rowmajor_m") == 0) {
    cblas_gemv(CblasRowMajor, CblasNoTrans, -1, 3, 1.0, a_double, 3, x_double, 1, 0.0, y_double, 1);
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  std::fprintf(stderr, "the error handler returned\n");
  return 3;
}
