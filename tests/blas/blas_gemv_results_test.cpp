// Results of sgemv_, dgemv_, cblas_sgemv and cblas_dgemv, called through the C
// ABI only, against a naive double-precision loop on fresh random inputs.
//
// Every case poisons what the library must not touch: the padding of A (lda above
// its minimum), the gaps between vector elements (|inc| > 1) and one element before
// each buffer hold NaN or a sentinel and are checked bitwise after the call; y holds
// NaN when beta == 0 (it must not propagate), and A and x are entirely NaN when
// alpha == 0 (they must not be read).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "blas_prototypes.hpp"
#include "blas_test_support.hpp"

namespace {

using blas_test::element_index;
using blas_test::vector_extent;

enum class Interface { Fortran, CblasColMajor, CblasRowMajor };
enum class Operation { NoTrans, Trans, ConjTrans };

struct Case {
  Interface interface;
  Operation operation;
  bool lowercase;  // Fortran TRANS in lower case
  int m;
  int n;
  int lda_padding;  // lda = its minimum + lda_padding
  int incx;
  int incy;
  double alpha;
  double beta;
};

std::string describe(const Case& c) {
  static const char* const interfaces[] = {"Fortran", "CBLAS column-major", "CBLAS row-major"};
  static const char* const operations[] = {"NoTrans", "Trans", "ConjTrans"};
  std::ostringstream text;
  text << interfaces[static_cast<int>(c.interface)] << ' '
       << operations[static_cast<int>(c.operation)] << (c.lowercase ? " (lower case)" : "")
       << " m=" << c.m << " n=" << c.n << " lda padding=" << c.lda_padding << " incx=" << c.incx
       << " incy=" << c.incy << " alpha=" << c.alpha << " beta=" << c.beta;
  return text.str();
}

// A BLAS operand as the library sees it: the matrix or vector plus its layout.
template <typename T>
struct Operands {
  bool row_major;
  bool transposed;
  int m;
  int n;
  const T* a;
  int lda;
  const T* x;
  int incx;
  int incy;
  int x_length() const { return transposed ? m : n; }
  int y_length() const { return transposed ? n : m; }
  // op(A)(i, j).
  double op_a(int i, int j) const {
    const int row = transposed ? j : i;
    const int col = transposed ? i : j;
    return row_major ? a[static_cast<std::size_t>(row) * lda + col]
                     : a[row + static_cast<std::size_t>(col) * lda];
  }
};

// y = alpha * op(A) * x + beta * y in double, with the error bound allowed for each
// element: 2 * eps(T) * (k + 2) * (|alpha| * sum_j |op(A)_ij x_j| + |beta * y_i|),
// k the reduction length. It covers the library's rounding and the oracle's own
// (the same size for double).
template <typename T>
struct Expected {
  std::vector<double> value;
  std::vector<double> tolerance;
};

template <typename T>
Expected<T> naive_gemv(const Operands<T>& op, double alpha, double beta, const T* y) {
  const int k = op.x_length();
  const double eps = std::numeric_limits<T>::epsilon();
  Expected<T> expected;
  for (int i = 0; i < op.y_length(); ++i) {
    double sum = 0;
    double magnitude = 0;
    if (alpha != 0) {
      for (int j = 0; j < k; ++j) {
        const double term = op.op_a(i, j) * op.x[element_index(j, k, op.incx)];
        sum += term;
        magnitude += std::abs(term);
      }
    }
    const double old_y = beta == 0 ? 0.0 : y[element_index(i, op.y_length(), op.incy)];
    expected.value.push_back(alpha * sum + beta * old_y);
    expected.tolerance.push_back(2 * eps * (k + 2) *
                                 (std::abs(alpha) * magnitude + std::abs(beta * old_y)));
  }
  return expected;
}

template <typename T>
::testing::AssertionResult matches(const Expected<T>& expected, const T* y, int incy) {
  const int length = static_cast<int>(expected.value.size());
  for (int i = 0; i < length; ++i) {
    const double got = y[element_index(i, length, incy)];
    const double error = std::abs(got - expected.value[i]);
    if (!(error <= expected.tolerance[i])) {
      return ::testing::AssertionFailure()
             << "y[" << i << "] = " << got << ", expected " << expected.value[i] << " (error "
             << error << " > tolerance " << expected.tolerance[i] << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

template <typename T>
void call_library(const Case& c, const T* a, int lda, const T* x, T* y) {
  static const char letters[] = {'N', 'T', 'C'};
  static const CBLAS_TRANSPOSE transposes[] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  const int operation = static_cast<int>(c.operation);
  const T alpha = static_cast<T>(c.alpha);
  const T beta = static_cast<T>(c.beta);
  switch (c.interface) {
    case Interface::Fortran: {
      const char trans =
          c.lowercase ? static_cast<char>(letters[operation] - 'A' + 'a') : letters[operation];
      fortran_gemv(trans, c.m, c.n, alpha, a, lda, x, c.incx, beta, y, c.incy);
      return;
    }
    case Interface::CblasColMajor:
      cblas_gemv(CblasColMajor, transposes[operation], c.m, c.n, alpha, a, lda, x, c.incx, beta, y,
                 c.incy);
      return;
    case Interface::CblasRowMajor:
      cblas_gemv(CblasRowMajor, transposes[operation], c.m, c.n, alpha, a, lda, x, c.incx, beta, y,
                 c.incy);
      return;
  }
}

// Runs one case on fresh random data; checks the result and that nothing else changed.
template <typename T>
::testing::AssertionResult check_case(std::mt19937_64& engine, const Case& c) {
  const T nan = std::numeric_limits<T>::quiet_NaN();
  const T sentinel = T(-1234.5);
  const bool row_major = c.interface == Interface::CblasRowMajor;
  const bool transposed = c.operation != Operation::NoTrans;
  const int stored_vectors = row_major ? c.m : c.n;
  const int stored_length = row_major ? c.n : c.m;
  const int lda = std::max(1, stored_length) + c.lda_padding;
  const int x_length = transposed ? c.m : c.n;
  const int y_length = transposed ? c.n : c.m;

  // Each buffer starts one element in, so operands are misaligned and the element
  // before them is checked too.
  std::vector<T> a_buffer(1 + static_cast<std::size_t>(lda) * stored_vectors, nan);
  std::vector<T> x_buffer(1 + vector_extent(x_length, c.incx), nan);
  std::vector<T> y_buffer(1 + vector_extent(y_length, c.incy), sentinel);
  T* a = a_buffer.data() + 1;
  T* x = x_buffer.data() + 1;
  T* y = y_buffer.data() + 1;
  if (c.alpha != 0) {
    const std::vector<T> a_values = blas_test::random_values<T>(
        engine, static_cast<std::size_t>(stored_vectors) * stored_length);
    for (int v = 0; v < stored_vectors; ++v) {
      std::copy_n(a_values.begin() + static_cast<std::ptrdiff_t>(v) * stored_length, stored_length,
                  a + static_cast<std::size_t>(v) * lda);
    }
    const std::vector<T> x_values = blas_test::random_values<T>(engine, x_length);
    for (int j = 0; j < x_length; ++j) x[element_index(j, x_length, c.incx)] = x_values[j];
  }
  const std::vector<T> y_values = blas_test::random_values<T>(engine, y_length);
  for (int i = 0; i < y_length; ++i) {
    y[element_index(i, y_length, c.incy)] = c.beta == 0 ? nan : y_values[i];
  }

  const std::vector<T> a_before = a_buffer;
  const std::vector<T> x_before = x_buffer;
  const std::vector<T> y_before = y_buffer;
  const Operands<T> operands{row_major, transposed, c.m, c.n, a, lda, x, c.incx, c.incy};
  const Expected<T> expected = naive_gemv(operands, c.alpha, c.beta, y);

  call_library(c, static_cast<const T*>(a), lda, static_cast<const T*>(x), y);

  if (!blas_test::same_bits(a_buffer, a_before))
    return ::testing::AssertionFailure() << "A changed";
  if (!blas_test::same_bits(x_buffer, x_before))
    return ::testing::AssertionFailure() << "x changed";
  // Reference quick return: y untouched, even when beta == 0.
  if (c.m == 0 || c.n == 0 || (c.alpha == 0 && c.beta == 1)) {
    if (!blas_test::same_bits(y_buffer, y_before)) {
      return ::testing::AssertionFailure() << "y changed on a quick return";
    }
    return ::testing::AssertionSuccess();
  }
  // Everything in y's buffer but its elements keeps its bits.
  std::vector<T> y_outside = y_buffer;
  for (int i = 0; i < y_length; ++i) y_outside[1 + element_index(i, y_length, c.incy)] = sentinel;
  std::vector<T> y_outside_before = y_before;
  for (int i = 0; i < y_length; ++i) {
    y_outside_before[1 + element_index(i, y_length, c.incy)] = sentinel;
  }
  if (!blas_test::same_bits(y_outside, y_outside_before)) {
    return ::testing::AssertionFailure() << "a gap element of y, or the one before it, changed";
  }
  return matches(expected, static_cast<const T*>(y), c.incy);
}

// Every shape (0, 1, 17, 257, square and not) x op x increments x alpha x beta.
template <typename T>
void check_interface(Interface interface) {
  const std::uint64_t seed = blas_test::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 engine(seed);
  const int sizes[] = {0, 1, 17, 257};
  const int increments[][2] = {{1, 1}, {2, -1}, {-1, -3}, {-3, 2}};
  const double scalars[] = {0.0, 1.0, -0.7};
  int variant = 0;
  for (int m : sizes) {
    for (int n : sizes) {
      for (Operation operation : {Operation::NoTrans, Operation::Trans, Operation::ConjTrans}) {
        for (const auto& inc : increments) {
          for (double alpha : scalars) {
            for (double beta : scalars) {
              ++variant;
              const bool lowercase = variant % 2 == 1;
              const int lda_padding = variant % 3 == 0 ? 0 : 3;
              const Case c{interface,   operation, lowercase, m,     n,
                           lda_padding, inc[0],    inc[1],    alpha, beta};
              ASSERT_TRUE(check_case<T>(engine, c)) << describe(c);
            }
          }
        }
      }
    }
  }
}

template <typename T>
class BlasGemvResults : public ::testing::Test {};
using Precisions = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BlasGemvResults, Precisions);

TYPED_TEST(BlasGemvResults, Fortran) { check_interface<TypeParam>(Interface::Fortran); }
TYPED_TEST(BlasGemvResults, CblasColMajor) { check_interface<TypeParam>(Interface::CblasColMajor); }
TYPED_TEST(BlasGemvResults, CblasRowMajor) { check_interface<TypeParam>(Interface::CblasRowMajor); }

// y sharing memory with x or A is undefined in reference BLAS; libfastmv_blas
// computes y = alpha * op(A) * x + beta * y from the values on entry.
TYPED_TEST(BlasGemvResults, YOverlappingXUsesValuesOnEntry) {
  using T = TypeParam;
  const std::uint64_t seed = blas_test::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 engine(seed);
  const int n = 17;
  const std::vector<T> a = blas_test::random_values<T>(engine, n * n);
  for (Operation operation : {Operation::NoTrans, Operation::Trans}) {
    for (int inc : {1, -2}) {
      std::vector<T> xy = blas_test::random_values<T>(engine, vector_extent(n, inc));
      const std::vector<T> x_on_entry = xy;
      const bool transposed = operation == Operation::Trans;
      const Operands<T> operands{false, transposed, n, n, a.data(), n, x_on_entry.data(), inc, inc};
      const Expected<T> expected = naive_gemv(operands, -0.7, 1.0, x_on_entry.data());
      fortran_gemv(transposed ? 'T' : 'N', n, n, T(-0.7), a.data(), n, xy.data(), inc, T(1),
                   xy.data(), inc);
      EXPECT_TRUE(matches(expected, static_cast<const T*>(xy.data()), inc))
          << "Fortran, transposed=" << transposed << " inc=" << inc;

      xy = x_on_entry;
      const Operands<T> row_major{true, transposed, n, n, a.data(), n, x_on_entry.data(), inc, inc};
      const Expected<T> expected_row_major = naive_gemv(row_major, 1.0, 0.0, x_on_entry.data());
      cblas_gemv(CblasRowMajor, transposed ? CblasTrans : CblasNoTrans, n, n, T(1), a.data(), n,
                 xy.data(), inc, T(0), xy.data(), inc);
      EXPECT_TRUE(matches(expected_row_major, static_cast<const T*>(xy.data()), inc))
          << "CBLAS row-major, transposed=" << transposed << " inc=" << inc;
    }
  }
}

TYPED_TEST(BlasGemvResults, YInsideAUsesValuesOnEntry) {
  using T = TypeParam;
  const std::uint64_t seed = blas_test::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  std::mt19937_64 engine(seed);
  const int m = 19;
  const int n = 11;
  std::vector<T> a = blas_test::random_values<T>(engine, static_cast<std::size_t>(m) * n);
  const std::vector<T> a_on_entry = a;
  const std::vector<T> x = blas_test::random_values<T>(engine, n);
  // y is column 3 of A: y = 0.5 * A * x - 0.7 * A(:, 3).
  T* y = a.data() + 3 * m;
  const Operands<T> operands{false, false, m, n, a_on_entry.data(), m, x.data(), 1, 1};
  const Expected<T> expected = naive_gemv(operands, 0.5, -0.7, a_on_entry.data() + 3 * m);
  fortran_gemv('N', m, n, T(0.5), a.data(), m, x.data(), 1, T(-0.7), y, 1);
  EXPECT_TRUE(matches(expected, static_cast<const T*>(y), 1));
  for (int j = 0; j < n; ++j) {
    if (j == 3) continue;
    for (int i = 0; i < m; ++i) {
      ASSERT_TRUE(blas_test::same_bits(a[i + j * m], a_on_entry[i + j * m])) << i << ", " << j;
    }
  }
}

}  // namespace
