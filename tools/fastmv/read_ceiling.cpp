#include "read_ceiling.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include <omp.h>

#include "operand_pool.hpp"

namespace fastmv_tool {
namespace {

constexpr std::size_t kLanes = 16;  // one 64-byte cache line of floats
using Line = float __attribute__((vector_size(kLanes * sizeof(float))));

// Sums lines [begin, end) as 8 interleaved sequential streams, each into its own
// accumulator. One stream per core is limited by how far the hardware prefetcher runs
// ahead (measured on the 2-core machine: 12 GB/s with one stream per thread, 21 GB/s
// with 4 to 8, which is also how many rows a GEMV kernel streams at once); separate
// accumulators keep the add latency out of the way. Compiled for AVX-512, AVX2 and
// the baseline, chosen at run time like the kernels it is compared with.
__attribute__((target_clones("avx512f", "avx2", "default"))) float sum_streams(
    const float* data, std::size_t begin, std::size_t end) {
  constexpr std::size_t kStreams = 8;
  const std::size_t per_stream = (end - begin) / kStreams;
  Line sums[kStreams] = {};
  for (std::size_t i = 0; i < per_stream; ++i) {
    for (std::size_t s = 0; s < kStreams; ++s) {
      Line values;
      std::memcpy(&values, data + (begin + s * per_stream + i) * kLanes, sizeof values);
      sums[s] += values;
    }
  }
  Line sum = {};
  for (std::size_t s = 0; s < kStreams; ++s) sum += sums[s];
  float total = 0;
  for (std::size_t j = 0; j < kLanes; ++j) total += sum[j];
  return total;
}

float sum_lines(const float* data, std::size_t lines, int threads) {
  float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    // Same static split as the first touch below, so each thread reads its own pages.
    const std::size_t id = omp_get_thread_num(), team = omp_get_num_threads();
    total += sum_streams(data, lines * id / team, lines * (id + 1) / team);
  }
  return total;
}

}  // namespace

ReadCeiling measure_read_ceiling(std::size_t bytes, int threads, int runs) {
  ReadCeiling ceiling;
  const std::size_t lines = bytes / (kLanes * sizeof(float));
  ceiling.bytes = lines * kLanes * sizeof(float);
  ceiling.threads = threads;
  ceiling.runs = runs;
  if (lines == 0 || runs <= 0) return ceiling;

  HostBuffer<float> buffer(lines * kLanes);
  float* data = buffer.data();
  // First touch by the thread that reads each part later.
#pragma omp parallel num_threads(threads)
  {
    const std::size_t id = omp_get_thread_num(), team = omp_get_num_threads();
    for (std::size_t i = lines * id / team * kLanes; i < lines * (id + 1) / team * kLanes; ++i) {
      data[i] = 1.0f;
    }
  }

  volatile float sink = sum_lines(data, lines, threads);  // warm-up: page tables, thread pool
  std::vector<double> gbps;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    sink = sink + sum_lines(data, lines, threads);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    gbps.push_back(static_cast<double>(ceiling.bytes) / seconds * 1e-9);
  }
  std::sort(gbps.begin(), gbps.end());
  ceiling.median_gbps = gbps[gbps.size() / 2];
  ceiling.max_gbps = gbps.back();
  return ceiling;
}

}  // namespace fastmv_tool
