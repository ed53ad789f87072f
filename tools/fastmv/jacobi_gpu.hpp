// The GPU side of `fastmv solve jacobi` (jacobi_gpu.cu, built with CUDA only): the
// seed paper's cuBLAS loop, and one fastmv GEMV timed on the same matrix.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "jacobi_baseline.hpp"

namespace fastmv_tool {

#ifdef FASTMV_BENCH_HAVE_CUDA
// "NVIDIA H100 80GB HBM3, driver 580.65.06, CUDA 13.0, cuBLAS 13.1.0".
std::string gpu_description(const fastmv::Context& context);

// The paper's setup: A in pinned host memory (filled before the clock starts), copied
// to the device once; then per iteration cublasSgemv / cublasDgemv, y to the host,
// the update on the host, x back to the device. The residual rule of `options`.
template <typename T>
JacobiRun run_cublas_loop(const fastmv::Context& context, const fastmv::DenseMatrix<T>& A,
                          const std::vector<T>& b, const fastmv::JacobiOptions& options,
                          std::vector<T>& x);

// Seconds of one fastmv::gemv y = A x on the context's device (A copied there first),
// the median of 7 timings of 20 back-to-back calls after warm-up calls.
template <typename T>
double time_fastmv_gemv(const fastmv::Context& context, const fastmv::DenseMatrix<T>& A);
#else
inline std::string gpu_description(const fastmv::Context&) { return "no GPU support in this build"; }
template <typename T>
JacobiRun run_cublas_loop(const fastmv::Context&, const fastmv::DenseMatrix<T>&,
                          const std::vector<T>&, const fastmv::JacobiOptions&, std::vector<T>&) {
  throw std::runtime_error("this fastmv program was built without CUDA: no cuBLAS baseline");
}
template <typename T>
double time_fastmv_gemv(const fastmv::Context&, const fastmv::DenseMatrix<T>&) {
  throw std::runtime_error("this fastmv program was built without CUDA");
}
#endif

}  // namespace fastmv_tool
