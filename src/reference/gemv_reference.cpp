// Reference GEMV: the oracle every fast backend is tested against. Short loops,
// double accumulation, no SIMD, no threads.
#include <cstddef>
#include <vector>

#include "kernels/gemv_kernels.hpp"

namespace fastmv::kernels::reference {
namespace {

// y = beta * y, with beta == 0 writing zeros without reading y.
template <typename T>
void scale_y(const GemvProblem<T>& p) {
  for (index_t i = 0; i < p.y_size(); ++i) {
    T& yi = p.y[i * p.incy];
    yi = p.beta == T(0) ? T(0) : static_cast<T>(double(p.beta) * double(yi));
  }
}

template <typename T>
void gemv_impl(const GemvProblem<T>& p) {
  if (p.alpha == T(0)) {
    scale_y(p);
    return;
  }
  // sums[i] = sum over the reduction of A-element * x-element, in double.
  std::vector<double> sums(static_cast<std::size_t>(p.y_size()), 0.0);
  for (index_t r = 0; r < p.count; ++r) {
    const T* a = p.A + r * p.lda;
    for (index_t c = 0; c < p.length; ++c) {
      if (p.form == GemvForm::Dot) {
        sums[r] += double(a[c]) * double(p.x[c * p.incx]);
      } else {
        sums[c] += double(p.x[r * p.incx]) * double(a[c]);
      }
    }
  }
  for (index_t i = 0; i < p.y_size(); ++i) {
    T& yi = p.y[i * p.incy];
    const double scaled = double(p.alpha) * sums[i];
    yi = static_cast<T>(p.beta == T(0) ? scaled : scaled + double(p.beta) * double(yi));
  }
}

}  // namespace

void gemv(const GemvProblem<float>& problem) { gemv_impl(problem); }
void gemv(const GemvProblem<double>& problem) { gemv_impl(problem); }

}  // namespace fastmv::kernels::reference
