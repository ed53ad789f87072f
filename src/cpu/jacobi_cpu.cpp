// The Cpu backend's Jacobi iteration: t = A x through the Cpu GEMV (SIMD and threads;
// it is nearly all of the cost), the O(n) update in jacobi_host.hpp.
#include <memory>

#include "kernels/gemv_kernels.hpp"
#include "kernels/jacobi_host.hpp"

namespace fastmv::kernels::cpu {
namespace {

template <typename T>
class CpuJacobi final : public HostJacobi<T, T> {
 public:
  CpuJacobi(const JacobiProblem<T>& system, int threads) : HostJacobi<T, T>(system, threads) {}

 private:
  void multiply(const T* x, T* t) override {
    const JacobiProblem<T>& s = this->system();
    // Row-major A x is one dot product per row, column-major one axpy per column.
    GemvProblem<T> product{};
    product.form = s.layout == Layout::RowMajor ? GemvForm::Dot : GemvForm::Axpy;
    product.count = s.n;
    product.length = s.n;
    product.alpha = T(1);
    product.A = s.A;
    product.lda = s.lda;
    product.x = x;
    product.incx = 1;
    product.beta = T(0);
    product.y = t;
    product.incy = 1;
    gemv(product, this->threads());
  }
};

}  // namespace

template <typename T>
std::unique_ptr<JacobiEngine<T>> make_jacobi_engine(const JacobiProblem<T>& system, int threads) {
  return std::make_unique<CpuJacobi<T>>(system, threads);
}

template std::unique_ptr<JacobiEngine<float>> make_jacobi_engine(const JacobiProblem<float>&, int);
template std::unique_ptr<JacobiEngine<double>> make_jacobi_engine(const JacobiProblem<double>&, int);

}  // namespace fastmv::kernels::cpu
