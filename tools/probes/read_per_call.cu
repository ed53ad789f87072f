// What fraction of the device's read bandwidth a kernel that only reads its bytes reaches
// when it is launched once per call, back to back, at 8 MiB .. 1 GiB a call: the bound on
// issue 3's criterion 1 (>= 92 % of the read ceiling from 64 MiB) for any GEMV kernel a
// library launches once per call. Two launches: ordinary, and early (programmatic
// dependent launch, `griddepcontrol.wait` before the first load, as fastmv's kernels).
//
//   fastmv_probe_read_per_call        (prints one table; docs/PERFORMANCE.md has the H200's)
//
// The ceiling is the benchmark's, with its kernel (tools/fastmv/read_stream.cuh): a
// grid-stride sum of 16-byte loads over 2 GiB, 8 blocks of 256 threads an SM, median of 15
// passes. Each call reads S bytes at the next offset of the 2 GiB pool (so A comes from
// DRAM); a sample is a batch of calls lasting about 400 us between CUDA events; the median
// of 25 samples per size and launch.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "read_stream.cuh"

namespace {

using fastmv_tool::kReadThreads;
using fastmv_tool::read_stream;

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "fastmv_probe_read_per_call: %s: %s\n", what, cudaGetErrorString(status));
    std::exit(1);
  }
}

}  // namespace

int main() {
  int device_count = 0;
  if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "fastmv_probe_read_per_call: no CUDA device\n");
    return 1;
  }
  const std::size_t pool_bytes = std::size_t(2) << 30;
  uint4* pool = nullptr;
  unsigned* sink = nullptr;
  check(cudaMalloc(&pool, pool_bytes), "cudaMalloc (2 GiB pool)");
  check(cudaMalloc(&sink, sizeof(unsigned)), "cudaMalloc");
  check(cudaMemset(pool, 1, pool_bytes), "cudaMemset");
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  int multiprocessors = 0;
  int per_multiprocessor = 0;
  check(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, read_stream<true>, kReadThreads, 0),
        "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const int blocks = multiprocessors * per_multiprocessor;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  const auto launch = [&](bool early, const uint4* words, std::size_t count) {
    check(fastmv_tool::launch_read_stream(early, blocks, stream, words, count, sink),
          "read_stream launch");
  };
  // Median per call of `samples` batches of `calls` calls, each call `bytes` at the next offset.
  const auto median_per_call_s = [&](bool early, std::size_t bytes, int calls, int samples) {
    const std::size_t words = bytes / sizeof(uint4);
    const std::size_t offsets = pool_bytes / bytes;
    std::vector<float> per_call;
    for (int sample = 0; sample <= samples; ++sample) {  // sample 0 warms up
      check(cudaEventRecord(start, stream), "cudaEventRecord");
      for (int call = 0; call < calls; ++call) {
        launch(early, pool + ((std::size_t(sample) * calls + call) % offsets) * words, words);
      }
      check(cudaEventRecord(stop, stream), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (sample > 0) per_call.push_back(ms * 1e-3f / calls);
    }
    std::sort(per_call.begin(), per_call.end());
    return static_cast<double>(per_call[per_call.size() / 2]);
  };

  const double ceiling = pool_bytes / median_per_call_s(false, pool_bytes, 1, 15);
  std::printf("read ceiling %.0f GB/s (%d blocks, %d an SM)\n", ceiling / 1e9, blocks, per_multiprocessor);
  std::printf("%10s %12s %12s %10s %10s\n", "MiB", "plain us", "early us", "plain %", "early %");
  for (const std::size_t mebibytes : {8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 1024}) {
    const std::size_t bytes = mebibytes << 20;
    const int calls = std::max(8, static_cast<int>(400e-6 / (bytes / ceiling)));
    const double plain = median_per_call_s(false, bytes, calls, 25);
    const double early = median_per_call_s(true, bytes, calls, 25);
    std::printf("%10zu %12.2f %12.2f %9.1f%% %9.1f%%\n", mebibytes, plain * 1e6, early * 1e6,
                100 * bytes / plain / ceiling, 100 * bytes / early / ceiling);
  }
  return 0;
}
