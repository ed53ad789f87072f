// The generated systems of the seed paper's Jacobi experiment (fastmv/jacobi.hpp).
#include <cmath>
#include <cstdint>

#include "dispatch/checks.hpp"
#include "fastmv/jacobi.hpp"

namespace fastmv {
namespace {

// SplitMix64: a fixed generator, so that a seed means the same system everywhere
// (std::uniform_real_distribution is not specified bit for bit).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1), 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

template <typename T>
JacobiSystem<T> generate(index_t n, double alpha, unsigned long long seed, Layout layout) {
  const char* function = "fastmv::generate_jacobi_system";
  checks::require(n >= 1, function, "n", [=] { return checks::str(n); }, [] { return "must be >= 1"; });
  checks::require(std::isfinite(alpha) && alpha > 0, function, "alpha",
                  [=] { return std::to_string(alpha); }, [] { return "must be finite and > 0"; });
  checks::require(layout == Layout::RowMajor || layout == Layout::ColMajor, function, "layout",
                  [=] { return checks::str(static_cast<int>(layout)); },
                  [] { return "is not a fastmv::Layout"; });
  JacobiSystem<T> system;
  system.A.rows = system.A.cols = n;
  system.A.layout = layout;
  system.A.values.resize(static_cast<std::size_t>(n * n));
  system.b.resize(static_cast<std::size_t>(n));
  DenseMatrix<T>& A = system.A;
  // Row i draws from its own stream: rows can be generated in parallel, in any order.
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) {
    SplitMix64 random{seed * 0x2545f4914f6cdd1dULL + static_cast<std::uint64_t>(i)};
    double off_diagonal = 0;
    for (index_t j = 0; j < n; ++j) {
      const T value = static_cast<T>(random.uniform());
      A(i, j) = j == i ? T(0) : value;
      if (j != i) off_diagonal += static_cast<double>(value);
    }
    A(i, i) = static_cast<T>(n == 1 ? alpha : alpha * off_diagonal);
    system.b[i] = static_cast<T>(random.uniform() - 0.5);
  }
  return system;
}

}  // namespace

JacobiSystem<float> generate_jacobi_system_float(index_t n, double alpha, unsigned long long seed,
                                                 Layout layout) {
  return generate<float>(n, alpha, seed, layout);
}
JacobiSystem<double> generate_jacobi_system_double(index_t n, double alpha,
                                                   unsigned long long seed, Layout layout) {
  return generate<double>(n, alpha, seed, layout);
}

}  // namespace fastmv
