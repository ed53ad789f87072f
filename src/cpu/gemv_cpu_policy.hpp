// Tuning of the CPU GEMV, in one place. Values measured on the 2-core AVX-512
// development machine (docs/PERFORMANCE.md, "CPU tuning").
#pragma once

#include <cstddef>

namespace fastmv::kernels::cpu {

struct GemvCpuPolicy {
  // Axpy form: columns of y accumulated per pass over the stored vectors; 64 KiB
  // keeps the accumulator in L2 (2 MiB) next to the streamed rows.
  static constexpr std::size_t kAxpyChunkBytes = 64 * 1024;
  // Axpy form: stored vectors added per pass over the accumulator; every pass loads
  // and stores it once, so 8 rows move half the accumulator traffic of 4.
  static constexpr std::size_t kAxpyRowsPerPass = 8;
  // A thread is woken only for at least this much of A: an OpenMP fork/join costs
  // a few microseconds, about what one core needs to stream 64 KiB from L2.
  static constexpr std::size_t kMinBytesPerThread = 64 * 1024;
  // Axpy form: fewer stored vectors than this per thread and the threads split
  // the columns instead (short-wide problems).
  static constexpr std::size_t kAxpyMinRowsPerThread = 16;
};

}  // namespace fastmv::kernels::cpu
