// `fastmv bench gemv` on the CUDA backend: fastmv::gemv and cuBLAS side by side on
// device operands, on one stream, timed with CUDA events; the device's read bandwidth
// measured in the same run. Compiled only when the tool is built with CUDA
// (FASTMV_BENCH_HAVE_CUDA).
#pragma once

#include <stdexcept>

#include "bench_gemv.hpp"

namespace fastmv_tool {

// Fills `report` (GPU, read ceiling, sampling, implementations, points) for a context
// on the Cuda backend. Throws std::runtime_error for CUDA or cuBLAS failures outside a
// point (no memory for the read ceiling, a broken CUDA context) and std::invalid_argument
// for a dtype it does not know.
#ifdef FASTMV_BENCH_HAVE_CUDA
void run_gemv_bench_cuda(const GemvBenchOptions& options, const fastmv::Context& context,
                         GemvBenchReport& report);
#else
inline void run_gemv_bench_cuda(const GemvBenchOptions&, const fastmv::Context&, GemvBenchReport&) {
  throw std::runtime_error(
      "this fastmv program was built without its GPU benchmark (FASTMV_CUDA=OFF)");
}
#endif

}  // namespace fastmv_tool
