// Runs one GEMV call on the backend under test and checks everything about it:
// the result against the oracle within a tolerance scaled by machine epsilon, the
// reduction length and the magnitude of the result; A and x bitwise unchanged;
// guards and the gaps of a strided y untouched; y bit-identical on quick returns.
//
// The oracle: for a fast backend, the Reference backend on the same inputs; for the
// Reference backend itself, the element-wise loop of GemvOperands::compute_sums
// (logical indexing op(A)(i, j), long double accumulation), independent of the
// library.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend_under_test.hpp"
#include "common/guarded_buffer.hpp"
#include "common/random.hpp"
#include "fastmv/fastmv.hpp"

namespace fastmv_test {

using fastmv::Layout;
using fastmv::Op;

constexpr Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor};
constexpr Op kOps[] = {Op::NoTrans, Op::Trans};

inline index_t x_length(Op op, index_t m, index_t n) { return op == Op::NoTrans ? n : m; }
inline index_t y_length(Op op, index_t m, index_t n) { return op == Op::NoTrans ? m : n; }
inline index_t min_lda(Layout layout, index_t m, index_t n) {
  return std::max<index_t>(1, layout == Layout::RowMajor ? n : m);
}

// Problems with at least this many matrix elements run with several thread counts.
constexpr index_t kLargeProblemElements = index_t(1) << 14;

// Per-element tolerance: |got - want| <= kToleranceFactor * eps * (K + 2) * magnitude.
constexpr double kToleranceFactor = 4;

template <typename T>
const char* type_name() {
  return sizeof(T) == 4 ? "float" : "double";
}

// A and the logical values of x for one shape, reused across calls that vary
// alpha, beta and the increments.
template <typename T>
class GemvOperands {
 public:
  GemvOperands(Layout layout, Op op, index_t m, index_t n, index_t lda, std::size_t misalign)
      : op_(op),
        misalign_(misalign),
        A_(layout, m, n, lda, misalign),
        x_values_(static_cast<std::size_t>(x_length(op, m, n))) {}

  // A and x uniform in [-1, 1], never 0.
  void fill_random(Random& random) {
    for (index_t i = 0; i < A_.rows(); ++i) {
      for (index_t j = 0; j < A_.cols(); ++j) A_(i, j) = random.uniform_nonzero<T>();
    }
    for (T& value : x_values_) value = random.uniform_nonzero<T>();
    compute_sums();
  }

  // The independent element-wise loop, over op(A) with logical indexing:
  //   product[i]   = sum_j op(A)(i, j) * x_j          (long double)
  //   magnitude[i] = sum_j |op(A)(i, j)| * |x_j|      (double)
  // Call after setting A and x by hand. The loop nest follows storage order so that
  // a 4099 x 4099 matrix is not walked across its leading dimension; every (i, j)
  // term is added exactly once either way.
  void compute_sums() {
    const index_t rows = y_length(op_, A_.rows(), A_.cols());
    const index_t cols = x_length(op_, A_.rows(), A_.cols());
    product_.assign(static_cast<std::size_t>(rows), 0.0L);
    magnitude_.assign(static_cast<std::size_t>(rows), 0.0);
    auto add = [&](index_t i, index_t j) {
      const T a = op_a(i, j);
      const T xj = x_values_[static_cast<std::size_t>(j)];
      product_[static_cast<std::size_t>(i)] += static_cast<long double>(a) * xj;
      magnitude_[static_cast<std::size_t>(i)] += std::fabs(double(a)) * std::fabs(double(xj));
    };
    const bool op_rows_contiguous = (A_.layout() == Layout::RowMajor) == (op_ == Op::NoTrans);
    if (op_rows_contiguous) {
      for (index_t i = 0; i < rows; ++i) {
        for (index_t j = 0; j < cols; ++j) add(i, j);
      }
    } else {
      for (index_t j = 0; j < cols; ++j) {
        for (index_t i = 0; i < rows; ++i) add(i, j);
      }
    }
  }

  // op(A)(i, j): A(i, j) or A(j, i).
  T op_a(index_t i, index_t j) const { return op_ == Op::NoTrans ? A_(i, j) : A_(j, i); }

  GuardedMatrix<T>& A() { return A_; }
  const GuardedMatrix<T>& A() const { return A_; }
  std::vector<T>& x_values() { return x_values_; }
  const std::vector<T>& x_values() const { return x_values_; }
  Op op() const { return op_; }
  std::size_t misalign() const { return misalign_; }
  index_t m() const { return A_.rows(); }
  index_t n() const { return A_.cols(); }
  index_t x_size() const { return x_length(op_, m(), n()); }
  index_t y_size() const { return y_length(op_, m(), n()); }
  const std::vector<long double>& product() const { return product_; }
  const std::vector<double>& magnitude() const { return magnitude_; }

 private:
  Op op_;
  std::size_t misalign_;
  GuardedMatrix<T> A_;
  std::vector<T> x_values_;
  std::vector<long double> product_;
  std::vector<double> magnitude_;
};

// y before a call: poisoned with NaN when beta == 0 (it must not be read), else
// uniform random.
template <typename T>
std::vector<T> initial_y(Random& random, index_t length, T beta) {
  std::vector<T> y(static_cast<std::size_t>(length));
  for (T& value : y) {
    value = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : random.uniform_nonzero<T>();
  }
  return y;
}

