// CUDA runtime queries. The CUDA GEMV kernels of the next milestone live beside this
// file; for now the CUDA build contributes device detection only.
#include <cuda_runtime.h>

#include "fastmv/info.hpp"

namespace fastmv {

bool cuda_built() noexcept { return true; }

int cuda_device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" / "no driver" error
    return 0;
  }
  return count;
}

}  // namespace fastmv
