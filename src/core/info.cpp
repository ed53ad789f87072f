#include "fastmv/info.hpp"

namespace fastmv {

#ifndef FASTMV_HAVE_CUDA
bool cuda_built() noexcept { return false; }
int cuda_device_count() noexcept { return 0; }
#endif

}  // namespace fastmv
