// The read ceiling's kernel, shared by `fastmv bench gemv` on the GPU (bench_gemv_cuda.cu,
// the ceiling each run measures) and the probes (tools/probes/read_per_call.cu, a read of
// S bytes launched once per call), so that both time the same loads.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace fastmv_tool {

constexpr int kReadThreads = 256;

// Sums `count` 16-byte words, grid-stride, four independent loads in flight per thread
// (2048 threads x 64 bytes per SM is several times what the memory latency needs).
// The sum is stored only if it equals a value the data cannot give, which keeps every
// load alive without a store per thread. kWait: launched early (programmatic dependent
// launch), the grid lets the next one start and waits for the previous kernel before its
// first load, as fastmv's GEMV kernels do.
template <bool kWait = false>
__global__ void __launch_bounds__(kReadThreads)
    read_stream(const uint4* __restrict__ data, std::size_t count, unsigned* sink) {
  if constexpr (kWait) {
    asm volatile("griddepcontrol.launch_dependents;" :::);
    asm volatile("griddepcontrol.wait;" ::: "memory");
  }
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned sum = 0;
  for (; i + 3 * stride < count; i += 4 * stride) {
    const uint4 a = data[i];
    const uint4 b = data[i + stride];
    const uint4 c = data[i + 2 * stride];
    const uint4 d = data[i + 3 * stride];
    sum += (a.x ^ b.y) + (a.y ^ b.z) + (a.z ^ b.w) + (a.w ^ b.x) + (c.x ^ d.y) + (c.y ^ d.z) +
           (c.z ^ d.w) + (c.w ^ d.x);
  }
  for (; i < count; i += stride) {
    const uint4 a = data[i];
    sum += a.x + a.y + a.z + a.w;
  }
  if (sum == 0x9e3779b9u) *sink = sum;
}

// Launches read_stream over `count` words on `stream`: early (programmatic dependent
// launch, read_stream<true>) as fastmv's GEMV kernels are, or the ordinary way.
inline cudaError_t launch_read_stream(bool early, int blocks, cudaStream_t stream,
                                      const uint4* data, std::size_t count, unsigned* sink) {
  cudaLaunchConfig_t config{};
  config.gridDim = blocks;
  config.blockDim = kReadThreads;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = early ? 1 : 0;
  return early ? cudaLaunchKernelEx(&config, read_stream<true>, data, count, sink)
               : cudaLaunchKernelEx(&config, read_stream<false>, data, count, sink);
}

}  // namespace fastmv_tool
