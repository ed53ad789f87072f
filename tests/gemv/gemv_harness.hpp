// Runs one GEMV call on the backend under test and checks everything about it:
// the result against the oracle within a tolerance scaled by machine epsilon, the
// reduction length and the magnitude of the result; A and x bitwise unchanged;
// guards and the gaps of a strided y untouched; y bit-identical on quick returns.
//
// The oracle: for a fast backend, the Reference backend on the same inputs; for the
// Reference backend itself, the element-wise loop of GemvOperands::compute_sums
// (logical indexing op(A)(i, j), long double accumulation), independent of the
// library.
//
// Precisions: A in TA, x in TX, y in TY; float and double, and the mixed-precision
// overloads (A in half or bfloat16, x and y in float or A's type). The operands are
// built in host memory and, for the Cuda backend, mirrored in device memory for the
// call (common/backend_memory.hpp).
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

#include "common/backend_memory.hpp"
#include "common/backend_under_test.hpp"
#include "common/guarded_buffer.hpp"
#include "common/precision.hpp"
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

// `count` stored vectors of `length` elements, `lda` apart: the Axpy form's operand.
struct AxpyShape {
  index_t count, length, lda;
};

// check(layout, op, m, n, lda) for each shape in the Axpy form of both layouts
// (row-major Trans, column-major NoTrans); false at the first failure.
template <typename Check>
bool check_axpy_form(const std::vector<AxpyShape>& shapes, Check check) {
  for (const AxpyShape& shape : shapes) {
    for (const Layout layout : kLayouts) {
      const bool row_major = layout == Layout::RowMajor;
      if (!check(layout, row_major ? Op::Trans : Op::NoTrans, row_major ? shape.count : shape.length,
                 row_major ? shape.length : shape.count, shape.lda)) {
        return false;
      }
    }
  }
  return true;
}

// Problems with at least this many matrix elements run with several thread counts.
constexpr index_t kLargeProblemElements = index_t(1) << 14;

// Per-element tolerance of y_i = alpha * sum_j op(A)(i, j) x_j + beta * y_i, where
// the sum has K terms, eps is the machine epsilon of the accumulation type (Scalar:
// float for every precision but double) and u_Y the unit roundoff of y's type:
//
//   |got - want| <= kToleranceFactor * eps * (K + 2) * magnitude            (1)
//                   + kOutputRoundings * u_Y * (|want| + (1)) + denorm_Y    (2)
//   magnitude    =  |alpha| * sum_j |op(A)(i, j)| |x_j| + |beta| |y_i|
//
// (1) is the worst-case error of accumulating the K products, the alpha and the
// beta term in any order (K + 2 roundings, each relatively <= eps / 2), with a
// factor 4 of room; the oracle's own error (double accumulation) is negligible.
// It is the whole error for float and double y. The inputs are exactly the same
// values for the backend and the oracle, so narrow inputs (half A, half x) add no
// error of their own: a half x half product is exact in float.
// (2) is the final rounding of y to a 16-bit type, where u_Y (half 2^-11, bfloat16
// 2^-8) is far above eps: both the result and the oracle are rounded once to TY
// (the oracle twice, through float), each by at most u_Y times a magnitude below
// |want| + (1), or by half the subnormal spacing denorm_Y near 0.
constexpr double kToleranceFactor = 4;
constexpr double kOutputRoundings = 3;

template <typename TY, typename S>
double gemv_tolerance(index_t reduction_length, double magnitude, double want) {
  const double accumulation = kToleranceFactor * std::numeric_limits<S>::epsilon() *
                              static_cast<double>(reduction_length + 2) * magnitude;
  if constexpr (!kIsHalfPrecision<TY>) {
    return accumulation;
  } else {
    return accumulation +
           kOutputRoundings * unit_roundoff<TY>() * (std::fabs(want) + accumulation) +
           smallest_subnormal<TY>();
  }
}

// A and the logical values of x for one shape, reused across calls that vary
// alpha, beta and the increments. A lies `misalign` elements past a 64-byte boundary,
// x and y `vector_misalign` (the same unless given).
template <typename TA, typename TX = TA>
class GemvOperands {
 public:
  static constexpr std::size_t kSameMisalign = ~std::size_t(0);
  GemvOperands(Layout layout, Op op, index_t m, index_t n, index_t lda, std::size_t misalign,
               std::size_t vector_misalign = kSameMisalign)
      : op_(op),
        misalign_(misalign),
        vector_misalign_(vector_misalign == kSameMisalign ? misalign : vector_misalign),
        A_(layout, m, n, lda, misalign),
        x_values_(static_cast<std::size_t>(x_length(op, m, n))) {}

