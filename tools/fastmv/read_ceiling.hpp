// The machine's read bandwidth, measured in the same run as the kernels it judges.
#pragma once

#include <cstddef>
#include <string>

namespace fastmv_tool {

struct ReadCeiling {
  std::size_t bytes = 0;  // size of the buffer streamed
  int threads = 1;
  int runs = 0;
  double median_gbps = 0;
  double max_gbps = 0;
  std::string method;  // GPU only: the kernel and its launch shape
};

// Streams `bytes` (rounded down to whole cache lines) with `threads` OpenMP threads, `runs` times:
// the most a GEMV, which must read A once, can hope for.
ReadCeiling measure_read_ceiling(std::size_t bytes, int threads, int runs);

}  // namespace fastmv_tool
