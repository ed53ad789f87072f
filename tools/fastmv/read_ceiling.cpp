#include "read_ceiling.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "operand_pool.hpp"

namespace fastmv_tool {
namespace {

// One 64-byte line per step into a 16-float vector accumulator (four independent SSE adds,
// one AVX-512 add), so the loop is bound by memory, not by the latency of a scalar add
// chain; GCC does not vectorise the equivalent scalar loop without -ffast-math.
constexpr std::size_t kLanes = 16;
using Line = float __attribute__((vector_size(kLanes * sizeof(float))));

float sum_lines(const float* data, std::size_t lines, int threads) {
  float total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
  {
    Line sum = {};
#pragma omp for schedule(static)
    for (std::size_t line = 0; line < lines; ++line) {
      Line values;
      std::memcpy(&values, data + line * kLanes, sizeof values);
      sum += values;
    }
    for (std::size_t j = 0; j < kLanes; ++j) total += sum[j];
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
  // First touch by the same static schedule that reads it later.
#pragma omp parallel for schedule(static) num_threads(threads)
  for (std::size_t line = 0; line < lines; ++line) {
    for (std::size_t j = 0; j < kLanes; ++j) data[line * kLanes + j] = 1.0f;
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
