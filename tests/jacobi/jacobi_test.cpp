// fastmv::jacobi on the backend under test, against a direct solve in double and
// against the reference backend. Written once, compiled once per backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/backend_under_test.hpp"
#include "common/expect_error.hpp"
#include "fastmv/fastmv.hpp"

namespace fastmv_test {
namespace {

using fastmv::index_t;
using fastmv::JacobiOptions;
using fastmv::JacobiResult;
using fastmv::JacobiStatus;
using fastmv::JacobiStop;
using fastmv::Layout;

// A strictly diagonally dominant system in `layout` with leading dimension lda >= n;
// the padding between stored vectors holds NaN, which no backend may read.
template <typename T>
struct System {
  Layout layout;
  index_t n;
  index_t lda;
  std::vector<T> A;
  std::vector<T> b;

  T& at(index_t i, index_t j) { return A[layout == Layout::RowMajor ? i * lda + j : j * lda + i]; }
  double a(index_t i, index_t j) const {
    return static_cast<double>(A[layout == Layout::RowMajor ? i * lda + j : j * lda + i]);
  }
};

// |a_ii| = dominance * sum_{j != i} |a_ij|, signs random; b = A x for a random x.
template <typename T>
System<T> dominant_system(Random& random, Layout layout, index_t n, index_t lda, double dominance) {
  System<T> s{layout, n, lda, std::vector<T>(static_cast<std::size_t>(n * lda),
                                            std::numeric_limits<T>::quiet_NaN()),
              std::vector<T>(static_cast<std::size_t>(n))};
  for (index_t i = 0; i < n; ++i) {
    double off_diagonal = 0;
    for (index_t j = 0; j < n; ++j) {
      if (j == i) continue;
      s.at(i, j) = random.uniform_nonzero<T>();
      off_diagonal += std::fabs(s.a(i, j));
    }
    const double sign = random.uniform_nonzero<double>() < 0 ? -1 : 1;
    s.at(i, i) = static_cast<T>(sign * (n == 1 ? 1.0 : dominance * off_diagonal));
  }
  std::vector<double> x(static_cast<std::size_t>(n));
  for (auto& value : x) value = random.uniform_nonzero<double>();
  for (index_t i = 0; i < n; ++i) {
    double sum = 0;
    for (index_t j = 0; j < n; ++j) sum += s.a(i, j) * x[j];
    s.b[i] = static_cast<T>(sum);
  }
  return s;
}

template <typename T>
System<T> paper_system(index_t n, double alpha, Layout layout) {
  auto generated = fastmv::generate_jacobi_system<T>(n, alpha, 2008, layout);
  return System<T>{layout, n, n, std::move(generated.A.values), std::move(generated.b)};
}

// Gaussian elimination with partial pivoting, in double: the exact solution of the
// stored (rounded) system up to double rounding.
template <typename T>
std::vector<double> direct_solve(const System<T>& s) {
  const index_t n = s.n;
  std::vector<double> M(static_cast<std::size_t>(n * n));
  std::vector<double> x(s.b.begin(), s.b.end());
  for (index_t i = 0; i < n; ++i)
    for (index_t j = 0; j < n; ++j) M[i * n + j] = s.a(i, j);
  for (index_t k = 0; k < n; ++k) {
    index_t pivot = k;
    for (index_t i = k + 1; i < n; ++i)
      if (std::fabs(M[i * n + k]) > std::fabs(M[pivot * n + k])) pivot = i;
    for (index_t j = 0; j < n; ++j) std::swap(M[k * n + j], M[pivot * n + j]);
    std::swap(x[k], x[pivot]);
    for (index_t i = k + 1; i < n; ++i) {
      const double factor = M[i * n + k] / M[k * n + k];
      for (index_t j = k; j < n; ++j) M[i * n + j] -= factor * M[k * n + j];
      x[i] -= factor * x[k];
    }
  }
  for (index_t k = n - 1; k >= 0; --k) {
    for (index_t j = k + 1; j < n; ++j) x[k] -= M[k * n + j] * x[j];
    x[k] /= M[k * n + k];
  }
  return x;
}

// ||b - A x||_2 / ||b||_2 in double, and the size of what rounding in T may change
// in a residual computed another way (64 eps || |A| |x| ||_2 / ||b||_2).
template <typename T>
std::pair<double, double> residual_of(const System<T>& s, const std::vector<T>& x) {
  double residual = 0, magnitude = 0, b_norm = 0;
  for (index_t i = 0; i < s.n; ++i) {
    double sum = 0, absolute = 0;
    for (index_t j = 0; j < s.n; ++j) {
      sum += s.a(i, j) * static_cast<double>(x[j]);
      absolute += std::fabs(s.a(i, j) * static_cast<double>(x[j]));
    }
    const double r = static_cast<double>(s.b[i]) - sum;
    residual += r * r;
    magnitude += absolute * absolute;
    b_norm += static_cast<double>(s.b[i]) * static_cast<double>(s.b[i]);
  }
  const double epsilon = std::numeric_limits<T>::epsilon();
  return {std::sqrt(residual / b_norm), 64 * epsilon * std::sqrt(magnitude / b_norm)};
}

template <typename T>
double norm2(const std::vector<T>& v) {
  double sum = 0;
  for (const T value : v) sum += static_cast<double>(value) * static_cast<double>(value);
  return std::sqrt(sum);
}

// The reported residual describes the returned x.
template <typename T>
void expect_reported_residual(const System<T>& s, const std::vector<T>& x, const JacobiResult& result) {
  const auto [residual, rounding] = residual_of(s, x);
  EXPECT_NEAR(result.residual, residual, 0.01 * residual + rounding)
      << "the residual reported is not that of the x returned";
}

template <typename T>
JacobiResult solve(const fastmv::Context& context, const System<T>& s, std::vector<T>& x,
                   const JacobiOptions& options) {
  x.resize(static_cast<std::size_t>(s.n));
  return fastmv::jacobi(context, s.layout, s.n, s.n, s.A.data(), s.lda, s.b.data(), x.data(),
                        options);
}

template <typename T>
class JacobiTest : public BackendTest {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(JacobiTest, Types);

template <typename T>
double tolerance_for() {
  return std::is_same_v<T, float> ? 1e-5 : 1e-12;
}

TYPED_TEST(JacobiTest, SolvesDominantSystemsOfEveryShape) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
    for (const index_t n : {1, 2, 3, 16, 17, 100, 257}) {
      for (const index_t pad : {0, 3}) {
        SCOPED_TRACE(std::string(fastmv::to_string(layout)) + " n " + std::to_string(n) +
                     " lda n + " + std::to_string(pad));
        const System<T> s = dominant_system<T>(this->random(), layout, n, n + pad, 2.0);
        JacobiOptions options;
        options.tolerance = tolerance_for<T>();
        // The initial x is not read: NaN there must change nothing.
        std::vector<T> x(static_cast<std::size_t>(n), std::numeric_limits<T>::quiet_NaN());
        const JacobiResult result = solve(context, s, x, options);
        ASSERT_EQ(result.status, JacobiStatus::Converged) << "residual " << result.residual;
        EXPECT_LE(result.residual, options.tolerance);
        expect_reported_residual(s, x, result);
        const std::vector<double> exact = direct_solve(s);
        double error = 0, largest = 0, smallest_diagonal = std::numeric_limits<double>::infinity();
        for (index_t i = 0; i < n; ++i) {
          error = std::max(error, std::fabs(static_cast<double>(x[i]) - exact[i]));
          largest = std::max(largest, std::fabs(exact[i]));
          smallest_diagonal = std::min(smallest_diagonal, std::fabs(s.a(i, i)));
        }
        // Dominance 2 bounds ||A^-1||_inf by 2 / min |a_ii|, so the error of x is at most
        // 2 / min |a_ii| times the largest element of its residual b - A x, which is at
        // most (tol + what rounding may change in a residual) ||b||_2 (twice that, for
        // margin), plus the rounding of x itself. A bound of a fixed multiple of tol times
        // the largest element of x ignored the spread of the diagonal: with n = 2 a row of
        // small elements made it fail (one seed in many).
        const double rounding = residual_of(s, x).second;
        EXPECT_LE(error, 2 * (2 / smallest_diagonal) * (options.tolerance + rounding) * norm2(s.b) +
                             8 * std::numeric_limits<T>::epsilon() * largest);
        EXPECT_EQ(result.matrix_products, result.iterations + 1);
      }
    }
  }
}

// The backends sum in different orders, so their iterates differ in the last bits;
// on the paper's systems the iteration counts still agree within a few.
TYPED_TEST(JacobiTest, IterationCountsAgreeWithTheReference) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  const fastmv::Context reference(fastmv::Backend::Reference);
  for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
    for (const double alpha : {1.1, 1.2, 1.4}) {
      SCOPED_TRACE(std::string(fastmv::to_string(layout)) + " alpha " + std::to_string(alpha));
      const System<T> s = paper_system<T>(300, alpha, layout);
      JacobiOptions options;
      options.tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-10;
      options.check_every = 1;
      std::vector<T> x, expected;
      const JacobiResult result = solve(context, s, x, options);
      const JacobiResult oracle = solve(reference, s, expected, options);
      ASSERT_EQ(oracle.status, JacobiStatus::Converged);
      ASSERT_EQ(result.status, JacobiStatus::Converged);
      EXPECT_LE(std::abs(result.iterations - oracle.iterations), 3)
          << result.iterations << " iterations, the reference took " << oracle.iterations;
      // The contraction rate is 1 / alpha: the residual falls by about that each step.
      const double predicted = std::log(options.tolerance) / std::log(1 / alpha);
      EXPECT_GT(oracle.iterations, 0.5 * predicted);
      EXPECT_LT(oracle.iterations, 1.5 * predicted + 10);
      expect_reported_residual(s, x, result);
    }
  }
}