template <typename T>
std::string describe_call(const GemvOperands<T>& operands, T alpha, T beta, index_t incx,
                          index_t incy) {
  std::ostringstream text;
  text << std::setprecision(std::numeric_limits<T>::max_digits10) << "gemv<" << type_name<T>()
       << "> " << fastmv::to_string(operands.A().layout())
       << " op=" << fastmv::to_string(operands.op()) << " m=" << operands.m()
       << " n=" << operands.n() << " lda=" << operands.A().ld() << " incx=" << incx
       << " incy=" << incy << " alpha=" << alpha << " beta=" << beta
       << " misalign=" << operands.misalign();
  return text.str();
}

// Calls y = alpha * op(A) * x + beta * y on the backend under test, once per
// execution (SIMD target x thread count), each on a fresh copy of y_initial (the
// logical y before the call) and checks the outcome. With `exact` set, the result
// must equal it exactly and no oracle runs (integer-valued cases). Returns false
// after reporting the first failing execution.
template <typename T>
bool check_gemv(const GemvOperands<T>& operands, T alpha, T beta, index_t incx, index_t incy,
                const std::vector<T>& y_initial, const std::vector<int>& threads,
                const std::vector<double>* exact = nullptr) {
  const GuardedMatrix<T>& A = operands.A();
  const index_t m = operands.m(), n = operands.n();
  const index_t y_size = operands.y_size();
  const std::size_t misalign = operands.misalign();
  const StridedVector<T> x(operands.x_values(), incx, misalign);
  const std::vector<T> a_snapshot = A.buffer().snapshot();
  const std::vector<T> x_snapshot = x.buffer().snapshot();
  // Bitwise comparisons of large operands after every execution would dominate the
  // run time: those are compared once, after all executions.
  constexpr std::size_t kCompareEachExecution = std::size_t(1) << 16;
  const bool compare_each_execution =
      a_snapshot.size() + x_snapshot.size() <= kCompareEachExecution;

  // Reference BLAS returns at once here and leaves y bit-identical.
  const bool quick_return = m == 0 || n == 0 || (alpha == T(0) && beta == T(1));
  std::vector<double> want(static_cast<std::size_t>(y_size));
  std::vector<double> tolerance(static_cast<std::size_t>(y_size), 0.0);
  if (exact != nullptr) {
    std::copy(exact->begin(), exact->end(), want.begin());
  } else if (!quick_return) {
    if constexpr (kBackend == fastmv::Backend::Reference) {
      for (index_t i = 0; i < y_size; ++i) {
        const std::size_t k = static_cast<std::size_t>(i);
        want[k] = static_cast<double>(
            static_cast<long double>(alpha) * operands.product()[k] +
            (beta == T(0) ? 0.0L : static_cast<long double>(beta) * y_initial[k]));
      }
    } else {
      StridedVector<T> y_oracle(y_initial, incy, misalign);
      fastmv::gemv(fastmv::Context(fastmv::Backend::Reference), A.layout(), operands.op(), m, n,
                   alpha, A.data(), A.ld(), x.data(), incx, beta, y_oracle.data(), incy);
      for (index_t i = 0; i < y_size; ++i) want[static_cast<std::size_t>(i)] = y_oracle.at(i);
    }
    const double scale = kToleranceFactor * std::numeric_limits<T>::epsilon() *
                         static_cast<double>(operands.x_size() + 2);
    for (index_t i = 0; i < y_size; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const double y_term =
          beta == T(0) ? 0.0 : std::fabs(double(beta)) * std::fabs(double(y_initial[k]));
      tolerance[k] = scale * (std::fabs(double(alpha)) * operands.magnitude()[k] + y_term);
    }
  }

  const bool passed = for_each_execution(threads, [&](const fastmv::Context& context) {
    StridedVector<T> y(y_initial, incy, misalign);
    std::ostringstream problems;
    problems << std::setprecision(std::numeric_limits<T>::max_digits10);
    try {
      fastmv::gemv(context, A.layout(), operands.op(), m, n, alpha, A.data(), A.ld(), x.data(),
                   incx, beta, y.data(), incy);
    } catch (const std::exception& error) {
      problems << "\n  unexpected exception: " << error.what();
    }
    if (compare_each_execution) {
      if (!A.buffer().equals(a_snapshot)) problems << "\n  A, its padding or its guards changed";
      if (!x.buffer().equals(x_snapshot)) problems << "\n  x or its guards changed";
    }
    if (!y.gaps_and_guards_intact()) problems << "\n  a guard or gap element of y was written";
    int bad = 0;
    for (index_t i = 0; i < y_size; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const T got = y.at(i);
      if (quick_return && exact == nullptr) {
        if (same_bits(got, y_initial[k])) continue;
        if (++bad <= 5) {
          problems << "\n  y[" << i << "] = " << got << " but a quick return must leave it "
                   << y_initial[k];
        }
        continue;
      }
      const double error = std::fabs(static_cast<double>(got) - want[k]);
      if (error <= tolerance[k]) continue;  // false for NaN
      if (++bad <= 5) {
        problems << "\n  y[" << i << "] = " << got << ", want " << want[k] << ", |error| " << error
                 << " > tolerance " << tolerance[k];
      }
    }
    if (bad > 5) problems << "\n  ... " << bad << " of " << y_size << " elements wrong";
    const std::string report = problems.str();
    if (report.empty()) return true;
    ADD_FAILURE() << describe_call(operands, alpha, beta, incx, incy) << report;
    return false;
  });
  if (passed && !(A.buffer().equals(a_snapshot) && x.buffer().equals(x_snapshot))) {
    ADD_FAILURE() << describe_call(operands, alpha, beta, incx, incy)
                  << "\n  A or x (or their padding or guards) changed";
    return false;
  }
  return passed;
}

}  // namespace fastmv_test
