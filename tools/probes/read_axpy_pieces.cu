// What a kernel that only reads A reaches in the Axpy form's access pattern (column-major
// NoTrans, row-major Trans): `count` stored vectors of `length` 2-byte elements, `lda`
// elements apart, read in pieces of one tile of outputs a vector, as fastmv's register
// Axpy kernel reads them: a block of 256 threads on one tile, its 8 groups of 32 lanes
// taking every 8th vector of the block's split, 4 vectors in flight a lane. No
// arithmetic, so what it measures is how the pieces meet the memory system: whether the
// odd leading dimensions (2-byte lda not a multiple of 8, each vector a different distance
// past a 16-byte boundary) cost the read itself, or only the kernels that realign them.
//
//   fastmv_probe_read_axpy_pieces     (prints one table)
//
// Modes, per piece of a lane (16-byte words, `kWords` a lane):
//   aligned-down: the words at and after the 16-byte boundary at or below the lane's first
//                 element, one load a word past L1 (the bytes the piece needs, give or take
//                 a word at its ends, as the aligned kernel reads them);
//   two-word:     that word and the next through L1 (the realigned kernel's loads, whose
//                 second word is the next lane's first);
// for tiles of 32 lanes x kWords words: 512 bytes of each vector a warp (the register
// kernel's tile) and 2 KiB (kWords 4: a tile four times as long, fewer pieces a vector).
// The same count x length at lda = length (aligned when length is a multiple of 8), + 1
// (odd) and + 8 (16 bytes past a 32-byte sector), and the benchmark's flat read of the
// same bytes (read_stream) beside them. Grids of 2-3 waves of blocks (the tiles times
// enough splits of the vectors); each call reads the next matrix of a 1 GiB pool; the
// median of 15 samples of about 400 us.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "probe_pool.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kGroups = kThreads / 32;
constexpr int kInFlight = 4;  // vectors a lane

__device__ __forceinline__ uint4 load_past_l1(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// Block (tile, split): the tile's outputs [tile * 256 * kWords, ...) of the vectors
// [split * per_split, ...). kTwoWords: each word and the next through L1.
template <int kWords, bool kTwoWords>
__global__ void __launch_bounds__(kThreads) read_pieces(const unsigned short* A, long long count, long long length,
                                                        long long lda, long long per_split, unsigned* sink) {
  const int lane = threadIdx.x % 32;
  const int group = threadIdx.x / 32;
  const long long first = (static_cast<long long>(blockIdx.x) * 32 + lane) * kWords * 8;  // element
  const long long k_begin = static_cast<long long>(blockIdx.y) * per_split;
  const long long k_end = min(count, k_begin + per_split);
  unsigned acc = 0;
  if (first < length) {
    for (long long k = k_begin + group; k < k_end; k += kGroups * kInFlight) {
      uint4 w[kInFlight][kWords][kTwoWords ? 2 : 1];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const long long v = min(k + u * kGroups, k_end - 1);
        const auto address = reinterpret_cast<std::uintptr_t>(A + v * lda + first) / 16 * 16;
#pragma unroll
        for (int j = 0; j < kWords; ++j) {
          const auto* word = reinterpret_cast<const uint4*>(address) + j;
          if constexpr (kTwoWords) {
            w[u][j][0] = __ldg(word);
            w[u][j][1] = __ldg(word + 1);
          } else {
            w[u][j][0] = load_past_l1(word);
          }
        }
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
#pragma unroll
        for (int j = 0; j < kWords; ++j) {
#pragma unroll
          for (int h = 0; h < (kTwoWords ? 2 : 1); ++h) acc ^= w[u][j][h].x ^ w[u][j][h].w;
        }
      }
    }
  }
  if (acc == 0x9e3779b9u) *sink = acc;  // keeps the loads; never true for the pool's bytes
}

}  // namespace

int main() {
  fastmv_probe::Pool pool("fastmv_probe_read_axpy_pieces");
  const auto check = [&](cudaError_t status, const char* what) { pool.check(status, what); };
  const auto flat = [&](std::size_t bytes) { return pool.flat_s(bytes); };
  const double ceiling = fastmv_probe::Pool::kBytes / flat(fastmv_probe::Pool::kBytes);
  std::printf("read ceiling %.0f GB/s (read_stream over 1 GiB); bf16, one matrix a call\n", ceiling / 1e9);
  std::printf("%7s %7s %-12s %6s %9s %8s %7s %7s\n", "length", "lda", "mode", "piece", "blocks", "us", "GB/s",
              "of flat");

  const auto pieces = [&](auto kernel, int words, long long count, long long length, long long lda) {
    const long long tiles = (length + 256LL * words - 1) / (256LL * words);
    int resident = 0;
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, kThreads, 0), "occupancy");
    const long long slots = static_cast<long long>(resident) * pool.multiprocessors();
    // About 2.5 waves of blocks, each split at least 8 x kInFlight vectors.
    const long long splits = std::max(1LL, std::min((5 * slots / 2) / tiles, count / (kGroups * kInFlight)));
    const long long per_split = (count + splits - 1) / splits;
    const std::size_t bytes = static_cast<std::size_t>(count * lda) * 2;
    const double s = pool.median_per_call_s(
        [&](unsigned char* at) {
          kernel<<<dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits)), kThreads, 0, pool.stream()>>>(
              reinterpret_cast<const unsigned short*>(at), count, length, lda, per_split, pool.sink());
          check(cudaGetLastError(), "read_pieces launch");
        },
        bytes);
    return std::make_pair(s, tiles * splits);
  };
  for (const long long n : {4096LL, 8192LL}) {
    const std::size_t bytes = static_cast<std::size_t>(n * n) * 2;
    const double floor_s = flat(bytes);
    std::printf("%7lld %7s %-12s %6s %9s %8.2f %7.0f %6.1f%%\n", n, "-", "flat", "-", "-", floor_s * 1e6,
                bytes / floor_s / 1e9, 100.0);
    for (const long long lda : {n, n + 1, n + 8}) {
      const auto row = [&](const char* mode, int words, std::pair<double, long long> r) {
        std::printf("%7lld %7lld %-12s %5dB %9lld %8.2f %7.0f %6.1f%%\n", n, lda, mode, 512 * words, r.second,
                    r.first * 1e6, bytes / r.first / 1e9, 100 * floor_s / r.first);
      };
      row("aligned-down", 1, pieces(read_pieces<1, false>, 1, n, n, lda));
      row("two-word", 1, pieces(read_pieces<1, true>, 1, n, n, lda));
      row("aligned-down", 4, pieces(read_pieces<4, false>, 4, n, n, lda));
    }
  }
  return 0;
}
