// The one declaration of the Jacobi iteration that every backend implements
// (reference/, cpu/, cuda/). Only solvers/jacobi.cpp calls these, after it has checked
// the arguments and the diagonal; it owns the stopping rule, each backend owns its
// memory and the iteration x_{k+1} = x_k + D^-1 (b - A x_k).
#pragma once

#include <memory>

#include "fastmv/types.hpp"

namespace fastmv {
namespace detail {
struct CudaState;
}

namespace kernels {

// A checked system: n > 0, every diagonal entry finite and nonzero, b != 0; host memory.
template <typename T>
struct JacobiProblem {
  Layout layout;
  index_t n;
  const T* A;
  index_t lda;
  const T* b;
  const T* diagonal;  // a_ii, n elements
  // A power of two near max |b_i|: residuals are summed as (r_i * residual_scale)^2
  // so that the sum neither overflows nor underflows for any finite b.
  double residual_scale;
  const T* x0;  // the initial guess, n elements; null for x_0 = 0
};

// What a check measures about the iterate x_k it was taken at: the residual
// r = b - A x_k and the step to x_{k+1}.
struct JacobiMeasurement {
  double residual_squared;  // sum_i (r_i * residual_scale)^2, NaN or Inf when r is
  double update_max;        // max_i |x_{k+1,i} - x_{k,i}|
  double x_next_max;        // max_i |x_{k+1,i}|
};

// One backend's iteration state: the matrix (in whatever form it iterates with), the
// current iterate, and two check slots. A check slot keeps a measurement and a copy
// of the iterate it was taken at, so that a backend may run on past a check while
// the driver looks at it.
template <typename T>
class JacobiEngine {
 public:
  virtual ~JacobiEngine() = default;

  // Queues `count` >= 1 iterations from the current iterate; the first is measured
  // into check slot `slot` (0 or 1), which keeps that iterate.
  virtual void iterate(index_t count, int slot) = 0;
  // The measurement of slot `slot`, waiting for it if needed.
  virtual JacobiMeasurement measurement(int slot) = 0;
  // Writes the iterate kept in slot `slot` to host memory (n elements).
  virtual void read_iterate(int slot, T* x) = 0;

  // Whether the driver should queue the next chunk of iterations before it reads a
  // check, with checks every `check_every` iterations. Only for a backend whose
  // iterate() returns before the work is done (the Cuda backend), and only where the
  // device would otherwise wait for the host.
  virtual bool queue_ahead(index_t check_every) const = 0;
  // The check interval the backend suggests when the caller leaves it to fastmv.
  virtual index_t default_check_every() const = 0;
  // Seconds the engine's construction spent moving A, b and x_0 to where the
  // iterations run.
  virtual double transfer_seconds() const = 0;
};

namespace reference {
template <typename T>
std::unique_ptr<JacobiEngine<T>> make_jacobi_engine(const JacobiProblem<T>& system);
}  // namespace reference

namespace cpu {
template <typename T>
std::unique_ptr<JacobiEngine<T>> make_jacobi_engine(const JacobiProblem<T>& system, int threads);
}  // namespace cpu

namespace cuda {
// Throws CudaError for failing CUDA calls; BackendUnavailable in builds without CUDA.
std::unique_ptr<JacobiEngine<float>> make_jacobi_engine(const JacobiProblem<float>& system,
                                                        detail::CudaState& state, int threads);
std::unique_ptr<JacobiEngine<double>> make_jacobi_engine(const JacobiProblem<double>& system,
                                                         detail::CudaState& state, int threads);
}  // namespace cuda

}  // namespace kernels
}  // namespace fastmv
