// CUDA helpers of the tool's GPU code (bench_gemv_cuda.cu, jacobi_gpu.cu): errors as
// std::runtime_error with CUDA's and cuBLAS's messages, a cuBLAS handle, events, the
// driver's version.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace fastmv_tool {

inline void check_cuda(cudaError_t status, const std::string& what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error
  throw std::runtime_error(what + " failed: " + cudaGetErrorName(status) + ": " +
                           cudaGetErrorString(status));
}

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return;
  throw std::runtime_error(std::string(what) + " failed: " + cublasGetStatusName(status) + ": " +
                           cublasGetStatusString(status));
}

// A cuBLAS handle bound to `stream`, destroyed with the object.
class CublasHandle {
 public:
  explicit CublasHandle(cudaStream_t stream) {
    check_cublas(cublasCreate(&handle_), "cublasCreate");
    const cublasStatus_t status = cublasSetStream(handle_, stream);
    if (status != CUBLAS_STATUS_SUCCESS) cublasDestroy(handle_);
    check_cublas(status, "cublasSetStream");
  }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const noexcept { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

// CUDA events created on first use, destroyed with the object.
class Events {
 public:
  Events() = default;
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
  ~Events() {
    for (cudaEvent_t event : events_) cudaEventDestroy(event);
  }
  cudaEvent_t operator[](std::size_t i) {
    while (events_.size() <= i) {
      cudaEvent_t event = nullptr;
      check_cuda(cudaEventCreate(&event), "cudaEventCreate");
      events_.push_back(event);
    }
    return events_[i];
  }

 private:
  std::vector<cudaEvent_t> events_;
};

inline double elapsed_s(cudaEvent_t start, cudaEvent_t stop) {
  float milliseconds = 0;
  check_cuda(cudaEventElapsedTime(&milliseconds, start, stop), "cudaEventElapsedTime");
  return 1e-3 * static_cast<double>(milliseconds);
}

// The NVIDIA kernel module's version from /proc ("580.65.06"), or "unknown".
inline std::string kernel_module_version() {
  std::ifstream file("/proc/driver/nvidia/version");
  std::string line;
  std::getline(file, line);
  const auto at = line.find("Kernel Module");
  if (at == std::string::npos) return "unknown";
  std::istringstream words(line.substr(at));
  for (std::string word; words >> word;) {
    if (!word.empty() && word[0] >= '0' && word[0] <= '9') return word;
  }
  return "unknown";
}

}  // namespace fastmv_tool