TYPED_TEST(JacobiTest, ReportsDivergenceWithinBoundedIterations) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  for (const index_t check_every : {0, 1, 5}) {
    SCOPED_TRACE("check_every " + std::to_string(check_every));
    // alpha = 0.5: the error doubles every iteration.
    const System<T> s = paper_system<T>(120, 0.5, Layout::RowMajor);
    JacobiOptions options;
    options.check_every = check_every;
    options.keep_history = true;
    std::vector<T> x;
    const JacobiResult result = solve(context, s, x, options);
    EXPECT_EQ(result.status, JacobiStatus::Diverged);
    // 2^20 > 1e6, the default divergence factor; one check interval more at most.
    EXPECT_LE(result.iterations, 24 + result.check_every);
    ASSERT_FALSE(result.history.empty());
    EXPECT_EQ(result.history.back().iteration, result.iterations);
    EXPECT_GT(result.residual, 1e6);
  }
}

TYPED_TEST(JacobiTest, NonFiniteOffDiagonalEntriesAreReportedAsDivergence) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  System<T> s = paper_system<T>(50, 1.2, Layout::ColMajor);
  s.at(7, 3) = std::numeric_limits<T>::infinity();
  std::vector<T> x;
  JacobiOptions options;
  options.check_every = 1;
  const JacobiResult result = solve(context, s, x, options);
  EXPECT_EQ(result.status, JacobiStatus::Diverged);
  EXPECT_LE(result.iterations, 2);
}

