// Tuning of the CPU GEMV, in one place. Values measured on the 2-core AVX-512
// development machine (docs/PERFORMANCE.md, "Tuning log").
#pragma once

#include <cstddef>

namespace fastmv::kernels::cpu {

struct GemvCpuPolicy {
  // Dot form: stored vectors reduced per pass, one accumulator each: eight FMA chains
  // hide the FMA latency, eight streams keep the prefetchers busy, and x is re-read
  // from cache once per eight rows.
  static constexpr std::size_t kDotRowsPerPass = 8;
  // Axpy form: columns of y accumulated per pass over the stored vectors; 64 KiB
  // keeps the accumulator in L2 (2 MiB) next to the streamed rows. 16 and 32 KiB (L1)
  // measured no different within the run-to-run noise.
  static constexpr std::size_t kAxpyChunkBytes = 64 * 1024;
  // Axpy form: stored vectors added per pass over the accumulator; every pass loads
  // and stores it once, so 8 rows move half the accumulator traffic of 4.
  static constexpr std::size_t kAxpyRowsPerPass = 8;
  // A second thread is used only for at least this much of A per thread: waking one
  // costs a few microseconds, about what one core needs to stream 64 KiB from L2.
  // Measured: 181^2 floats (128 KiB) gains nothing from 2 threads, 256^2 gains 1.4-1.8x.
  static constexpr std::size_t kMinBytesPerThread = 64 * 1024;
  // Chunks per thread: more than one, so a thread that starts late (the machine is
  // busy) still finds work and the others do not wait for it.
  static constexpr std::size_t kChunksPerThread = 4;
  // Axpy form: fewest stored vectors in a chunk when the threads split the stored
  // vectors (each chunk but the first adds a partial sum, 2/64 = 3 % of the traffic
  // of A at most); with fewer, the threads split the columns (short-wide problems).
  // Measured: 256^2 double col N split into 8 column strips of 32 reached 16 GB/s,
  // 256-byte pieces of 256 rows being a poor stream.
  static constexpr std::size_t kAxpyRowsPerPartial = 64;
  // Software prefetch distance along each stored vector: 1 KiB (16 lines) ahead keeps
  // eight streams per core in flight across page boundaries. Measured at 4096^2 and
  // 16384^2: every layout x op >= 1.11x OpenBLAS with it, 1.06-1.09x at some without.
  static constexpr std::size_t kPrefetchBytes = 1024;
  // From this size of A on, prefetch into L2 instead of L1 (the matrix streams from
  // memory): double 16384^2 1.11-1.14x -> 1.17-1.19x OpenBLAS (3 rounds, two runs in
  // both orders), while 16^2..64^2 lost 15-20 % with it.
  static constexpr std::size_t kStreamingBytes = 4 * 1024 * 1024;
};

}  // namespace fastmv::kernels::cpu
