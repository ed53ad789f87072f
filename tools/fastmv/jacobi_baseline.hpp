// The baselines of `fastmv solve jacobi`: Jacobi's method as the seed paper ran it,
// a loop over a vendor GEMV (cuBLAS on the GPU, OpenBLAS on the CPU) with the update
// and the convergence test on the host, every iteration.
#pragma once

#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "fastmv/fastmv.hpp"

namespace fastmv_tool {

using fastmv::index_t;

// One solve by one implementation, as the report shows it.
struct JacobiRun {
  std::string implementation;  // "fastmv-cuda", "fastmv-cpu", "cublas-host-loop", ...
  std::string description;
  fastmv::JacobiStatus status = fastmv::JacobiStatus::Converged;
  index_t iterations = 0;
  double residual = 0;          // as the implementation reported it
  double checked_residual = 0;  // ||b - A x|| / ||b|| of its x, recomputed in double
  double transfer_s = 0;
  double setup_s = 0;
  double iterate_s = 0;
  index_t products = 0;  // products with A in iterate_s
  index_t check_every = 1;
  double gemv_s = 0;  // one GEMV of the same implementation on the same matrix, if timed

  double total_s() const { return transfer_s + setup_s + iterate_s; }
  double per_iteration_s() const { return products > 0 ? iterate_s / static_cast<double>(products) : 0; }
};

// x_{k+1} = x_k + D^-1 (b - t), t = A x_k from multiply(x, t) (host arrays), with the
// relative residual tested every iteration exactly as fastmv::jacobi's Residual rule
// (x_k is returned with the residual of x_k). Fills status, iterations, residual,
// products and iterate_s of `run`; x ends as the solution.
template <typename T, typename Multiply>
void host_update_loop(index_t n, const T* b, const fastmv::JacobiOptions& options,
                      const std::vector<T>& diagonal, Multiply&& multiply, std::vector<T>& x,
                      JacobiRun& run) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<T> t(static_cast<std::size_t>(n));
  double b_norm = 0;
  for (index_t i = 0; i < n; ++i) b_norm += static_cast<double>(b[i]) * static_cast<double>(b[i]);
  b_norm = std::sqrt(b_norm);
  x.assign(static_cast<std::size_t>(n), T(0));
  double first = -1;
  for (index_t k = 0;; ++k) {
    multiply(x.data(), t.data());
    run.products = k + 1;
    double residual_squared = 0;
    for (index_t i = 0; i < n; ++i) {
      const double r = static_cast<double>(b[i]) - static_cast<double>(t[i]);
      residual_squared += r * r;
      t[i] = static_cast<T>(r);
    }
    const double residual = std::sqrt(residual_squared) / b_norm;
    if (first < 0) first = residual;
    run.iterations = k;
    run.residual = residual;
    if (!std::isfinite(residual) || residual > options.divergence_factor * std::max(1.0, first)) {
      run.status = fastmv::JacobiStatus::Diverged;
      break;
    }
    if (residual <= options.tolerance) {
      run.status = fastmv::JacobiStatus::Converged;
      break;
    }
    if (k >= options.max_iterations) {
      run.status = fastmv::JacobiStatus::IterationLimit;
      break;
    }
    for (index_t i = 0; i < n; ++i) {
      x[i] = static_cast<T>(static_cast<double>(x[i]) +
                            static_cast<double>(t[i]) / static_cast<double>(diagonal[i]));
    }
  }
  run.iterate_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace fastmv_tool