TYPED_TEST(JacobiTest, StopsAtTheIterationLimitWithTheResidualOfTheLastIterate) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  const System<T> s = paper_system<T>(90, 1.1, Layout::RowMajor);
  for (const index_t limit : {0, 1, 7}) {
    SCOPED_TRACE("max_iterations " + std::to_string(limit));
    JacobiOptions options;
    options.max_iterations = limit;
    options.check_every = 3;
    options.keep_history = true;
    std::vector<T> x;
    const JacobiResult result = solve(context, s, x, options);
    EXPECT_EQ(result.status, JacobiStatus::IterationLimit);
    EXPECT_EQ(result.iterations, limit);
    expect_reported_residual(s, x, result);
    // Checks at 0, 3, 6, ... and at the limit.
    for (const auto& check : result.history) {
      EXPECT_TRUE(check.iteration % 3 == 0 || check.iteration == limit) << check.iteration;
    }
  }
}

TYPED_TEST(JacobiTest, UpdateRuleAndHistory) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  const System<T> s = paper_system<T>(200, 1.4, Layout::ColMajor);
  JacobiOptions options;
  options.stop = JacobiStop::Update;
  options.tolerance = std::is_same_v<T, float> ? 1e-5 : 1e-11;
  options.check_every = 4;
  options.keep_history = true;
  std::vector<T> x;
  const JacobiResult result = solve(context, s, x, options);
  ASSERT_EQ(result.status, JacobiStatus::Converged);
  EXPECT_LE(result.update, options.tolerance);
  EXPECT_EQ(result.check_every, 4);
  EXPECT_EQ(result.iterations % 4, 0);
  ASSERT_EQ(static_cast<index_t>(result.history.size()), result.iterations / 4 + 1);
  EXPECT_DOUBLE_EQ(result.history.back().update, result.update);
  EXPECT_GT(result.history.front().update, result.history.back().update);
  expect_reported_residual(s, x, result);

  options.stop = JacobiStop::ResidualAndUpdate;
  const JacobiResult both = solve(context, s, x, options);
  EXPECT_EQ(both.status, JacobiStatus::Converged);
  EXPECT_LE(both.update, options.tolerance);
  EXPECT_LE(both.residual, options.tolerance);
  options.stop = JacobiStop::ResidualOrUpdate;
  const JacobiResult either = solve(context, s, x, options);
  EXPECT_EQ(either.status, JacobiStatus::Converged);
  EXPECT_LE(either.iterations, both.iterations);
}