  // A and x uniform in [-1, 1], never 0.
  void fill_random(Random& random) {
    for (index_t i = 0; i < A_.rows(); ++i) {
      for (index_t j = 0; j < A_.cols(); ++j) A_(i, j) = random.uniform_nonzero<TA>();
    }
    for (TX& value : x_values_) value = random.uniform_nonzero<TX>();
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
      const double a = to_double(op_a(i, j));
      const double xj = to_double(x_values_[static_cast<std::size_t>(j)]);
      product_[static_cast<std::size_t>(i)] += static_cast<long double>(a) * xj;
      magnitude_[static_cast<std::size_t>(i)] += std::fabs(a) * std::fabs(xj);
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
  TA op_a(index_t i, index_t j) const { return op_ == Op::NoTrans ? A_(i, j) : A_(j, i); }

  GuardedMatrix<TA>& A() { return A_; }
  const GuardedMatrix<TA>& A() const { return A_; }
  std::vector<TX>& x_values() { return x_values_; }
  const std::vector<TX>& x_values() const { return x_values_; }
  Op op() const { return op_; }
  std::size_t misalign() const { return misalign_; }
  std::size_t vector_misalign() const { return vector_misalign_; }
  index_t m() const { return A_.rows(); }
  index_t n() const { return A_.cols(); }
  index_t x_size() const { return x_length(op_, m(), n()); }
  index_t y_size() const { return y_length(op_, m(), n()); }
  const std::vector<long double>& product() const { return product_; }
  const std::vector<double>& magnitude() const { return magnitude_; }

 private:
  Op op_;
  std::size_t misalign_;
  std::size_t vector_misalign_;
  GuardedMatrix<TA> A_;
  std::vector<TX> x_values_;
  std::vector<long double> product_;
  std::vector<double> magnitude_;
};

// y before a call: poisoned with NaN when beta == 0 (it must not be read), else
// uniform random. Its type is beta's unless given: initial_y<half>(random, m, 0.f).
template <typename TY = void, typename S>
auto initial_y(Random& random, index_t length, S beta) {
  using Y = std::conditional_t<std::is_void_v<TY>, S, TY>;
  std::vector<Y> y(static_cast<std::size_t>(length));
  for (Y& value : y) value = beta == S(0) ? quiet_nan<Y>() : random.uniform_nonzero<Y>();
  return y;
}

template <typename TA, typename TX, typename TY>
std::string precision_name() {
  if constexpr (std::is_same_v<TA, TX> && std::is_same_v<TX, TY>) {
    return type_name<TA>();
  } else {
    return std::string("A ") + type_name<TA>() + ", x " + type_name<TX>() + ", y " +
           type_name<TY>();
  }
}

template <typename TA, typename TX, typename TY>
std::string describe_call(const GemvOperands<TA, TX>& operands, Scalar<TA> alpha, Scalar<TA> beta,
                          index_t incx, index_t incy) {
  std::ostringstream text;
  text << std::setprecision(std::numeric_limits<Scalar<TA>>::max_digits10) << "gemv<"
       << precision_name<TA, TX, TY>() << "> " << fastmv::to_string(operands.A().layout())
       << " op=" << fastmv::to_string(operands.op()) << " m=" << operands.m()
       << " n=" << operands.n() << " lda=" << operands.A().ld() << " incx=" << incx
       << " incy=" << incy << " alpha=" << alpha << " beta=" << beta
       << " misalign=" << operands.misalign();
  if (operands.vector_misalign() != operands.misalign()) text << " vector_misalign=" << operands.vector_misalign();
  return text.str();
}

// Calls y = alpha * op(A) * x + beta * y on the backend under test, once per
// execution (SIMD target x thread count), each on a fresh copy of y_initial (the
// logical y before the call) and checks the outcome. With `exact` set, the result
// must equal it exactly and no oracle runs (integer-valued cases). Returns false
// after reporting the first failing execution.
template <typename TA, typename TX, typename TY>
bool check_gemv(const GemvOperands<TA, TX>& operands, Scalar<TA> alpha, Scalar<TA> beta,
                index_t incx, index_t incy, const std::vector<TY>& y_initial,
                const std::vector<int>& threads, const std::vector<double>* exact = nullptr) {
  using S = Scalar<TA>;
  const GuardedMatrix<TA>& A = operands.A();
  const index_t m = operands.m(), n = operands.n();
  const index_t y_size = operands.y_size();
  const std::size_t misalign = operands.vector_misalign();
  const StridedVector<TX> x(operands.x_values(), incx, misalign);
  const std::vector<TA> a_snapshot = A.buffer().snapshot();
  const std::vector<TX> x_snapshot = x.buffer().snapshot();
  // Bitwise comparisons of large operands after every execution would dominate the
  // run time: those are compared once, after all executions. The Cuda backend runs
  // once per call and its copies of A and x exist only during the execution.
  constexpr std::size_t kCompareEachExecution = std::size_t(1) << 16;
  const bool compare_each_execution =
      kOperandsOnDevice || a_snapshot.size() + x_snapshot.size() <= kCompareEachExecution;

  // Reference BLAS returns at once here and leaves y bit-identical.
  const bool quick_return = m == 0 || n == 0 || (alpha == S(0) && beta == S(1));
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
            (beta == S(0) ? 0.0L : static_cast<long double>(beta) * to_double(y_initial[k])));
        // The library rounds y once to TY; the tolerance is relative to that value.
        if constexpr (kIsHalfPrecision<TY>) want[k] = to_double(from_double<TY>(want[k]));
      }
    } else {
      StridedVector<TY> y_oracle(y_initial, incy, misalign);
      fastmv::gemv(fastmv::Context(fastmv::Backend::Reference), A.layout(), operands.op(), m, n,
                   alpha, A.data(), A.ld(), x.data(), incx, beta, y_oracle.data(), incy);
      for (index_t i = 0; i < y_size; ++i) {
        want[static_cast<std::size_t>(i)] = to_double(y_oracle.at(i));
      }
    }
    for (index_t i = 0; i < y_size; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const double y_term =
          beta == S(0) ? 0.0 : std::fabs(double(beta)) * std::fabs(to_double(y_initial[k]));
      const double magnitude = std::fabs(double(alpha)) * operands.magnitude()[k] + y_term;
      tolerance[k] = gemv_tolerance<TY, S>(operands.x_size(), magnitude, want[k]);
    }
  }

  const bool passed = for_each_execution(threads, [&](const fastmv::Context& context) {
    StridedVector<TY> y(y_initial, incy, misalign);
    std::ostringstream problems;
    problems << std::setprecision(std::numeric_limits<S>::max_digits10);
    try {
      // The operands in the backend's memory (device copies for Cuda).
      BackendCopy<TA> A_on_backend(context, A.buffer());
      BackendCopy<TX> x_on_backend(context, x.buffer());
      BackendCopy<TY> y_on_backend(context, y.buffer());
      fastmv::gemv(context, A.layout(), operands.op(), m, n, alpha, A_on_backend.pointer(A.data()),
                   A.ld(), x_on_backend.pointer(x.data()), incx, beta,
                   y_on_backend.pointer(y.data()), incy);
      y_on_backend.copy_to(y.buffer());
      if (compare_each_execution) {
        if (!A_on_backend.equals(a_snapshot)) {
          problems << "\n  A, its padding or its guards changed";
        }
        if (!x_on_backend.equals(x_snapshot)) problems << "\n  x or its guards changed";
      }
    } catch (const std::exception& error) {
      problems << "\n  unexpected exception: " << error.what();
    }
    if (!y.gaps_and_guards_intact()) problems << "\n  a guard or gap element of y was written";
    int bad = 0;
    for (index_t i = 0; i < y_size; ++i) {
      const std::size_t k = static_cast<std::size_t>(i);
      const TY got = y.at(i);
      if (quick_return && exact == nullptr) {
        if (same_bits(got, y_initial[k])) continue;
        if (++bad <= 5) {
          problems << "\n  y[" << i << "] = " << to_double(got)
                   << " but a quick return must leave it " << to_double(y_initial[k]);
        }
        continue;
      }
      const double error = std::fabs(to_double(got) - want[k]);
      if (error <= tolerance[k]) continue;  // false for NaN
      if (++bad <= 5) {
        problems << "\n  y[" << i << "] = " << to_double(got) << ", want " << want[k]
                 << ", |error| " << error << " > tolerance " << tolerance[k];
      }
    }
    if (bad > 5) problems << "\n  ... " << bad << " of " << y_size << " elements wrong";
    const std::string report = problems.str();
    if (report.empty()) return true;
    ADD_FAILURE() << describe_call<TA, TX, TY>(operands, alpha, beta, incx, incy) << report;
    return false;
  });
  if (passed && !(A.buffer().equals(a_snapshot) && x.buffer().equals(x_snapshot))) {
    ADD_FAILURE() << describe_call<TA, TX, TY>(operands, alpha, beta, incx, incy)
                  << "\n  A or x (or their padding or guards) changed";
    return false;
  }
  return passed;
}

}  // namespace fastmv_test
