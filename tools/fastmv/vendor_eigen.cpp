#include "vendor_eigen.hpp"

#include <string>

#ifdef FASTMV_BENCH_HAVE_EIGEN
#include <Eigen/Core>
#include <stdexcept>
#endif

namespace fastmv_tool {
namespace {

#ifdef FASTMV_BENCH_HAVE_EIGEN

#ifndef FASTMV_BENCH_EIGEN_FLAGS
#define FASTMV_BENCH_EIGEN_FLAGS "default target flags"
#endif

template <typename T, int StorageOrder>
using MatrixMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, StorageOrder>,
                             Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using VectorMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned,
                             Eigen::InnerStride<>>;
template <typename T>
using ConstVectorMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, 1>, Eigen::Unaligned,
                                  Eigen::InnerStride<>>;

// y = alpha * op_a * x + beta * y; with beta == 0, y is written without being read (BLAS).
template <typename T, typename OpMatrix>
void multiply(const OpMatrix& op_a, const GemvCall<T>& c) {
  if (c.incx < 0 || c.incy < 0) {
    throw std::runtime_error("eigen: negative increments are not mapped");
  }
  const ConstVectorMap<T> x(c.x, op_a.cols(), Eigen::InnerStride<>(c.incx));
  VectorMap<T> y(c.y, op_a.rows(), Eigen::InnerStride<>(c.incy));
  if (c.beta == T(0)) {
    y.noalias() = c.alpha * op_a * x;
  } else {
    y *= c.beta;
    y.noalias() += c.alpha * op_a * x;
  }
}

template <typename T, int StorageOrder>
void gemv_stored(const GemvCall<T>& c) {
  const MatrixMap<T, StorageOrder> a(c.A, c.m, c.n, Eigen::OuterStride<>(c.lda));
  if (c.op == fastmv::Op::NoTrans) {
    multiply(a, c);
  } else {
    multiply(a.transpose(), c);
  }
}

class EigenGemv final : public GemvImplementation {
 public:
  std::string name() const override { return "eigen"; }
  bool available() const override { return true; }
  std::string description() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
           std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) +
           " (" + Eigen::SimdInstructionSetsInUse() + ", " FASTMV_BENCH_EIGEN_FLAGS ")";
  }
  // Eigen threads only matrix-matrix products; its GEMV is single-threaded whatever this says.
  void set_threads(int threads) override { Eigen::setNbThreads(threads); }

  void gemv(const GemvCall<float>& c) override { run(c); }
  void gemv(const GemvCall<double>& c) override { run(c); }

 private:
  template <typename T>
  static void run(const GemvCall<T>& c) {
    if (c.layout == fastmv::Layout::RowMajor) {
      gemv_stored<T, Eigen::RowMajor>(c);
    } else {
      gemv_stored<T, Eigen::ColMajor>(c);
    }
  }
};

#else

class EigenGemv final : public GemvImplementation {
 public:
  std::string name() const override { return "eigen"; }
  bool available() const override { return false; }
  std::string description() const override { return "not found when fastmv was built"; }
  void set_threads(int) override {}
  void gemv(const GemvCall<float>&) override {}
  void gemv(const GemvCall<double>&) override {}
};

#endif

}  // namespace

std::unique_ptr<GemvImplementation> make_eigen() { return std::make_unique<EigenGemv>(); }

}  // namespace fastmv_tool
