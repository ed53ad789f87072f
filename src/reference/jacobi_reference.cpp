// The reference Jacobi iteration: A x summed in double by a plain loop, one thread.
// The oracle of the other backends, slow on purpose.
#include <memory>

#include "kernels/jacobi_host.hpp"

namespace fastmv::kernels::reference {
namespace {

template <typename T>
class ReferenceJacobi final : public HostJacobi<T, double> {
 public:
  explicit ReferenceJacobi(const JacobiProblem<T>& system) : HostJacobi<T, double>(system, 1) {}

 private:
  void multiply(const T* x, double* t) override {
    const JacobiProblem<T>& s = this->system();
    for (index_t i = 0; i < s.n; ++i) {
      double sum = 0;
      for (index_t j = 0; j < s.n; ++j) {
        const index_t at = s.layout == Layout::RowMajor ? i * s.lda + j : j * s.lda + i;
        sum += static_cast<double>(s.A[at]) * static_cast<double>(x[j]);
      }
      t[i] = sum;
    }
  }
};

}  // namespace

template <typename T>
std::unique_ptr<JacobiEngine<T>> make_jacobi_engine(const JacobiProblem<T>& system) {
  return std::make_unique<ReferenceJacobi<T>>(system);
}

template std::unique_ptr<JacobiEngine<float>> make_jacobi_engine(const JacobiProblem<float>&);
template std::unique_ptr<JacobiEngine<double>> make_jacobi_engine(const JacobiProblem<double>&);

}  // namespace fastmv::kernels::reference
