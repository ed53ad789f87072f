/* A plain C program linked against the system BLAS (-lblas), as an existing
 * application would be. It calls sgemv_ and dgemv_, checks the results against a
 * naive loop, and reports which library the symbols came from.
 *
 *   blas_dropin_probe system   sgemv_/dgemv_ must come from the system BLAS
 *   blas_dropin_probe fastmv   they must come from libfastmv_blas (run with
 *                              LD_PRELOAD=libfastmv_blas.so)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, size_t trans_len);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, size_t trans_len);

enum { M = 37, N = 23, LDA = 40 };

/* Where the dynamic linker resolves `symbol` for this process. */
static int check_origin(const char* symbol, int want_fastmv) {
  void* address = dlsym(RTLD_DEFAULT, symbol);
  Dl_info info;
  if (address == NULL || dladdr(address, &info) == 0 || info.dli_fname == NULL) {
    fprintf(stderr, "%s: not found\n", symbol);
    return 1;
  }
  const int from_fastmv = strstr(info.dli_fname, "libfastmv_blas") != NULL;
  printf("%s from %s\n", symbol, info.dli_fname);
  if (from_fastmv != want_fastmv) {
    fprintf(stderr, "%s should come from %s\n", symbol, want_fastmv ? "libfastmv_blas" : "the system BLAS");
    return 1;
  }
  return 0;
}

/* y = alpha * op(A) * x + beta * y, A column-major M x N; the error bound is
 * 2 * eps * (k + 2) * (|alpha| sum_j |op(A)_ij x_j| + |beta y_i|). */
static int check_results(int transposed, double eps, const double* a, const double* x,
                         const double* y_on_entry, double alpha, double beta,
                         const double* y_single, const double* y_double) {
  const int y_length = transposed ? N : M;
  const int k = transposed ? M : N;
  for (int i = 0; i < y_length; ++i) {
    double sum = 0, magnitude = 0;
    for (int j = 0; j < k; ++j) {
      const double term = (transposed ? a[j + i * LDA] : a[i + j * LDA]) * x[j];
      sum += term;
      magnitude += fabs(term);
    }
    const double expected = alpha * sum + beta * y_on_entry[i];
    const double magnitude_y = fabs(alpha) * magnitude + fabs(beta * y_on_entry[i]);
    const double single_error = fabs(y_single[i] - expected);
    const double double_error = fabs(y_double[i] - expected);
    if (!(single_error <= 2 * eps * (k + 2) * magnitude_y) ||
        !(double_error <= 2 * DBL_EPSILON * (k + 2) * magnitude_y)) {
      fprintf(stderr, "%s y[%d]: sgemv_ %g, dgemv_ %g, expected %g\n",
              transposed ? "T" : "N", i, y_single[i], y_double[i], expected);
      return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc != 2 || (strcmp(argv[1], "system") != 0 && strcmp(argv[1], "fastmv") != 0)) {
    fprintf(stderr, "usage: %s system|fastmv\n", argv[0]);
    return 2;
  }
  const int want_fastmv = strcmp(argv[1], "fastmv") == 0;
  int failures = check_origin("sgemv_", want_fastmv) + check_origin("dgemv_", want_fastmv);

  static float a_single[LDA * N];
  static double a_double[LDA * N];
  float x_single[M], y_single[M];
  double x_double[M], y_double[M], y_on_entry[M], y_single_as_double[M];
  srand(12345);
  for (int i = 0; i < LDA * N; ++i) {
    a_single[i] = (float)rand() / RAND_MAX - 0.5f;
    a_double[i] = a_single[i];
  }
  for (int i = 0; i < M; ++i) {
    x_single[i] = (float)rand() / RAND_MAX - 0.5f;
    x_double[i] = x_single[i];
  }
  const int m = M, n = N, lda = LDA, one = 1;
  const float alpha_single = 1.5f, beta_single = -0.5f;
  const double alpha_double = 1.5, beta_double = -0.5;
  for (int transposed = 0; transposed <= 1; ++transposed) {
    for (int i = 0; i < M; ++i) {
      y_single[i] = (float)i / M;
      y_double[i] = y_on_entry[i] = y_single[i];
    }
    const char* trans = transposed ? "T" : "N";
    sgemv_(trans, &m, &n, &alpha_single, a_single, &lda, x_single, &one, &beta_single, y_single,
           &one, 1);
    dgemv_(trans, &m, &n, &alpha_double, a_double, &lda, x_double, &one, &beta_double, y_double,
           &one, 1);
    for (int i = 0; i < M; ++i) y_single_as_double[i] = y_single[i];
    failures += check_results(transposed, FLT_EPSILON, a_double, x_double, y_on_entry,
                              alpha_double, beta_double, y_single_as_double, y_double);
  }
  printf("%s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