TYPED_TEST(JacobiTest, StartsFromTheInitialGuess) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  const System<T> s = dominant_system<T>(this->random(), Layout::RowMajor, 64, 64, 3.0);
  const std::vector<double> exact = direct_solve(s);
  std::vector<T> x(exact.begin(), exact.end());
  JacobiOptions options;
  options.initial_guess = true;
  options.tolerance = 1e3 * std::numeric_limits<T>::epsilon();
  const JacobiResult result = solve(context, s, x, options);
  EXPECT_EQ(result.status, JacobiStatus::Converged);
  EXPECT_EQ(result.iterations, 0);
  for (index_t i = 0; i < s.n; ++i) EXPECT_EQ(static_cast<double>(x[i]), static_cast<double>(static_cast<T>(exact[i])));
}

TYPED_TEST(JacobiTest, ZeroRightHandSideAndEmptySystem) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  System<T> s = paper_system<T>(10, 1.1, Layout::RowMajor);
  std::fill(s.b.begin(), s.b.end(), T(0));
  std::vector<T> x(10, T(5));
  JacobiOptions options;
  options.initial_guess = true;
  const JacobiResult result = solve(context, s, x, options);
  EXPECT_EQ(result.status, JacobiStatus::Converged);
  EXPECT_EQ(result.iterations, 0);
  for (const T value : x) EXPECT_EQ(value, T(0));

  const JacobiResult empty =
      fastmv::jacobi(context, Layout::RowMajor, 0, 0, static_cast<const T*>(nullptr), 1,
                     static_cast<const T*>(nullptr), static_cast<T*>(nullptr));
  EXPECT_EQ(empty.status, JacobiStatus::Converged);
  EXPECT_EQ(empty.iterations, 0);
}

