// The Cuda backend's batched 4 x 4 transform over device arrays: memory-bound (32
// bytes moved per vec4), so every thread moves 16-byte words and keeps several in
// flight, and M travels by value in the kernel's parameters (constant bank, read
// once into registers).
//
//   vec4:   4 vertices a thread, one 16-byte load and store each, when the arrays are
//           16-byte aligned; otherwise one vertex a thread with scalar loads.
//   points: 4 points (48 bytes) a thread as three 16-byte loads and stores when the
//           arrays are 16-byte aligned; otherwise one point a thread.
// Grids cover the array once (no grid-stride loop): at 16M vertices that is 16K blocks,
// which keeps every multiprocessor's queue full to the end.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/state.hpp"
#include "kernels/transform4_kernels.hpp"

namespace fastmv::kernels::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 4;

__device__ __forceinline__ void apply(const Matrix4& M, float x, float y, float z, float w, float r[4]) {
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float* row = M.m + 4 * i;
    r[i] = fmaf(row[3], w, fmaf(row[2], z, fmaf(row[1], y, row[0] * x)));
  }
}

__device__ __forceinline__ float4 apply4(const Matrix4& M, float4 v) {
  float r[4];
  apply(M, v.x, v.y, v.z, v.w, r);
  return make_float4(r[0], r[1], r[2], r[3]);
}

// One point: x', y', z' (divided by w' when `divide`).
__device__ __forceinline__ void apply3(const Matrix4& M, const float* in, float* out, bool divide) {
  float r[4];
  apply(M, in[0], in[1], in[2], 1.0f, r);
  if (divide) {
    out[0] = __fdiv_rn(r[0], r[3]);
    out[1] = __fdiv_rn(r[1], r[3]);
    out[2] = __fdiv_rn(r[2], r[3]);
  } else {
    out[0] = r[0];
    out[1] = r[1];
    out[2] = r[2];
  }
}

__global__ void __launch_bounds__(kThreads) vec4_aligned_kernel(Matrix4 M, const float4* in, float4* out, index_t n) {
  const index_t first = (index_t(blockIdx.x) * kThreads * kPerThread) + threadIdx.x;
  float4 v[kPerThread];
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const index_t i = first + index_t(k) * kThreads;
    if (i < n) v[k] = __ldcs(in + i);  // read once: evict first
  }
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const index_t i = first + index_t(k) * kThreads;
    if (i < n) __stcs(out + i, apply4(M, v[k]));
  }
}

__global__ void __launch_bounds__(kThreads) vertex_kernel(Matrix4 M, const float* in, float* out, index_t n,
                                                          VertexKind kind) {
  const index_t i = index_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= n) return;
  if (kind == VertexKind::Vec4) {
    const float4 v = make_float4(in[4 * i], in[4 * i + 1], in[4 * i + 2], in[4 * i + 3]);
    const float4 r = apply4(M, v);
    out[4 * i] = r.x;
    out[4 * i + 1] = r.y;
    out[4 * i + 2] = r.z;
    out[4 * i + 3] = r.w;
  } else {
    float p[3] = {in[3 * i], in[3 * i + 1], in[3 * i + 2]};
    apply3(M, p, out + 3 * i, kind == VertexKind::PointDivide);
  }
}

// Four points a thread as three float4: thread t owns points [4 t, 4 t + 4) of the
// array, i.e. float4 words [3 t, 3 t + 3). The last thread's tail (n % 4 points) goes
// through vertex_kernel's per-point path inside the same kernel.
__global__ void __launch_bounds__(kThreads) points_aligned_kernel(Matrix4 M, const float* in, float* out, index_t n,
                                                                  bool divide) {
  const index_t t = index_t(blockIdx.x) * kThreads + threadIdx.x;
  const index_t groups = n / 4;
  if (t < groups) {
    const float4* source = reinterpret_cast<const float4*>(in) + 3 * t;
    float4 words[3] = {__ldcs(source), __ldcs(source + 1), __ldcs(source + 2)};
    float* p = reinterpret_cast<float*>(words);
    alignas(16) float results[12];
#pragma unroll
    for (int k = 0; k < 4; ++k) apply3(M, p + 3 * k, results + 3 * k, divide);
    float4* destination = reinterpret_cast<float4*>(out) + 3 * t;
    const float4* r = reinterpret_cast<const float4*>(results);
    __stcs(destination, r[0]);
    __stcs(destination + 1, r[1]);
    __stcs(destination + 2, r[2]);
  } else if (t == groups) {
    for (index_t i = 4 * groups; i < n; ++i) {
      float p[3] = {in[3 * i], in[3 * i + 1], in[3 * i + 2]};
      apply3(M, p, out + 3 * i, divide);
    }
  }
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

unsigned blocks_for(index_t items, index_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

}  // namespace

void transform4(const Transform4Problem& problem, fastmv::detail::CudaState& state, void* queue) {
  fastmv::cuda::DeviceGuard guard(state.device);
  cudaStream_t stream = queue != nullptr ? static_cast<cudaStream_t>(queue) : state.stream;
  const bool aligned = aligned16(problem.in) && aligned16(problem.out);
  const index_t n = problem.n;
  // Grids of more than 2^31 - 1 blocks are not launchable: such arrays go in pieces.
  constexpr index_t kMaxBlocks = (index_t(1) << 31) - 1;
  if (problem.kind == VertexKind::Vec4 && aligned) {
    const index_t per_launch = kMaxBlocks * kThreads * kPerThread;
    for (index_t first = 0; first < n; first += per_launch) {
      const index_t count = std::min(per_launch, n - first);
      vec4_aligned_kernel<<<blocks_for(count, kThreads * kPerThread), kThreads, 0, stream>>>(
          problem.matrix, reinterpret_cast<const float4*>(problem.in) + first,
          reinterpret_cast<float4*>(problem.out) + first, count);
      fastmv::cuda::check_launch("fastmv::transform4: kernel launch");
    }
    return;
  }
  if (problem.kind != VertexKind::Vec4 && aligned) {
    const index_t per_launch = (kMaxBlocks - 1) * kThreads * 4;
    for (index_t first = 0; first < n; first += per_launch) {
      const index_t count = std::min(per_launch, n - first);
      points_aligned_kernel<<<blocks_for(count / 4 + 1, kThreads), kThreads, 0, stream>>>(
          problem.matrix, problem.in + 3 * first, problem.out + 3 * first, count,
          problem.kind == VertexKind::PointDivide);
      fastmv::cuda::check_launch("fastmv::transform_points: kernel launch");
    }
    return;
  }
  const int width = floats_per_vertex(problem.kind);
  const index_t per_launch = kMaxBlocks * kThreads;
  for (index_t first = 0; first < n; first += per_launch) {
    const index_t count = std::min(per_launch, n - first);
    vertex_kernel<<<blocks_for(count, kThreads), kThreads, 0, stream>>>(
        problem.matrix, problem.in + width * first, problem.out + width * first, count, problem.kind);
    fastmv::cuda::check_launch("fastmv::transform4: kernel launch");
  }
}

}  // namespace fastmv::kernels::cuda
