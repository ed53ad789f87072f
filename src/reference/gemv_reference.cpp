// Reference GEMV: the oracle every fast backend is tested against. Short loops,
// double accumulation, no SIMD, no threads.
#include <cstddef>
#include <vector>

#include "kernels/gemv_kernels.hpp"

namespace fastmv::kernels::reference {
namespace {

double wide(float v) { return v; }
double wide(double v) { return v; }
double wide(half v) { return double(float(v)); }
double wide(bfloat16 v) { return double(float(v)); }

// Rounds once to the output type (half types go through float: double rounding is
// within the tolerance the tests derive from the output precision).
template <typename T>
T narrow(double v) {
  return T(static_cast<float>(v));
}
template <>
double narrow<double>(double v) {
  return v;
}

// y = beta * y, with beta == 0 writing zeros without reading y.
template <typename TA, typename TX, typename TY>
void scale_y(const GemvProblem<TA, TX, TY>& p) {
  for (index_t i = 0; i < p.y_size(); ++i) {
    TY& yi = p.y[i * p.incy];
    yi = narrow<TY>(p.beta == 0 ? 0.0 : wide(p.beta) * wide(yi));
  }
}

template <typename TA, typename TX, typename TY>
void gemv_impl(const GemvProblem<TA, TX, TY>& p) {
  if (p.alpha == 0) {
    scale_y(p);
    return;
  }
  // sums[i] = sum over the reduction of A-element * x-element, in double.
  std::vector<double> sums(static_cast<std::size_t>(p.y_size()), 0.0);
  for (index_t r = 0; r < p.count; ++r) {
    const TA* a = p.A + r * p.lda;
    for (index_t c = 0; c < p.length; ++c) {
      if (p.form == GemvForm::Dot) {
        sums[r] += wide(a[c]) * wide(p.x[c * p.incx]);
      } else {
        sums[c] += wide(p.x[r * p.incx]) * wide(a[c]);
      }
    }
  }
  for (index_t i = 0; i < p.y_size(); ++i) {
    TY& yi = p.y[i * p.incy];
    const double scaled = wide(p.alpha) * sums[i];
    yi = narrow<TY>(p.beta == 0 ? scaled : scaled + wide(p.beta) * wide(yi));
  }
}

}  // namespace

void gemv(const GemvProblem<float>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<double>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<half, float>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<half>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<bfloat16, float>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<bfloat16>& problem) { gemv_impl(problem); }

}  // namespace fastmv::kernels::reference
