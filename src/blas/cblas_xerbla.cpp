// cblas_xerbla of reference CBLAS (CBLAS/src/cblas_xerbla.c), alone in its
// translation unit so that a program defining its own cblas_xerbla replaces it.
// The callers in this library pass the parameter number already in CBLAS
// numbering (see gemv_arguments.hpp), so the row-major renumbering that the
// reference handler applies while a reference CBLAS routine is running has been
// done before the call.
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "blas_abi.hpp"

void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  if (info != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, rout);
  std::va_list arguments;
  va_start(arguments, form);
  std::vfprintf(stderr, form, arguments);
  va_end(arguments);
  std::exit(-1);
}
