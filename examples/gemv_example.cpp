// y = A x for a 3 x 4 row-major matrix, on the best backend this machine has: the GPU
// when there is one (operands copied to device memory), else the CPU.
#include <fastmv/cuda.hpp>
#include <fastmv/fastmv.hpp>

#include <cstdio>
#include <vector>

int main() {
  const fastmv::index_t m = 3, n = 4;
  const std::vector<float> A = {1, 2, 3, 4,   // row 0
                                5, 6, 7, 8,   // row 1
                                9, 10, 11, 12};
  const std::vector<float> x = {1, 1, 1, 1};
  std::vector<float> y(m);

  try {
    fastmv::Context context;  // Backend::Auto: the GPU when there is one, else the CPU
    if (context.backend() == fastmv::Backend::Cuda) {
      // The CUDA backend takes device pointers, as cuBLAS does.
      fastmv::cuda::DeviceBuffer<float> dA(context, m * n), dx(context, n), dy(context, m);
      fastmv::cuda::copy(context, dA.data(), A.data(), m * n);
      fastmv::cuda::copy(context, dx.data(), x.data(), n);
      fastmv::gemv(context, fastmv::Layout::RowMajor, fastmv::Op::NoTrans, m, n, 1.0f, dA.data(),
                   n, dx.data(), 1, 0.0f, dy.data(), 1);
      fastmv::cuda::copy(context, y.data(), dy.data(), m);  // waits for the result
    } else {
      // y = 1 * A * x + 0 * y, lda = n, unit increments
      fastmv::gemv(context, fastmv::Layout::RowMajor, fastmv::Op::NoTrans, m, n, 1.0f, A.data(),
                   n, x.data(), 1, 0.0f, y.data(), 1);
    }
    std::printf("backend %s: y = [%g, %g, %g]\n", fastmv::to_string(context.backend()), y[0],
                y[1], y[2]);
  } catch (const fastmv::Error& error) {  // bad arguments name themselves
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  return y[0] == 10 && y[1] == 26 && y[2] == 42 ? 0 : 1;
}
