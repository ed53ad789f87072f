// The acceptance points of the GPU GEMV (issue 3), judged on a run's results:
//   1. fp32 and bf16 points with >= 64 MiB of matrix: fastmv >= 92 % of the read ceiling;
//   2. fastmv >= 1.0x cuBLAS at every point, geometric mean over the run >= 1.2x;
//   3. no cliffs: square orders n >= 2048, fastmv at n + 1 and n + 8 within 5 % of n;
//   4. problems of at most 1 MiB: fastmv's time per call <= cuBLAS's;
//   5. bf16 LLM-decode shapes with >= 32 MiB of matrix: fastmv >= 2800 GB/s.
// Ratios against cuBLAS compare GB/s, each side counting its own bytes (for bf16 and fp16
// cuBLAS reads x in the half type, fastmv in float); for float and double that is the
// ratio of times.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench_gemv.hpp"

namespace fastmv_tool {

struct AcceptanceItem {
  enum class Status { Pass, Fail, NotApplicable };
  int number = 0;
  std::string requirement;
  Status status = Status::NotApplicable;
  std::size_t points = 0;              // points judged
  std::string summary;                 // the decisive figures
  std::vector<std::string> offenders;  // failing points, worst first, at most 10
};

const char* to_string(AcceptanceItem::Status status);

std::vector<AcceptanceItem> check_gpu_acceptance(const GemvBenchReport& report);

}  // namespace fastmv_tool
