// XERBLA of reference BLAS (BLAS/SRC/xerbla.f), alone in its translation unit so
// that a program defining its own xerbla_ replaces it.
//
//   WRITE( *, FMT = 9999 ) SRNAME( 1:LEN_TRIM( SRNAME ) ), INFO
//   STOP
//   9999 FORMAT( ' ** On entry to ', A, ' parameter number ', I2, ' had ',
//                'an illegal value' )
//
// WRITE(*) is standard output, and STOP without a code exits with status 0.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "blas_abi.hpp"

void xerbla_(const char* srname, const int* info, std::size_t srname_len) {
  // LEN_TRIM; a C caller's NUL also ends the name.
  std::size_t length = strnlen(srname, srname_len);
  while (length > 0 && srname[length - 1] == ' ') --length;
  // I2: two columns, asterisks when the value does not fit.
  char number[3] = "**";
  if (*info >= -9 && *info <= 99) std::snprintf(number, sizeof number, "%2d", *info);
  std::printf(" ** On entry to %.*s parameter number %s had an illegal value\n",
              static_cast<int>(length), srname, number);
  std::exit(EXIT_SUCCESS);
}
