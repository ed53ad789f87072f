// Builds without the CUDA backend: no Cuda context can be created, and the memory
// helpers of fastmv/cuda.hpp say why.
#include <string>

#include "cuda/runtime.hpp"
#include "fastmv/cuda.hpp"
#include "fastmv/error.hpp"
#include "kernels/gemv_kernels.hpp"
#include "kernels/jacobi_kernels.hpp"
#include "kernels/transform4_kernels.hpp"

namespace fastmv {
namespace {

[[noreturn]] void unavailable(const char* function) {
  throw BackendUnavailable(std::string(function) +
                           ": this fastmv was built without the CUDA backend (FASTMV_CUDA=OFF or "
                           "no nvcc at build time)");
}

}  // namespace

namespace cuda {
std::shared_ptr<fastmv::detail::CudaState> make_state(int) { unavailable("fastmv::Context"); }
int device_of(const fastmv::detail::CudaState&) noexcept { return -1; }
void* stream_of(const fastmv::detail::CudaState&) noexcept { return nullptr; }
void synchronize(fastmv::detail::CudaState&) { unavailable("fastmv::Context::synchronize"); }
fastmv::detail::CudaState& state_of(const Context&, const char* function) { unavailable(function); }
void require_device_pointer(fastmv::detail::CudaState&, const char* function, const char*, const void*) {
  unavailable(function);
}
void require_host_pointer(const char* function, const char*, const void*) { unavailable(function); }
Residence residence_of(fastmv::detail::CudaState&, const char* function, const char*, const void*) {
  unavailable(function);
}

void set_gemv_policy(const char*) { unavailable("fastmv::cuda::set_gemv_policy"); }

namespace detail {
std::size_t checked_bytes(const char* function, index_t, std::size_t) { unavailable(function); }
void* allocate_device(const Context&, std::size_t) { unavailable("fastmv::cuda::DeviceBuffer"); }
void free_device(int, void*) noexcept {}
void* allocate_pinned(std::size_t) { unavailable("fastmv::cuda::PinnedBuffer"); }
void free_pinned(void*) noexcept {}
void copy_bytes(const Context&, void*, const void*, std::size_t) {
  unavailable("fastmv::cuda::copy");
}
}  // namespace detail
}  // namespace cuda

namespace kernels::cuda {
#define FASTMV_STUB(...) \
  void gemv(const GemvProblem<__VA_ARGS__>&, fastmv::detail::CudaState&) { \
    unavailable("fastmv::gemv");                                           \
  }
FASTMV_STUB(float)
FASTMV_STUB(double)
FASTMV_STUB(half, float)
FASTMV_STUB(half)
FASTMV_STUB(bfloat16, float)
FASTMV_STUB(bfloat16)
#undef FASTMV_STUB
std::unique_ptr<JacobiEngine<float>> make_jacobi_engine(const JacobiProblem<float>&,
                                                        fastmv::detail::CudaState&, int) {
  unavailable("fastmv::jacobi");
}
std::unique_ptr<JacobiEngine<double>> make_jacobi_engine(const JacobiProblem<double>&,
                                                         fastmv::detail::CudaState&, int) {
  unavailable("fastmv::jacobi");
}
void transform4(const Transform4Problem&, fastmv::detail::CudaState&, void*) { unavailable("fastmv::transform4"); }
void transform4_host(const Transform4Problem&, fastmv::detail::CudaState&, fastmv::cuda::Residence,
                     fastmv::cuda::Residence, int) {
  unavailable("fastmv::transform4");
}
}  // namespace kernels::cuda

}  // namespace fastmv