TYPED_TEST(JacobiTest, BadInputIsRefusedBeforeAnyWork) {
  using T = TypeParam;
  const fastmv::Context context(kBackend);
  const std::string f = "fastmv::jacobi";
  const index_t n = 6;
  System<T> s = paper_system<T>(n, 1.2, Layout::RowMajor);
  const T poison = T(-7.25);
  std::vector<T> x(static_cast<std::size_t>(n), poison);
  const auto run = [&](const System<T>& system, const JacobiOptions& options = {}) {
    return [&, options] {
      fastmv::jacobi(context, system.layout, system.n, system.n, system.A.data(), system.lda,
                     system.b.data(), x.data(), options);
    };
  };
  const auto untouched = [&] {
    for (const T value : x) ASSERT_EQ(value, poison) << "x was written although the call failed";
  };

  System<T> zero = s;
  zero.at(3, 3) = T(0);
  expect_invalid_argument(run(zero), f, "A(3, 3)", "0");
  untouched();
  System<T> not_a_number = s;
  not_a_number.at(5, 5) = std::numeric_limits<T>::quiet_NaN();
  expect_invalid_argument(run(not_a_number), f, "A(5, 5)", "nan");
  System<T> infinite_b = s;
  infinite_b.b[2] = std::numeric_limits<T>::infinity();
  expect_invalid_argument(run(infinite_b), f, "b[2]", "inf");
  untouched();

  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::RowMajor, n, n - 1, s.A.data(), n, s.b.data(), x.data()); },
                          f, "cols", std::to_string(n - 1));
  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::ColMajor, n, n, s.A.data(), n - 1, s.b.data(), x.data()); },
                          f, "lda", std::to_string(n - 1));
  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::RowMajor, -1, -1, s.A.data(), n, s.b.data(), x.data()); },
                          f, "rows", "-1");
  expect_invalid_argument([&] { fastmv::jacobi(context, static_cast<Layout>(9), n, n, s.A.data(), n, s.b.data(), x.data()); },
                          f, "layout", "9");
  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::RowMajor, n, n, static_cast<const T*>(nullptr), n, s.b.data(), x.data()); },
                          f, "A", "nullptr");
  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::RowMajor, n, n, s.A.data(), n, static_cast<const T*>(nullptr), x.data()); },
                          f, "b", "nullptr");
  expect_invalid_argument([&] { fastmv::jacobi(context, Layout::RowMajor, n, n, s.A.data(), n, s.b.data(), static_cast<T*>(nullptr)); },
                          f, "x", "nullptr");
  // x on top of b.
  std::vector<T> shared(s.b);
  try {
    fastmv::jacobi(context, Layout::RowMajor, n, n, s.A.data(), n, shared.data(), shared.data() + 2);
    ADD_FAILURE() << "x overlapping b was accepted";
  } catch (const fastmv::InvalidArgument& error) {
    EXPECT_EQ(error.argument(), "x");
    EXPECT_NE(std::string(error.what()).find("must not share memory with b"), std::string::npos)
        << error.what();
  }
  EXPECT_EQ(shared, s.b);
  untouched();

  JacobiOptions options;
  options.tolerance = -1;
  expect_invalid_argument(run(s, options), f, "options.tolerance", "-1");
  options = {};
  options.tolerance = std::numeric_limits<double>::quiet_NaN();
  expect_invalid_argument(run(s, options), f, "options.tolerance", "nan");
  options = {};
  options.max_iterations = -2;
  expect_invalid_argument(run(s, options), f, "options.max_iterations", "-2");
  options = {};
  options.check_every = -1;
  expect_invalid_argument(run(s, options), f, "options.check_every", "-1");
  options = {};
  options.divergence_factor = 1;
  expect_invalid_argument(run(s, options), f, "options.divergence_factor", "1");
  options = {};
  options.stop = static_cast<JacobiStop>(7);
  expect_invalid_argument(run(s, options), f, "options.stop", "7");
  options = {};
  options.initial_guess = true;
  x[4] = std::numeric_limits<T>::quiet_NaN();
  expect_invalid_argument(run(s, options), f, "x[4]", "nan");
  x[4] = poison;
  untouched();

  // The overloads that know their sizes.
  fastmv::DenseMatrix<T> matrix;
  matrix.rows = matrix.cols = n;
  matrix.layout = Layout::RowMajor;
  matrix.values = s.A;
  std::vector<T> short_b(s.b.begin(), s.b.end() - 1);
  std::vector<T> out(3, poison);
  expect_invalid_argument([&] { fastmv::jacobi(context, matrix, short_b, out); }, f, "b.size()",
                          std::to_string(n - 1));
  fastmv::DenseMatrix<T> wide = matrix;
  wide.cols = n + 1;
  wide.values.resize(static_cast<std::size_t>(n * (n + 1)), T(1));
  expect_invalid_argument([&] { fastmv::jacobi(context, wide, s.b, out); }, f, "A",
                          std::to_string(n) + " x " + std::to_string(n + 1));
  JacobiOptions guess;
  guess.initial_guess = true;
  expect_invalid_argument([&] { fastmv::jacobi(context, matrix, s.b, out, guess); }, f, "x.size()", "3");
  EXPECT_EQ(out, std::vector<T>(3, poison));
  const JacobiResult solved = fastmv::jacobi(context, matrix, s.b, out);
  EXPECT_EQ(solved.status, JacobiStatus::Converged);
  EXPECT_EQ(static_cast<index_t>(out.size()), n);
}

}  // namespace
}  // namespace fastmv_test
