// What the probes that time one matrix a call share: a 1 GiB pool of device memory whose
// matrices the calls take in turn (so that each call reads from DRAM, not L2), the median
// time per call, and the benchmark's flat read (read_stream) of the same bytes beside
// them.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "read_stream.cuh"

namespace fastmv_probe {

// Stops the probe `name` with CUDA's message where `status` is an error.
inline void check(const char* name, cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    std::fprintf(stderr, "%s: %s: %s\n", name, what, cudaGetErrorString(status));
    std::exit(1);
  }
}

class Pool {
 public:
  static constexpr std::size_t kBytes = std::size_t(1) << 30;

  // Exits with a message where there is no CUDA device.
  explicit Pool(const char* name) : name_(name) {
    int device_count = 0;
    if (cudaGetDeviceCount(&device_count) != cudaSuccess || device_count == 0) {
      std::fprintf(stderr, "%s: no CUDA device\n", name);
      std::exit(1);
    }
    check(cudaMalloc(&data_, kBytes + 4096), "cudaMalloc (1 GiB pool)");
    check(cudaMalloc(&sink_, sizeof(unsigned)), "cudaMalloc");
    check(cudaMemset(data_, 1, kBytes + 4096), "cudaMemset");
    check(cudaStreamCreate(&stream_), "cudaStreamCreate");
    check(cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, 0), "cudaDeviceGetAttribute");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    int per_sm = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fastmv_tool::read_stream<false>,
                                                        fastmv_tool::kReadThreads, 0),
          "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    flat_blocks_ = per_sm * multiprocessors_;
  }
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  void check(cudaError_t status, const char* what) const { fastmv_probe::check(name_, status, what); }
  cudaStream_t stream() const { return stream_; }
  unsigned* sink() const { return sink_; }
  int multiprocessors() const { return multiprocessors_; }

  // Median per call of 15 samples of about 400 us (after one to warm up and size them),
  // call c of a sample given the matrix at the c-th `stride` of the pool: launch(at).
  template <typename Launch>
  double median_per_call_s(Launch&& launch, std::size_t stride) {
    stride = (stride + 4095) / 4096 * 4096;
    const std::size_t places = kBytes / stride;
    std::vector<float> per_call;
    int calls = 8;
    for (int sample = 0; sample <= 15; ++sample) {
      check(cudaEventRecord(start_, stream_), "cudaEventRecord");
      for (int call = 0; call < calls; ++call) launch(data_ + ((std::size_t(sample) * calls + call) % places) * stride);
      check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
      check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
      if (sample == 0) {
        calls = std::max(8, static_cast<int>(0.4 / (ms / calls)));
      } else {
        per_call.push_back(ms * 1e-3f / calls);
      }
    }
    std::sort(per_call.begin(), per_call.end());
    return static_cast<double>(per_call[per_call.size() / 2]);
  }

  // The flat read of `bytes` (a multiple of 16), per call.
  double flat_s(std::size_t bytes) {
    return median_per_call_s(
        [&](unsigned char* at) {
          check(fastmv_tool::launch_read_stream(false, flat_blocks_, stream_, reinterpret_cast<const uint4*>(at),
                                                bytes / sizeof(uint4), sink_),
                "read_stream launch");
        },
        bytes);
  }

 private:
  const char* name_;
  unsigned char* data_ = nullptr;
  unsigned* sink_ = nullptr;
  cudaStream_t stream_{};
  cudaEvent_t start_{}, stop_{};
  int multiprocessors_ = 0;
  int flat_blocks_ = 0;
};

}  // namespace fastmv_probe
