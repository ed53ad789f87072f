// The one declaration of the GEMV kernels that every backend implements
// (reference/, cpu/, cuda/). Only the dispatch layer calls these, after it has
// validated the arguments and brought the problem into canonical form.
#pragma once

#include "fastmv/half.hpp"
#include "fastmv/types.hpp"

namespace fastmv {
namespace detail {
struct CudaState;
}

namespace kernels {

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

// The type of alpha, beta and the accumulation: float for every precision except
// double (the half-precision types accumulate in float).
template <typename TA>
struct ScalarOf {
  using type = float;
};
template <>
struct ScalarOf<double> {
  using type = double;
};

template <typename TA, typename TX = TA, typename TY = TX>
struct GemvProblem {
  using Scalar = typename ScalarOf<TA>::type;

  GemvForm form;
  index_t count;   // stored vectors, > 0
  index_t length;  // elements per stored vector, > 0
  Scalar alpha;
  const TA* A;  // not read when alpha == 0
  index_t lda;
  const TX* x;  // logical element 0; element i is x[i * incx] (incx may be negative)
  index_t incx;
  Scalar beta;  // y is not read when beta == 0
  TY* y;        // logical element 0; element i is y[i * incy]
  index_t incy;
  // Strided batches (the Cuda backend only; the dispatch layer hands the other
  // backends one product at a time): product b uses A + b * stride_a, x + b *
  // stride_x, y + b * stride_y.
  index_t batch = 1;
  index_t stride_a = 0;
  index_t stride_x = 0;
  index_t stride_y = 0;

  index_t x_size() const { return form == GemvForm::Dot ? length : count; }
  index_t y_size() const { return form == GemvForm::Dot ? count : length; }
};

// Guaranteed by the dispatch layer: count > 0, length > 0, batch > 0,
// !(alpha == 0 && beta == 1), no y shares memory with an A, an x or another y,
// non-null pointers where read or written (A and x are null when alpha == 0).
// For the reference and cpu backends batch == 1.
#define FASTMV_GEMV_KERNEL_DECLARATIONS(...)                  \
  __VA_ARGS__ gemv(const GemvProblem<float>& problem);        \
  __VA_ARGS__ gemv(const GemvProblem<double>& problem);       \
  __VA_ARGS__ gemv(const GemvProblem<half, float>& problem);  \
  __VA_ARGS__ gemv(const GemvProblem<half>& problem);         \
  __VA_ARGS__ gemv(const GemvProblem<bfloat16, float>& problem); \
  __VA_ARGS__ gemv(const GemvProblem<bfloat16>& problem);

namespace reference {
FASTMV_GEMV_KERNEL_DECLARATIONS(void)
}  // namespace reference

namespace cpu {
void gemv(const GemvProblem<float>& problem, int threads);
void gemv(const GemvProblem<double>& problem, int threads);
}  // namespace cpu

// Queued on the context's stream; arguments already checked to be device memory of
// the context's device.
namespace cuda {
void gemv(const GemvProblem<float>& problem, detail::CudaState& state);
void gemv(const GemvProblem<double>& problem, detail::CudaState& state);
void gemv(const GemvProblem<half, float>& problem, detail::CudaState& state);
void gemv(const GemvProblem<half>& problem, detail::CudaState& state);
void gemv(const GemvProblem<bfloat16, float>& problem, detail::CudaState& state);
void gemv(const GemvProblem<bfloat16>& problem, detail::CudaState& state);
}  // namespace cuda

#undef FASTMV_GEMV_KERNEL_DECLARATIONS

}  // namespace kernels
}  // namespace fastmv
