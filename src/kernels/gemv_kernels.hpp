// The one declaration of the GEMV kernels that every backend implements
// (reference/, cpu/, later cuda/). Only the dispatch layer calls these, after it
// has validated the arguments and brought the problem into canonical form.
#pragma once

#include "fastmv/types.hpp"

namespace fastmv::kernels {

// Every layout x op combination is one of two access patterns over the stored
// vectors of A (its rows when row-major, its columns when column-major): `count`
// vectors of `length` contiguous elements, `lda` apart.
//
//   Dot:  y[r] = alpha * sum_c A[r*lda + c] * x[c] + beta * y[r],  r < count
//         (row-major NoTrans, column-major Trans: one dot product per stored vector)
//   Axpy: y[c] = alpha * sum_r x[r] * A[r*lda + c] + beta * y[c],  c < length
//         (row-major Trans, column-major NoTrans: y accumulates scaled stored vectors)
//
// Both read A in storage order, so every kernel streams A contiguously.
enum class GemvForm { Dot, Axpy };

template <typename T>
struct GemvProblem {
  GemvForm form;
  index_t count;   // stored vectors, > 0
  index_t length;  // elements per stored vector, > 0
  T alpha;
  const T* A;  // not read when alpha == 0
  index_t lda;
  const T* x;  // logical element 0; element i is x[i * incx] (incx may be negative)
  index_t incx;
  T beta;  // y is not read when beta == 0
  T* y;    // logical element 0; element i is y[i * incy]
  index_t incy;

  index_t x_size() const { return form == GemvForm::Dot ? length : count; }
  index_t y_size() const { return form == GemvForm::Dot ? count : length; }
};

// Guaranteed by the dispatch layer: count > 0, length > 0, !(alpha == 0 && beta == 1),
// y shares no memory with A or x, non-null pointers where read or written.
namespace reference {
void gemv(const GemvProblem<float>& problem);
void gemv(const GemvProblem<double>& problem);
}  // namespace reference

namespace cpu {
void gemv(const GemvProblem<float>& problem, int threads);
void gemv(const GemvProblem<double>& problem, int threads);
}  // namespace cpu

}  // namespace fastmv::kernels
