// Argument checking of xGEMV exactly as reference BLAS orders it, and the mapping
// of its parameter numbers to CBLAS numbering.
#pragma once

#include <algorithm>
#include <optional>

#include "fastmv/types.hpp"

namespace fastmv::blas {

// LSAME on the first character of TRANS: 'N', 'T', 'C' in either case.
inline std::optional<Op> op_from_fortran(char trans) {
  switch (trans) {
    case 'N':
    case 'n': return Op::NoTrans;
    case 'T':
    case 't': return Op::Trans;
    case 'C':
    case 'c': return Op::ConjTrans;
    default: return std::nullopt;
  }
}

// INFO of SGEMV(TRANS, M, N, ALPHA, A, LDA, X, INCX, BETA, Y, INCY): the position
// of the first invalid argument in reference order, 0 when all are valid.
inline int gemv_fortran_info(bool trans_valid, int m, int n, int lda, int incx, int incy) {
  if (!trans_valid) return 1;
  if (m < 0) return 2;
  if (n < 0) return 3;
  if (lda < std::max(1, m)) return 6;
  if (incx == 0) return 8;
  if (incy == 0) return 11;
  return 0;
}

// Reference CBLAS validates cblas_xgemv by calling the Fortran routine (for
// row-major storage with M and N swapped) and translating its INFO: CBLAS/src/xerbla.c
// adds 1 for the leading layout argument, and cblas_xerbla.c swaps 3 and 4 back for
// row-major calls so that M is 3 and N is 4 again.
inline int gemv_cblas_parameter(int fortran_info, bool row_major) {
  const int info = fortran_info + 1;
  if (row_major && info == 3) return 4;
  if (row_major && info == 4) return 3;
  return info;
}

}  // namespace fastmv::blas
