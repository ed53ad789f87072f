// The Jacobi iteration of the host backends (reference/, cpu/): they differ only in
// how they compute t = A x, which each provides through multiply().
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>
#include <vector>

#include "kernels/jacobi_kernels.hpp"

namespace fastmv::kernels {

// Product: the element type of t = A x (double for the reference backend, which sums
// in double, T for the Cpu backend's GEMV).
template <typename T, typename Product>
class HostJacobi : public JacobiEngine<T> {
 public:
  HostJacobi(const JacobiProblem<T>& system, int threads)
      : system_(system),
        threads_(threads),
        x_(system.x0 != nullptr ? std::vector<T>(system.x0, system.x0 + system.n)
                                : std::vector<T>(system.n, T(0))),
        next_(system.n),
        product_(system.n) {}

  void iterate(index_t count, int slot) override {
    for (index_t k = 0; k < count; ++k) step(k == 0 ? slot : -1);
  }
  JacobiMeasurement measurement(int slot) override { return measured_[slot]; }
  void read_iterate(int slot, T* x) override {
    std::copy(kept_[slot].begin(), kept_[slot].end(), x);
  }
  bool queue_ahead(index_t) const override { return false; }
  index_t default_check_every() const override { return 1; }
  double transfer_seconds() const override { return 0; }

 protected:
  const JacobiProblem<T>& system() const { return system_; }
  int threads() const { return threads_; }
  // t = A x, n elements.
  virtual void multiply(const T* x, Product* t) = 0;

 private:
  // x_next = x + (b - A x) / d; on checks (slot >= 0) also the measurement of x.
  void step(int slot) {
    multiply(x_.data(), product_.data());
    const index_t n = system_.n;
    const T* b = system_.b;
    const T* d = system_.diagonal;
    const Product* t = product_.data();
    const T* x = x_.data();
    T* next = next_.data();
    const double scale = system_.residual_scale;
    double residual_squared = 0, update_max = 0, x_next_max = 0;
    // One thread: n elements against the product's n^2 (~10 us at n = 8192). An
    // OpenMP team here, next to the Cpu GEMV's own helper threads, left 31 threads
    // spinning on 16 cores and made the iteration of the Cpu backend 3-38x slower
    // than an OpenBLAS loop on the H100's 16-core host.
    for (index_t i = 0; i < n; ++i) {
      const double residual = static_cast<double>(b[i]) - static_cast<double>(t[i]);
      next[i] = static_cast<T>(static_cast<double>(x[i]) + residual / static_cast<double>(d[i]));
      const double scaled = residual * scale;
      residual_squared += scaled * scaled;
      update_max = std::fmax(update_max,
                             std::fabs(static_cast<double>(next[i]) - static_cast<double>(x[i])));
      x_next_max = std::fmax(x_next_max, std::fabs(static_cast<double>(next[i])));
    }
    if (slot >= 0) {
      measured_[slot] = JacobiMeasurement{residual_squared, update_max, x_next_max};
      kept_[slot] = x_;
    }
    std::swap(x_, next_);
  }

  JacobiProblem<T> system_;
  int threads_;
  std::vector<T> x_;
  std::vector<T> next_;
  std::vector<Product> product_;
  std::array<std::vector<T>, 2> kept_;
  std::array<JacobiMeasurement, 2> measured_{};
};

}  // namespace fastmv::kernels
