// fastmv: Jacobi's iterative method for a dense linear system A x = b.
//
//   x_{k+1} = x_k + D^-1 (b - A x_k),   D the diagonal of A
//
// It converges for every b and x_0 when the spectral radius of D^-1 (A - D) is below 1,
// e.g. when A is strictly diagonally dominant by rows (|a_ii| > sum_{j != i} |a_ij|).
//
// Operands are host memory on every backend, and the call is synchronous: it returns
// with x written. The Cuda backend copies A to the device once (through pinned staging
// buffers, or directly when A is already pinned), keeps every iteration there and
// copies back only a few bytes per convergence check and the solution at the end.
// It holds one n x (n + 1) matrix in device memory (vectors padded to 16 bytes): the
// iteration matrix -D^-1 (A - D) with D^-1 b appended, so that one GEMV is one whole
// Jacobi update.
//
// What is returned describes the returned x exactly:
//   iterations  updates that led from x_0 to x;
//   residual    ||b - A x||_2 / ||b||_2;
//   update      ||x' - x||_inf / ||x'||_inf, x' the next Jacobi iterate of x (each
//               check computes x' anyway; it bounds the error of x: ||x - x*|| <=
//               ||x' - x|| / (1 - rho) for a contraction rate rho).
// The stopping rule is tested every `check_every` iterations. The status is
//   Converged       the rule held at a check;
//   IterationLimit  max_iterations updates without the rule holding (x is then x_max);
//   Diverged        the residual became NaN or Inf, or exceeded divergence_factor times
//                   max(1, the residual of x_0): x is the iterate of that check.
//
// Errors (fastmv::InvalidArgument, nothing written, no work done): rows != cols,
// negative sizes, lda < max(1, n), null pointers, x sharing memory with A or b, a
// diagonal entry that is 0, NaN or Inf (named with its index), options out of range,
// and on the Cuda backend operands in device memory. Failing CUDA calls throw
// fastmv::CudaError. A system with b = 0 has the solution x = 0: returned at once
// (Converged, 0 iterations).
#pragma once

#include <type_traits>
#include <vector>

#include "fastmv/context.hpp"
#include "fastmv/dense_matrix.hpp"
#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

// Which quantity the tolerance bounds.
enum class JacobiStop {
  Residual,             // ||b - A x||_2 / ||b||_2 <= tolerance
  Update,               // ||x' - x||_inf / ||x'||_inf <= tolerance
  ResidualAndUpdate,    // both
  ResidualOrUpdate,     // either
};

enum class JacobiStatus { Converged, IterationLimit, Diverged };

FASTMV_API const char* to_string(JacobiStop stop) noexcept;
FASTMV_API const char* to_string(JacobiStatus status) noexcept;

struct JacobiOptions {
  JacobiStop stop = JacobiStop::Residual;
  double tolerance = 1e-6;          // >= 0 (0: run to the iteration limit unless exact)
  index_t max_iterations = 10000;   // >= 0
  // Iterations between convergence checks; 0 chooses: 1 on the Reference and Cpu
  // backends; on the Cuda backend 16 for matrices that fit in half the L2 cache
  // (iterated by one kernel a check interval), otherwise one check per ~250 us of
  // iterations, between every 2nd and every 32nd (every 3rd at n = 8192 in float),
  // which keeps the checks near 2 % of the time. Convergence is then found up to
  // that many iterations late; set 1 for the exact iteration count.
  index_t check_every = 0;
  bool initial_guess = false;       // start from the x passed in; false: from x = 0
  double divergence_factor = 1e6;   // > 1, see Diverged above
  bool keep_history = false;        // record every check in JacobiResult::history
};

struct JacobiCheck {
  index_t iteration;
  double residual;
  double update;
};

struct JacobiResult {
  JacobiStatus status = JacobiStatus::Converged;
  index_t iterations = 0;
  double residual = 0;
  double update = 0;
  index_t check_every = 0;            // the interval used
  std::vector<JacobiCheck> history;   // every check, when options.keep_history
  // Wall-clock seconds of the call, in three parts that add up to all of it:
  // copies of A, b and x between host and device (0 on the Reference and Cpu
  // backends; on the Cuda backend it includes building the iteration matrix, which
  // runs behind the copies); the iterations with their checks, up to the last
  // check's answer; and setup, everything else: argument checks, allocation,
  // waiting for iterations run past the last check, freeing.
  double transfer_seconds = 0;
  double setup_seconds = 0;
  double iteration_seconds = 0;
  // Products with A the iterations took up to the last check (iterations + 1: the
  // last check computes x' too). The Cuda backend may run up to check_every more
  // while it waits for a check's answer; they are not counted and change nothing.
  index_t matrix_products = 0;

  double total_seconds() const { return transfer_seconds + setup_seconds + iteration_seconds; }
};

// Solves A x = b for the n x n matrix A (rows == cols == n) stored in `layout` with
// leading dimension lda. b has n elements; x has n elements, read as the initial
// guess when options.initial_guess, and written with the result. Unit strides.
FASTMV_API JacobiResult jacobi(const Context& context, Layout layout, index_t rows, index_t cols,
                               const float* A, index_t lda, const float* b, float* x,
                               const JacobiOptions& options = {});
FASTMV_API JacobiResult jacobi(const Context& context, Layout layout, index_t rows, index_t cols,
                               const double* A, index_t lda, const double* b, double* x,
                               const JacobiOptions& options = {});

// The same for a matrix and vectors that know their sizes: b must have A.rows
// elements (InvalidArgument otherwise); x is resized to A.cols, and must already have
// that size when options.initial_guess.
FASTMV_API JacobiResult jacobi(const Context& context, const DenseMatrix<float>& A,
                               const std::vector<float>& b, std::vector<float>& x,
                               const JacobiOptions& options = {});
FASTMV_API JacobiResult jacobi(const Context& context, const DenseMatrix<double>& A,
                               const std::vector<double>& b, std::vector<double>& x,
                               const JacobiOptions& options = {});

// The test systems of Fujimoto's Jacobi experiment (seed 000, section 4.2): off-
// diagonal entries uniform in [0, 1), a_ii = alpha * sum_{j != i} a_ij (so Jacobi's
// contraction rate is exactly 1 / alpha: it converges for alpha > 1 and diverges for
// alpha < 1), b uniform in [-0.5, 0.5). The same seed gives the same system on every
// machine and for both layouts. n >= 1 (n == 1: a_00 = alpha), alpha > 0.
template <typename T>
struct JacobiSystem {
  DenseMatrix<T> A;
  std::vector<T> b;
};
FASTMV_API JacobiSystem<float> generate_jacobi_system_float(index_t n, double alpha,
                                                            unsigned long long seed,
                                                            Layout layout = Layout::RowMajor);
FASTMV_API JacobiSystem<double> generate_jacobi_system_double(index_t n, double alpha,
                                                              unsigned long long seed,
                                                              Layout layout = Layout::RowMajor);
template <typename T>
JacobiSystem<T> generate_jacobi_system(index_t n, double alpha, unsigned long long seed,
                                       Layout layout = Layout::RowMajor) {
  if constexpr (std::is_same_v<T, float>) {
    return generate_jacobi_system_float(n, alpha, seed, layout);
  } else {
    return generate_jacobi_system_double(n, alpha, seed, layout);
  }
}

}  // namespace fastmv
