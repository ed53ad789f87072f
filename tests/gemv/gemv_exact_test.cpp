// GEMV results known exactly without any oracle: hand-computed small products,
// integer-valued products (exact in any summation order), and the BLAS special
// cases (quick returns, beta = 0 never reads y, alpha = 0 never reads A or x).
// These are what the Reference backend is checked against besides the test's own
// element-wise loop.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

#include "common/test_environment.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

template <typename T>
class GemvExactTest : public BackendTest {
 protected:
  // Integer-valued A and x in [-4, 4] \ {0}.
  void fill_integers(GemvOperands<T>& operands) {
    GuardedMatrix<T>& A = operands.A();
    for (index_t i = 0; i < A.rows(); ++i) {
      for (index_t j = 0; j < A.cols(); ++j) A(i, j) = T(this->random().nonzero_integer(4));
    }
    for (T& value : operands.x_values()) value = T(this->random().nonzero_integer(4));
  }

  // alpha * op(A) * x + beta * y in 64-bit integers, for integer-valued operands.
  std::vector<double> integer_result(const GemvOperands<T>& operands, std::int64_t alpha,
                                     std::int64_t beta, const std::vector<T>& y) {
    std::vector<double> result(static_cast<std::size_t>(operands.y_size()));
    for (index_t i = 0; i < operands.y_size(); ++i) {
      std::int64_t sum = 0;
      for (index_t j = 0; j < operands.x_size(); ++j) {
        sum += static_cast<std::int64_t>(operands.op_a(i, j)) *
               static_cast<std::int64_t>(operands.x_values()[static_cast<std::size_t>(j)]);
      }
      const std::size_t k = static_cast<std::size_t>(i);
      result[k] = static_cast<double>(alpha * sum + beta * static_cast<std::int64_t>(y[k]));
    }
    return result;
  }

  // Integer-valued products of the given shapes on every layout x op, increments
  // (1, 1) and (-3, 2), alpha = 2, beta = -1: the result must be exact.
  void check_integer_products(const std::vector<std::pair<index_t, index_t>>& shapes) {
    for (const auto& [m, n] : shapes) {
      for (const Layout layout : kLayouts) {
        for (const Op op : kOps) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + 5, 1);
          fill_integers(operands);
          std::vector<T> y(static_cast<std::size_t>(operands.y_size()));
          for (T& value : y) value = T(this->random().nonzero_integer(8));
          const std::vector<double> want = integer_result(operands, 2, -1, y);
          const std::vector<int> threads = thread_counts(m * n >= kLargeProblemElements);
          if (!check_gemv(operands, T(2), T(-1), 1, 1, y, threads, &want) ||
              !check_gemv(operands, T(2), T(-1), -3, 2, y, threads, &want)) {
            return;
          }
        }
      }
    }
  }
};

using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemvExactTest, FloatTypes);

// A = [1 2 3; 4 5 6] by hand.
//   A x with x = (1, -1, 2):        (5, 11);   2 * (5, 11) + 3 * (1, -2)   = (13, 16)
//   A^T x with x = (1, -1):   (-3, -3, -3);   2 * (-3,..) + 3 * (1, 2, 3) = (-3, 0, 3)
TYPED_TEST(GemvExactTest, HandComputedSmallProduct) {
  using T = TypeParam;
  const T nan = std::numeric_limits<T>::quiet_NaN();
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t lda_extra : {0, 3}) {
        for (const std::size_t misalign : {0, 1}) {
          GemvOperands<T> operands(layout, op, 2, 3, min_lda(layout, 2, 3) + lda_extra, misalign);
          const T values[2][3] = {{1, 2, 3}, {4, 5, 6}};
          for (index_t i = 0; i < 2; ++i) {
            for (index_t j = 0; j < 3; ++j) operands.A()(i, j) = values[i][j];
          }
          const bool no_trans = op == Op::NoTrans;
          operands.x_values() = no_trans ? std::vector<T>{1, -1, 2} : std::vector<T>{1, -1};
          const std::vector<T> y = no_trans ? std::vector<T>{1, -2} : std::vector<T>{1, 2, 3};
          const std::vector<double> want =
              no_trans ? std::vector<double>{13, 16} : std::vector<double>{-3, 0, 3};
          // beta = 0: y = 2 * A x, whatever y held.
          const std::vector<T> y_nan(y.size(), nan);
          const std::vector<double> want_beta_zero =
              no_trans ? std::vector<double>{10, 22} : std::vector<double>{-6, -6, -6};
          // alpha = 0: y = 3 * y.
          std::vector<double> want_alpha_zero;
          for (const T value : y) want_alpha_zero.push_back(3 * double(value));
          for (const index_t incx : {1, -1, 2, -3}) {
            for (const index_t incy : {1, -1, 2, -3}) {
              if (!check_gemv(operands, T(2), T(3), incx, incy, y, {0}, &want) ||
                  !check_gemv(operands, T(2), T(0), incx, incy, y_nan, {0}, &want_beta_zero) ||
                  !check_gemv(operands, T(0), T(3), incx, incy, y, {0}, &want_alpha_zero)) {
                return;
              }
            }
          }
        }
      }
    }
  }
}

