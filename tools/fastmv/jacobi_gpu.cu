// The GPU side of `fastmv solve jacobi`: the seed paper's cuBLAS loop with the update
// on the host, and one fastmv GEMV timed on the same matrix (jacobi_gpu.hpp).
#include "jacobi_gpu.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda_tools.hpp"
#include "fastmv/cuda.hpp"

namespace fastmv_tool {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// y = A x with cuBLAS, which is column-major: a row-major A is the column-major A^T.
template <typename T>
void cublas_gemv(cublasHandle_t handle, fastmv::Layout layout, index_t n, const T* A, index_t lda,
                 const T* x, T* y) {
  const T one = 1, zero = 0;
  const cublasOperation_t op = layout == fastmv::Layout::RowMajor ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int size = static_cast<int>(n);
  if constexpr (std::is_same_v<T, float>) {
    check_cublas(cublasSgemv(handle, op, size, size, &one, A, static_cast<int>(lda), x, 1, &zero, y, 1),
                 "cublasSgemv");
  } else {
    check_cublas(cublasDgemv(handle, op, size, size, &one, A, static_cast<int>(lda), x, 1, &zero, y, 1),
                 "cublasDgemv");
  }
}

}  // namespace

std::string gpu_description(const fastmv::Context& context) {
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, context.cuda_device()), "cudaGetDeviceProperties");
  int runtime = 0;
  check_cuda(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  CublasHandle cublas(static_cast<cudaStream_t>(context.cuda_stream()));
  int cublas_version = 0;
  check_cublas(cublasGetVersion(cublas.get(), &cublas_version), "cublasGetVersion");
  return std::string(properties.name) + ", driver " + kernel_module_version() + ", CUDA runtime " +
         std::to_string(runtime / 1000) + "." + std::to_string(runtime % 1000 / 10) + ", cuBLAS " +
         std::to_string(cublas_version / 10000) + "." + std::to_string(cublas_version % 10000 / 100) +
         "." + std::to_string(cublas_version % 100);
}

template <typename T>
JacobiRun run_cublas_loop(const fastmv::Context& context, const fastmv::DenseMatrix<T>& A,
                          const std::vector<T>& b, const fastmv::JacobiOptions& options,
                          std::vector<T>& x) {
  const index_t n = A.rows;
  const auto stream = static_cast<cudaStream_t>(context.cuda_stream());
  JacobiRun run;
  run.implementation = "cublas-host-loop";
  run.description = std::is_same_v<T, float> ? "cublasSgemv, update on the host (the paper's setup)"
                                             : "cublasDgemv, update on the host (the paper's setup)";
  CublasHandle cublas(stream);
  // Page-locked A, x and y, as in the paper; filling them is not timed.
  fastmv::cuda::PinnedBuffer<T> pinned_A(n * A.ld());
  std::memcpy(pinned_A.data(), A.values.data(), sizeof(T) * static_cast<std::size_t>(n * A.ld()));
  fastmv::cuda::PinnedBuffer<T> pinned_x(n), pinned_y(n);
  std::vector<T> diagonal(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) diagonal[i] = A(i, i);
  // Setup, as for fastmv::jacobi: allocating and freeing the device memory.
  const Clock::time_point allocation = Clock::now();
  auto device_A = std::make_unique<fastmv::cuda::DeviceBuffer<T>>(context, n * A.ld());
  auto device_x = std::make_unique<fastmv::cuda::DeviceBuffer<T>>(context, n);
  auto device_y = std::make_unique<fastmv::cuda::DeviceBuffer<T>>(context, n);
  run.setup_s = seconds_since(allocation);

  const Clock::time_point transfer = Clock::now();
  check_cuda(cudaMemcpyAsync(device_A->data(), pinned_A.data(), sizeof(T) * static_cast<std::size_t>(n * A.ld()),
                             cudaMemcpyHostToDevice, stream),
             "cudaMemcpyAsync of A");
  check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  run.transfer_s = seconds_since(transfer);

  const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n);
  host_update_loop(n, b.data(), options, diagonal, [&](const T* host_x, T* t) {
    std::memcpy(pinned_x.data(), host_x, bytes);
    check_cuda(cudaMemcpyAsync(device_x->data(), pinned_x.data(), bytes, cudaMemcpyHostToDevice, stream),
               "cudaMemcpyAsync of x");
    cublas_gemv(cublas.get(), A.layout, n, device_A->data(), A.ld(), device_x->data(), device_y->data());
    check_cuda(cudaMemcpyAsync(pinned_y.data(), device_y->data(), bytes, cudaMemcpyDeviceToHost, stream),
               "cudaMemcpyAsync of y");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    std::memcpy(t, pinned_y.data(), bytes);
  }, x, run);
  const Clock::time_point freeing = Clock::now();
  device_A.reset();
  device_x.reset();
  device_y.reset();
  run.setup_s += seconds_since(freeing);
  return run;
}

template <typename T>
double time_fastmv_gemv(const fastmv::Context& context, const fastmv::DenseMatrix<T>& A) {
  const index_t n = A.rows;
  const auto stream = static_cast<cudaStream_t>(context.cuda_stream());
  fastmv::cuda::DeviceBuffer<T> device_A(context, n * A.ld()), x(context, n), y(context, n);
  fastmv::cuda::copy(context, device_A.data(), A.values.data(), n * A.ld());
  const std::vector<T> ones(static_cast<std::size_t>(n), T(1));
  fastmv::cuda::copy(context, x.data(), ones.data(), n);
  const auto call = [&] {
    fastmv::gemv(context, A.layout, fastmv::Op::NoTrans, n, n, T(1), device_A.data(), A.ld(),
                 x.data(), 1, T(0), y.data(), 1);
  };
  for (int i = 0; i < 5; ++i) call();
  Events events;
  constexpr int kCalls = 20;
  std::vector<double> samples;
  for (int sample = 0; sample < 7; ++sample) {
    check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord");
    for (int i = 0; i < kCalls; ++i) call();
    check_cuda(cudaEventRecord(events[1], stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(events[1]), "cudaEventSynchronize");
    samples.push_back(elapsed_s(events[0], events[1]) / kCalls);
  }
  std::nth_element(samples.begin(), samples.begin() + 3, samples.end());
  return samples[3];
}

template JacobiRun run_cublas_loop(const fastmv::Context&, const fastmv::DenseMatrix<float>&,
                                   const std::vector<float>&, const fastmv::JacobiOptions&,
                                   std::vector<float>&);
template JacobiRun run_cublas_loop(const fastmv::Context&, const fastmv::DenseMatrix<double>&,
                                   const std::vector<double>&, const fastmv::JacobiOptions&,
                                   std::vector<double>&);
template double time_fastmv_gemv(const fastmv::Context&, const fastmv::DenseMatrix<float>&);
template double time_fastmv_gemv(const fastmv::Context&, const fastmv::DenseMatrix<double>&);

}  // namespace fastmv_tool
