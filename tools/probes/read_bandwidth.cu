// Read-bandwidth probe (not built by CMake): how close to the benchmark's 2 GiB read ceiling
// a pure read kernel gets at 8-256 MiB, timed back to back over a rotating pool as
// `fastmv bench gemv` times GEMV calls; docs/PERFORMANCE.md ("Acceptance of issue 3") has
// its figures. Build and run on a GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90 -o read_bandwidth tools/probes/read_bandwidth.cu && ./read_bandwidth
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                              \
  do {                                                                     \
    cudaError_t e = (x);                                                   \
    if (e != cudaSuccess) {                                                \
      std::printf("ERR %s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); \
      std::exit(1);                                                        \
    }                                                                      \
  } while (0)

__device__ __forceinline__ void allow_later() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }
__device__ __forceinline__ void wait_earlier() { asm volatile("griddepcontrol.wait;" ::: "memory"); }
__device__ __forceinline__ uint4 ld(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void pf(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// 0: grid-stride, 4 in flight
template <bool kPdl>
__global__ void __launch_bounds__(256) k_stride(const uint4* data, size_t count, unsigned* sink) {
  if (kPdl) { allow_later(); wait_earlier(); }
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned sum = 0;
  for (; i + 3 * stride < count; i += 4 * stride) {
    const uint4 a = ld(data + i), b = ld(data + i + stride), c = ld(data + i + 2 * stride), d = ld(data + i + 3 * stride);
    sum += (a.x ^ b.y) + (a.y ^ b.z) + (a.z ^ b.w) + (a.w ^ b.x) + (c.x ^ d.y) + (c.y ^ d.z) + (c.z ^ d.w) + (c.w ^ d.x);
  }
  for (; i < count; i += stride) { const uint4 a = ld(data + i); sum += a.x + a.y + a.z + a.w; }
  if (sum == 0x9e3779b9u) *sink = sum;
}

// Each warp a contiguous, equal range; U words per lane per round; kPf: prefetch first round before wait.
template <int U, bool kPf, bool kPipe>
__global__ void __launch_bounds__(256) k_warp(const uint4* data, size_t count, unsigned* sink) {
  allow_later();
  const size_t warps = size_t(gridDim.x) * 8;
  const size_t w = size_t(blockIdx.x) * 8 + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const size_t begin = w * count / warps, end = (w + 1) * count / warps;
  if (kPf) {
    for (int u = 0; u < U; ++u) { size_t c = begin + lane + 32 * u; if (c < end) pf(data + c); }
  }
  wait_earlier();
  unsigned sum = 0;
  size_t i = begin + lane;
  if (!kPipe) {
    for (; i + 32 * (U - 1) < end; i += 32 * U) {
      uint4 a[U];
#pragma unroll
      for (int u = 0; u < U; ++u) a[u] = ld(data + i + 32 * u);
#pragma unroll
      for (int u = 0; u < U; ++u) sum += (a[u].x ^ a[u].y) + (a[u].z ^ a[u].w);
    }
  } else {
    uint4 a[U];
    bool have = i + 32 * (U - 1) < end;
    if (have) {
#pragma unroll
      for (int u = 0; u < U; ++u) a[u] = ld(data + i + 32 * u);
    }
    while (have) {
      const size_t n = i + 32 * U;
      const bool next = n + 32 * (U - 1) < end;
      uint4 b[U];
      if (next) {
#pragma unroll
        for (int u = 0; u < U; ++u) b[u] = ld(data + n + 32 * u);
      }
#pragma unroll
      for (int u = 0; u < U; ++u) sum += (a[u].x ^ a[u].y) + (a[u].z ^ a[u].w);
#pragma unroll
      for (int u = 0; u < U; ++u) a[u] = b[u];
      i = n;
      have = next;
    }
  }
  for (; i < end; i += 32) { const uint4 a = ld(data + i); sum += a.x + a.y + a.z + a.w; }
  if (sum == 0x9e3779b9u) *sink = sum;
}

template <typename K>
void launch(K k, int blocks, bool pdl, cudaStream_t s, const uint4* d, size_t n, unsigned* sink) {
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(blocks);
  c.blockDim = dim3(256);
  c.stream = s;
  cudaLaunchAttribute a{};
  a.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  a.val.programmaticStreamSerializationAllowed = 1;
  if (pdl) { c.attrs = &a; c.numAttrs = 1; }
  CK(cudaLaunchKernelEx(&c, k, d, n, sink));
}

int main() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const size_t pool = size_t(2) << 30;
  uint4* buf;
  unsigned* sink;
  CK(cudaMalloc(&buf, pool));
  CK(cudaMalloc(&sink, 4));
  CK(cudaMemset(buf, 1, pool));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  struct V { const char* name; void (*fn)(int, cudaStream_t, const uint4*, size_t, unsigned*); };
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k_stride<false>, 256, 0));
  static int g_blocks;
  g_blocks = occ * sms;
  std::printf("sms %d occupancy %d blocks %d\n", sms, occ, g_blocks);
  // Ceiling: k_stride over 2 GiB, one call, median of 15.
  {
    std::vector<double> v;
    for (int r = -2; r < 15; ++r) {
      CK(cudaEventRecord(e0, s));
      launch(k_stride<false>, g_blocks, false, s, buf, pool / 16, sink);
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) v.push_back(pool / (ms * 1e-3) * 1e-9);
    }
    std::sort(v.begin(), v.end());
    std::printf("ceiling %.0f GB/s (max %.0f)\n", v[7], v.back());
  }
  V variants[] = {
      {"stride", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_stride<false>, b, false, s, d, n, k); }},
      {"stride+pdl", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_stride<true>, b, true, s, d, n, k); }},
      {"warp4", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_warp<4, false, false>, b, true, s, d, n, k); }},
      {"warp4pf", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_warp<4, true, false>, b, true, s, d, n, k); }},
      {"warp8pf", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_warp<8, true, false>, b, true, s, d, n, k); }},
      {"warp4pipe", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_warp<4, true, true>, b, true, s, d, n, k); }},
      {"warp4-nopdl", [](int b, cudaStream_t s, const uint4* d, size_t n, unsigned* k) { launch(k_warp<4, false, false>, b, false, s, d, n, k); }},
  };
  // Seconds per call, median of 7 samples of 60 calls over the pool (one untimed first).
  const auto per_call = [&](size_t bytes, auto&& call) {
    const size_t nbuf = std::max<size_t>(2, (size_t(512) << 20) / bytes);
    std::vector<double> t;
    for (int rep = -1; rep < 7; ++rep) {
      const int calls = 60;
      CK(cudaEventRecord(e0, s));
      for (int c = 0; c < calls; ++c) call(buf + (c % nbuf) * (bytes / 16), bytes / 16);
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (rep >= 0) t.push_back(ms * 1e-3 / calls);
    }
    std::sort(t.begin(), t.end());
    return t[3];
  };
  const size_t sizes_mib[] = {8, 16, 32, 48, 64, 72, 96, 128, 256};
  std::printf("%-12s", "MiB");
  for (auto& v : variants) std::printf(" %12s", v.name);
  std::printf("   (GB/s; per-call us in brackets)\n");
  for (size_t mib : sizes_mib) {
    const size_t bytes = mib << 20;
    std::printf("%-12zu", mib);
    for (auto& v : variants) {
      const double t = per_call(bytes, [&](const uint4* d, size_t n) { v.fn(g_blocks, s, d, n, sink); });
      std::printf(" %7.0f(%4.1f)", bytes / t * 1e-9, t * 1e6);
    }
    std::printf("\n");
  }
  // Blocks per SM, one contiguous range a warp.
  for (int per : {1, 2, 3, 4, 6, 8}) {
    std::printf("warp4pf blocks/SM %d:", per);
    for (size_t mib : {32, 64, 128}) {
      const double t = per_call(mib << 20, [&](const uint4* d, size_t n) {
        launch(k_warp<4, true, false>, per * sms, true, s, d, n, sink);
      });
      std::printf("  %zu MiB %.0f", mib, (mib << 20) / t * 1e-9);
    }
    std::printf("\n");
  }
  return 0;
}