TYPED_TEST(GemvExactTest, IntegerValuedProducts) {
  std::vector<index_t> sizes = {1, 7, 16, 17, 33, 257};
  if (!quick_mode()) sizes.push_back(1000);
  std::vector<std::pair<index_t, index_t>> shapes;
  for (const index_t m : sizes) {
    for (const index_t n : sizes) shapes.emplace_back(m, n);
  }
  this->check_integer_products(shapes);
}

// Shapes around the CPU backend's thread partitioning: few stored vectors and many
// (uneven splits, fewer granules of work than threads), run with 1, 2 and 3 threads.
TYPED_TEST(GemvExactTest, ThreadPartitionEdges) {
  this->check_integer_products({{5, 30011},
                                {30011, 5},
                                {4, 40000},
                                {40000, 4},
                                {33, 4099},
                                {4099, 33},
                                {63, 2049},
                                {2049, 63},
                                {31, 1031},
                                {1031, 31}});
}

// beta = 0: y is written without being read, so NaN and Inf in y disappear.
TYPED_TEST(GemvExactTest, NanAndInfInYIgnoredWhenBetaIsZero) {
  using T = TypeParam;
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : {1, 17, 257}) {
        for (const index_t n : {1, 17, 257}) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n), 1);
          operands.fill_random(this->random());
          std::vector<T> y(static_cast<std::size_t>(operands.y_size()));
          for (std::size_t i = 0; i < y.size(); ++i) y[i] = specials[i % 3];
          for (const index_t incy : {1, -3}) {
            if (!check_gemv(operands, T(-0.7), T(0), 1, incy, y, {0}) ||
                !check_gemv(operands, T(1), T(0), 2, incy, y, {0})) {
              return;
            }
          }
        }
      }
    }
  }
}

// alpha = 0: A and x are not read, so NaN and Inf in them never reach y, which
// becomes beta * y exactly (zeros for beta = 0, even where y held NaN).
TYPED_TEST(GemvExactTest, NanAndInfInAAndXIgnoredWhenAlphaIsZero) {
  using T = TypeParam;
  const T specials[] = {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::infinity(),
                        -std::numeric_limits<T>::infinity()};
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : {1, 17, 257}) {
        for (const index_t n : {3, 33}) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + 5, 1);
          for (index_t i = 0; i < m; ++i) {
            for (index_t j = 0; j < n; ++j) {
              operands.A()(i, j) = specials[static_cast<std::size_t>(i + j) % 3];
            }
          }
          for (std::size_t j = 0; j < operands.x_values().size(); ++j) {
            operands.x_values()[j] = specials[j % 3];
          }
          for (const T beta : {T(0), T(-0.7)}) {
            const std::vector<T> y = initial_y(this->random(), operands.y_size(), beta);
            std::vector<double> want;
            for (const T value : y) want.push_back(beta == T(0) ? 0.0 : double(T(beta * value)));
            for (const index_t incy : {1, -3}) {
              if (!check_gemv(operands, T(0), beta, 2, incy, y, {0}, &want)) return;
            }
          }
        }
      }
    }
  }
}

// alpha = 0 and beta = 1: quick return, y bit-identical (NaN, -0 and Inf included).
TYPED_TEST(GemvExactTest, AlphaZeroBetaOneLeavesYBitIdentical) {
  using T = TypeParam;
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      GemvOperands<T> operands(layout, op, 17, 33, min_lda(layout, 17, 33), 1);
      std::vector<T> y = initial_y(this->random(), operands.y_size(), T(1));
      y[0] = std::numeric_limits<T>::quiet_NaN();
      y[1] = T(-0.0);
      y[2] = std::numeric_limits<T>::infinity();
      for (const index_t incy : {1, -3}) {
        if (!check_gemv(operands, T(0), T(1), 1, incy, y, {0})) return;
      }
    }
  }
}

// m == 0 or n == 0: quick return, y bit-identical even for beta = 0 (reference BLAS).
TYPED_TEST(GemvExactTest, EmptyMatrixLeavesYBitIdentical) {
  using T = TypeParam;
  struct Shape {
    index_t m, n;
  };
  for (const Shape shape : {Shape{0, 0}, Shape{0, 5}, Shape{5, 0}, Shape{0, 33}, Shape{33, 0}}) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        GemvOperands<T> operands(layout, op, shape.m, shape.n, min_lda(layout, shape.m, shape.n),
                                 1);
        for (const T alpha : {T(1), T(0), T(-0.7)}) {
          for (const T beta : {T(0), T(-0.7)}) {
            const std::vector<T> y = initial_y(this->random(), operands.y_size(), beta);
            for (const index_t incy : {1, -3}) {
              if (!check_gemv(operands, alpha, beta, 2, incy, y, {0})) return;
            }
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace fastmv_test
