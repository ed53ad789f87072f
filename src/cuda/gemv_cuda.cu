// Placeholder while the kernels are written (replaced in the next commit).
#include <string>
#include "cuda/state.hpp"
#include "kernels/gemv_kernels.hpp"
namespace fastmv::kernels::cuda {
#define FASTMV_STUB(...) \
  void gemv(const GemvProblem<__VA_ARGS__>&, detail::CudaState&) { throw BackendUnavailable("fastmv::gemv: CUDA kernels not written yet"); }
FASTMV_STUB(float)
FASTMV_STUB(double)
FASTMV_STUB(half, float)
FASTMV_STUB(half)
FASTMV_STUB(bfloat16, float)
FASTMV_STUB(bfloat16)
}
