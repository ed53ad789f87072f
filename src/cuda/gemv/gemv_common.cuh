// Pieces every GEMV kernel shares: element types, 16-byte loads converted to the
// accumulation type, the y epilogue and the split-reduction handshake.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "fastmv/half.hpp"
#include "fastmv/types.hpp"

namespace fastmv::gemv_cuda {

constexpr int kBlockThreads = 256;

// fastmv's storage types as CUDA's (same bits).
template <typename T>
struct DeviceType {
  using type = T;
};
template <>
struct DeviceType<fastmv::half> {
  using type = __half;
};
template <>
struct DeviceType<fastmv::bfloat16> {
  using type = __nv_bfloat16;
};

// Elements of T in one 16-byte load.
template <typename T>
constexpr int kVector = 16 / static_cast<int>(sizeof(T));

__device__ __forceinline__ float to_acc(float v) { return v; }
__device__ __forceinline__ double to_acc(double v) { return v; }
__device__ __forceinline__ float to_acc(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_acc(__nv_bfloat16 v) { return __bfloat162float(v); }
// A 2-byte element, from its bits.
template <typename T>
__device__ __forceinline__ float acc_from_bits(unsigned short bits);
template <>
__device__ __forceinline__ float acc_from_bits<__half>(unsigned short bits) {
  return __half2float(__ushort_as_half(bits));
}
template <>
__device__ __forceinline__ float acc_from_bits<__nv_bfloat16>(unsigned short bits) {
  return __bfloat162float(__ushort_as_bfloat16(bits));
}

template <typename T>
__device__ __forceinline__ T from_acc(float v);
template <>
__device__ __forceinline__ float from_acc<float>(float v) { return v; }
template <>
__device__ __forceinline__ __half from_acc<__half>(float v) { return __float2half_rn(v); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_acc<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <typename T>
__device__ __forceinline__ T from_acc(double v) {
  return v;
}

// 16 bytes of the matrix, read once: bypass L1 so that x keeps it. Not volatile: the
// compiler may hoist these loads above the arithmetic on earlier ones.
__device__ __forceinline__ uint4 load_stream(const void* pointer) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(pointer));
  return v;
}
// 16 bytes read through L1 (x, re-read by every row).
__device__ __forceinline__ uint4 load_cached(const void* pointer) {
  return __ldg(static_cast<const uint4*>(pointer));
}
// The 32-bit shared-memory address of a generic pointer into shared memory (the
// operand of cp.async, mbarrier and TMA instructions).
__device__ __forceinline__ unsigned shared_address(const void* pointer) {
  return static_cast<unsigned>(__cvta_generic_to_shared(pointer));
}
// 16 bytes of global memory copied to shared memory in the background (cp.async, past
// L1), holding no registers until wait_copies(), which waits for every copy the thread
// has started.
__device__ __forceinline__ void copy_async(void* shared, const void* global) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(shared)), "l"(global) : "memory");
  asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void wait_copies() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// The TMA kernels' rings (gemv_axpy_tma.cuh, gemv_dot_tma.cuh): one mbarrier a stage,
// each expecting one arrival (the thread that asks for the stage's copies), initialized
// by one thread before the block's barrier.
__device__ __forceinline__ void init_stage_barriers(std::uint64_t* barriers, int count) {
  for (int s = 0; s < count; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared_address(barriers + s)) : "memory");
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
// Waits until the stage barrier at shared address `barrier` completes the phase of
// `parity` (its copies have landed).
__device__ __forceinline__ void wait_stage(unsigned barrier, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (!done);
}

// Programmatic dependent launch (gemv_cuda.cu's launch, compute capability 9 and up):
// a kernel may start while the kernel before it on the stream is still finishing.
// Every kernel launched that way calls wait_for_earlier_work() before it reads or
// writes global memory; the wait returns once the earlier grids have completed and
// their writes are visible, so results are those of an ordinary launch.
// allow_later_work() lets the next such launch start once every block of this grid
// has called it (or exited): its blocks then fill the SMs this grid leaves idle in
// its last wave. Called as a block starts, it lets a third grid in while the first
// still runs; the TMA and register Axpy kernels call it later (GemvArgs::next_at),
// as grids of fewer blocks than SMs, placed around two resident grids, piled onto a
// few GPCs. Both are no-ops after an ordinary launch and below sm_90.
__device__ __forceinline__ void wait_for_earlier_work() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void allow_later_work() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}
// Asks for the cache line at `pointer` in L2. Safe before wait_for_earlier_work():
// L2 is where every write of the GPU lands, so a line fetched early is updated by the
// earlier kernel's writes, and the loads that follow the wait see them. The kernels
// pass only addresses they go on to read.
__device__ __forceinline__ void prefetch_l2(const void* pointer) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(pointer));
}
// `length` contiguous elements from x into L2, a 128-byte line a thread of the grid's
// first blocks along x (blockIdx.y 0): every line x touches holds one of x, x + kLine,
// ... or its last element. Safe before wait_for_earlier_work: it loads nothing into
// registers or L1, and L2 is where the earlier grid's writes to x go.
template <typename T>
__device__ __forceinline__ void prefetch_x_l2(const T* x, index_t length) {
  if (blockIdx.y != 0 || length <= 0) return;
  constexpr index_t kLine = 128 / static_cast<index_t>(sizeof(T));
  const index_t lines = (length + kLine - 1) / kLine;
  const index_t threads = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t l = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x; l <= lines; l += threads) {
    prefetch_l2(x + min(l * kLine, length - 1));
  }
}

// The kVector<T> elements of a 16-byte word, converted to Acc.
template <typename T, typename Acc>
__device__ __forceinline__ void unpack(const uint4& raw, Acc* out) {
  const unsigned words[4] = {raw.x, raw.y, raw.z, raw.w};
  if constexpr (sizeof(T) == 4) {
#pragma unroll
    for (int i = 0; i < 4; ++i) out[i] = __uint_as_float(words[i]);
  } else if constexpr (sizeof(T) == 8) {
    out[0] = __hiloint2double(static_cast<int>(raw.y), static_cast<int>(raw.x));
    out[1] = __hiloint2double(static_cast<int>(raw.w), static_cast<int>(raw.z));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {  // bf16 is the top half of a float
      out[2 * i] = __uint_as_float(words[i] << 16);
      out[2 * i + 1] = __uint_as_float(words[i] & 0xffff0000u);
    }
  } else {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      __half2 pair;
      memcpy(&pair, &words[i], sizeof pair);
      const float2 f = __half22float2(pair);
      out[2 * i] = f.x;
      out[2 * i + 1] = f.y;
    }
  }
}

// The 16 bytes that start `shift` bytes (0..15, a multiple of sizeof(TA)) into the
// aligned word `low`, the rest from the next aligned word `high`: how both forms read
// elements that do not start on a 16-byte boundary with aligned 16-byte loads only.
// The words are picked in two steps, by 2 words and by 1 (11 selects, fewer for 4- and
// 8-byte types), then 2-byte types funnel-shifted by 16 bits; a shift of 0 gives
// `low`, so a loop over one Dot row (whose shift is the same throughout) needs no
// branch on it; the choices depend on the shift alone, so the compiler may work them
// out once outside such a loop. (The nested s == 0 ? : s == 1 ? ... choice this
// replaced: Dot odd rows 1-5 % slower, docs/PERFORMANCE.md.)
template <typename TA>
__device__ __forceinline__ uint4 realign(const uint4& low, const uint4& high, int shift) {
  const unsigned words[8] = {low.x, low.y, low.z, low.w, high.x, high.y, high.z, high.w};
  constexpr bool kHalfWords = sizeof(TA) < 4;  // else shift % 4 is 0
  constexpr bool kOddWords = sizeof(TA) < 8;   // else shift & 4 is 0
  const bool by_two = (shift & 8) != 0;
  const bool by_one = kOddWords && (shift & 4) != 0;
  const unsigned bits = static_cast<unsigned>(shift % 4) * 8;
  unsigned two[6];
#pragma unroll
  for (int i = 0; i < 6; ++i) two[i] = by_two ? words[i + 2] : words[i];
  unsigned one[5];
#pragma unroll
  for (int i = 0; i < 5; ++i) one[i] = by_one ? two[i + 1] : two[i];
  unsigned out[4];
#pragma unroll
  for (int t = 0; t < 4; ++t) out[t] = kHalfWords ? __funnelshift_r(one[t], one[t + 1], bits) : one[t];
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// kBytes (8, 4 or 2) bytes of the matrix read once, bypassing L1, as an integer of that size
// (the interleaved Axpy layout's elements, the flat kernels' narrow granules).
template <int kBytes>
__device__ __forceinline__ auto load_stream_bits(const void* pointer) {
  static_assert(kBytes == 8 || kBytes == 4 || kBytes == 2, "8, 4 or 2 bytes");
  if constexpr (kBytes == 8) {
    unsigned long long v;
    asm("ld.global.nc.L1::no_allocate.u64 %0, [%1];" : "=l"(v) : "l"(pointer));
    return v;
  } else if constexpr (kBytes == 4) {
    unsigned v;
    asm("ld.global.nc.L1::no_allocate.u32 %0, [%1];" : "=r"(v) : "l"(pointer));
    return v;
  } else {
    unsigned short v;
    asm("ld.global.nc.L1::no_allocate.u16 %0, [%1];" : "=h"(v) : "l"(pointer));
    return v;
  }
}

// The flat kernels (axpy_flat_kernel, dot_flat_kernel): kBytes (16, 8, 4 or 2) bytes of A
// read once, bypassing L1, and their kGranuleElements elements converted to Acc;
// flat_unroll(kBytes) granules in flight a thread (128 bytes, at most 16 granules).
template <typename TA, int kBytes>
struct GranuleElements {
  static_assert(kBytes >= static_cast<int>(sizeof(TA)) && kBytes <= 16, "a granule holds whole elements");
  static constexpr int value = kBytes / static_cast<int>(sizeof(TA));
};
template <typename TA, int kBytes>
constexpr int kGranuleElements = GranuleElements<TA, kBytes>::value;
__host__ __device__ constexpr int flat_unroll(long long granule_bytes) {
  return 128 / granule_bytes > 16 ? 16 : static_cast<int>(128 / granule_bytes);
}

template <typename TA, int kBytes>
__device__ __forceinline__ auto load_granule(const TA* pointer) {
  if constexpr (kBytes == 16) {
    return load_stream(pointer);
  } else if constexpr (kBytes == 8) {
    uint2 v;
    asm("ld.global.nc.L1::no_allocate.v2.u32 {%0, %1}, [%2];" : "=r"(v.x), "=r"(v.y) : "l"(pointer));
    return v;
  } else {
    return load_stream_bits<kBytes>(pointer);
  }
}

// 32 bits of a granule (for dependencies on its load, as after() below).
__device__ __forceinline__ unsigned granule_bits(const uint4& raw) { return raw.x; }
__device__ __forceinline__ unsigned granule_bits(const uint2& raw) { return raw.x; }
__device__ __forceinline__ unsigned granule_bits(unsigned raw) { return raw; }
__device__ __forceinline__ unsigned granule_bits(unsigned short raw) { return raw; }

template <typename TA, typename Acc, int kBytes, typename Granule>
__device__ __forceinline__ void unpack_granule(const Granule& raw, Acc* out) {
  if constexpr (kBytes == 16) {
    unpack<TA, Acc>(raw, out);
  } else {
    constexpr int P = kGranuleElements<TA, kBytes>;
    TA values[P];
    memcpy(values, &raw, kBytes);
#pragma unroll
    for (int i = 0; i < P; ++i) out[i] = to_acc(values[i]);
  }
}

// Count elements of T starting at a 16-byte aligned `pointer`, count * sizeof(T) a
// multiple of 16, converted to Acc.
template <typename T, typename Acc, int Count>
__device__ __forceinline__ void load_cached_vector(const T* pointer, Acc* out) {
  constexpr int kPerLoad = kVector<T>;
  static_assert(Count % kPerLoad == 0, "whole 16-byte words");
#pragma unroll
  for (int i = 0; i < Count / kPerLoad; ++i) {
    unpack<T, Acc>(load_cached(pointer + i * kPerLoad), out + i * kPerLoad);
  }
}

// Count elements from any element boundary through L1, one load each (the Dot form's
// x for rows that lie off a 16-byte boundary, dot_kernel's kShifted).
template <typename T, typename Acc, int Count>
__device__ __forceinline__ void load_cached_elements(const T* pointer, Acc* out) {
#pragma unroll
  for (int i = 0; i < Count; ++i) out[i] = to_acc(__ldg(pointer + i));
}

// Everything a kernel needs, as one by-value parameter.
template <typename TA, typename TX, typename TY, typename Acc>
struct GemvArgs {
  const TA* A;
  index_t lda;
  index_t stride_a;
  const TX* x;  // logical element 0
  index_t incx;
  index_t stride_x;
  TY* y;  // logical element 0
  index_t incy;
  index_t stride_y;
  index_t count;
  index_t length;
  index_t batch;
  Acc alpha;
  Acc beta;
  // Split reduction: `splits` blocks share each output tile; split s covers
  // [s * split_length, (s + 1) * split_length) of the reduction.
  int splits;
  index_t split_length;
  Acc* partials;        // [batch][splits][outputs]
  unsigned* counters;   // one per (batch, tile), 0 between launches
  // 1: the `splits` blocks of a tile form one thread block cluster (gridDim.y ==
  // splits <= kMaxClusterSplits) and add their partial sums through distributed shared
  // memory instead (finish_tile); partials and counters are then unused.
  int cluster;
  // Variant parameters chosen by the dispatcher.
  int lanes;     // threads along the stored vector (Axpy form)
  int groups_k;  // thread groups that split the reduction inside a block
  index_t rows_per_block;  // staged Dot form
  // Launched early (GemvPolicy::early_launch 2): ask for the first loads of A into L2
  // before waiting for the previous kernel.
  int prefetch;
  // Launched early: where the kernel lets the next early-launched grid start (the TMA
  // Axpy kernel, GemvPolicy::early_launch_tma_next; the register Axpy kernel,
  // early_launch_next_register; the others: 0): 0 as it starts, 1 once its own wait
  // for the earlier grid is over, 2 (the TMA Axpy kernel) once it has read its part of A.
  int next_at;
  // Always 0, but unknown to the compiler: `after(pointer, words)` (below) makes loads
  // depend on earlier ones through it.
  unsigned zero;
  // Dot form, rows off 16-byte boundaries read without realignment (dot_kernel's
  // kShifted): every row_period-th row lies the same distance past a boundary.
  int row_period;
  // Dot form (dot_kernel, one split a tile): the tiles from tail_first on, the grid's
  // last and partial wave, are split tail_splits ways (tail_split_length each, partial
  // sums through memory), block tail_first + t * tail_splits + s taking split s of tile
  // tail_first + t. 0: none.
  int tail_splits;
  index_t tail_first;
  index_t tail_split_length;
  // dot_balanced_kernel: its warps' pieces begin on boundaries of this many bytes of A
  // (GemvPolicy::dot_balanced_align; 16: anywhere).
  int piece_align;
  // dot_balanced_kernel: a piece's words past its last full round are read apart where
  // they number at most this many a lane (1 or 2; GemvPolicy::dot_balanced_spare_per_lane_2byte,
  // capped by the kernel's kBalancedSparePerLane<TA>).
  int spare_per_lane;
  // axpy_narrow_kernel: 1: a split's vectors past its last whole round of loads, where
  // they number at most one a group, are read with the groups' first round, not in a
  // round of their own (GemvPolicy::axpy_narrow_fold_tail).
  int fold_tail;
};

// `pointer`, made to depend on the values of the kCount `words` (through `zero`, 0 at
// run time): loads through it wait until those words have arrived. ptxas, short of
// registers (the 64 of the Dot kernels with 4 words in flight) or not, otherwise moved
// some of the loads of A that a round should have in flight together below the
// multiplies of the first word: one or two 16-byte words of A in flight per thread
// instead of four (Dot form, aligned, 4 words; Axpy form, fp32, 4 or 8). Reading x
// after A costs a cache latency per round: the Axpy form uses it only where it
// measured faster (see axpy_kernel).
template <int kCount, typename T>
__device__ __forceinline__ const T* after(const T* pointer, const uint4* words, unsigned zero) {
  unsigned any = 0;
#pragma unroll
  for (int i = 0; i < kCount; ++i) any |= words[i].x;
  return pointer + (any & zero);
}

// `value` with `bits` ORed into the low bits of its representation (`bits` 0 at run time:
// a dependency, as after() makes, that leaves the value as it is).
__device__ __forceinline__ float with_low_bits(float value, unsigned bits) {
  return __uint_as_float(__float_as_uint(value) | bits);
}
__device__ __forceinline__ double with_low_bits(double value, unsigned bits) {
  return __longlong_as_double(__double_as_longlong(value) | bits);
}

// The low 32 bits of a value's representation (for a dependency on its load, as after()
// above and axpy_kernel's rounds of 8 make).
template <typename T>
__device__ __forceinline__ unsigned low_bits(const T& value) {
  if constexpr (sizeof(T) >= 4) {
    unsigned bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
  } else {
    unsigned short bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
  }
}

// The staged kernels (dot_staged_kernel, axpy_staged_kernel): stored vectors of at
// most kStagedMaxLength elements (the Axpy form's: kAxpyStagedMaxLength, a thread an
// output), read as contiguous spans of A of up to kStagedTileBytes through shared memory.
constexpr index_t kStagedMaxLength = 32;
constexpr index_t kAxpyStagedMaxLength = kBlockThreads;
constexpr int kStagedTileBytes = 16384;
constexpr int kStagedCopyUnroll = 4;  // a whole tile's words in flight: 16384 / 256 / 16

// Shared memory for a staged span of `rows` stored vectors: their span of A with the
// slack of stage_span (below), rounded to 16 bytes (the staged Axpy kernel puts x after it).
__host__ __device__ inline index_t staged_span_bytes(index_t rows, index_t lda, index_t length, index_t element) {
  return (((rows - 1) * lda + length) * element + 32 + 15) / 16 * 16;
}

// Where the span [begin, end) of A lands in shared memory (stage_span, stage_span_async):
// the aligned 16-byte words that hold it, from `first_word` (begin rounded down), copied
// to staged_words[0 .. words), so that `begin` lands at `staged` and every element keeps
// its address modulo 16.
template <typename TA>
struct StagedSpan {
  const TA* first_word;
  TA* staged;
  index_t words;
};
template <typename TA>
__device__ __forceinline__ StagedSpan<TA> staged_span(const TA* begin, const TA* end, uint4* staged_words) {
  const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(begin) % 16;
  const TA* first_word = reinterpret_cast<const TA*>(reinterpret_cast<std::uintptr_t>(begin) - offset);
  TA* staged = reinterpret_cast<TA*>(reinterpret_cast<char*>(staged_words) + offset);
  const index_t words =
      (reinterpret_cast<std::uintptr_t>(end) - reinterpret_cast<std::uintptr_t>(first_word) + 15) / 16;
  return {first_word, staged, words};
}

// Copies the span [begin, end) of A (kStagedTileBytes + 16 bytes or so; a longer span
// takes more than one round of loads) into shared memory so that each element keeps its
// address modulo 16: whole 16-byte words are copied as words, the partial words at either
// end element by element. Returns where `begin` landed. The caller synchronizes before
// reading.
//
// kStagedCopyUnroll words a thread loaded before the first is stored: each store
// waits for its load, so one word at a time kept a single load in flight per thread.
// Same run, three rounds: fp32 row N 1048576 x 16 34.1 -> 27.6 us, 4194304 x 4 41.5
// -> 34.9, 262144 x 32 18.2 -> 16.0, bf16 1048576 x 16 24.8 -> 21.6, 100003 x 3 3.7
// -> 3.4; fp32 65536 x 16 4.5 -> 4.8 the one loss (48 registers instead of 30: 5
// blocks an SM instead of 8; capped at 32 they spill).
template <typename TA>
__device__ __forceinline__ TA* stage_span(const TA* begin, const TA* end, uint4* staged_words) {
  constexpr int V = kVector<TA>;
  const auto [first_word, staged, words] = staged_span(begin, end, staged_words);
  for (index_t w0 = threadIdx.x; w0 < words; w0 += kStagedCopyUnroll * blockDim.x) {
    uint4 loaded[kStagedCopyUnroll];
#pragma unroll
    for (int u = 0; u < kStagedCopyUnroll; ++u) {
      const TA* word = first_word + (w0 + u * blockDim.x) * V;
      if (w0 + u * blockDim.x < words && word >= begin && word + V <= end) loaded[u] = load_stream(word);
    }
#pragma unroll
    for (int u = 0; u < kStagedCopyUnroll; ++u) {
      const index_t w = w0 + u * blockDim.x;
      if (w >= words) break;
      const TA* word = first_word + w * V;
      if (word >= begin && word + V <= end) {
        staged_words[w] = loaded[u];
      } else {
        for (int e = 0; e < V; ++e) {
          const TA* element = word + e;
          if (element >= begin && element < end) staged[element - begin] = *element;
        }
      }
    }
  }
  return staged;
}

// stage_span through cp.async (the staged Axpy kernel's larger chunks,
// GemvPolicy::axpy_staged_async_copy): every whole word of the span asked for at once,
// holding no registers, where stage_span keeps kStagedCopyUnroll words a thread in
// flight and so reads a 64 KiB chunk in 4 round trips. The partial words at either end
// (elements outside [begin, end) are not read) are copied element by element by the
// first V threads (the first word) and the V threads of the second warp (the last),
// after the whole words' copies are asked for. Waits for this thread's copies; the
// caller synchronizes before reading.
template <typename TA>
__device__ __forceinline__ TA* stage_span_async(const TA* begin, const TA* end, uint4* staged_words) {
  constexpr int V = kVector<TA>;
  // Not a structured binding: the lambda below uses it (C++17 lambdas capture no bindings).
  const StagedSpan<TA> span = staged_span(begin, end, staged_words);
  const TA* const first_word = span.first_word;
  const index_t first_whole = first_word == begin ? 0 : 1;              // word 0 starts before begin
  const index_t end_whole = static_cast<index_t>(end - first_word) / V;  // words that end by `end`
  for (index_t w = first_whole + threadIdx.x; w < end_whole; w += blockDim.x) {
    copy_async(staged_words + w, first_word + w * V);
  }
  const auto element_copy = [&](index_t w, int e) {
    const TA* element = first_word + w * V + e;
    if (element >= begin && element < end) span.staged[element - begin] = *element;
  };
  if (first_whole == 1 && threadIdx.x < V) element_copy(0, static_cast<int>(threadIdx.x));
  // The last word when it is partial and not word 0 already taken above.
  const bool last_partial = end_whole < span.words && end_whole >= first_whole;
  if (last_partial && threadIdx.x >= 32 && threadIdx.x < 32 + V) {
    element_copy(end_whole, static_cast<int>(threadIdx.x) - 32);
  }
  wait_copies();
  return span.staged;
}

// y[i] = alpha * sum + beta * y[i]; beta == 0 does not read y.
template <typename TY, typename Acc>
__device__ __forceinline__ void store_output(TY* y, index_t i, index_t incy, Acc alpha, Acc beta,
                                             Acc sum) {
  TY* out = y + i * incy;
  Acc value = alpha * sum;
  if (beta != Acc(0)) value += beta * to_acc(*out);
  *out = from_acc<TY>(value);
}

// Count consecutive outputs starting at a 16-byte aligned y + first (incy == 1), with
// 16-byte stores; Count * sizeof(TY) is a multiple of 16.
template <typename TY, typename Acc, int Count>
__device__ __forceinline__ void store_output_words(TY* y, Acc alpha, Acc beta, const Acc* sums) {
  constexpr int kPerWord = 16 / static_cast<int>(sizeof(TY));
  static_assert(Count % kPerWord == 0, "whole 16-byte words");
#pragma unroll
  for (int w = 0; w < Count / kPerWord; ++w) {
    uint4* word = reinterpret_cast<uint4*>(y) + w;
    TY values[kPerWord];
    if (beta != Acc(0)) {
      const uint4 old = *word;
      memcpy(values, &old, sizeof old);
    }
#pragma unroll
    for (int i = 0; i < kPerWord; ++i) {
      Acc value = alpha * sums[w * kPerWord + i];
      if (beta != Acc(0)) value += beta * to_acc(values[i]);
      values[i] = from_acc<TY>(value);
    }
    uint4 packed;
    memcpy(&packed, values, sizeof packed);
    *word = packed;
  }
}

// Most blocks of one cluster that share a tile (finish_tile_in_cluster): 16 is the
// largest cluster Hopper allows (beyond the portable 8, asked for at launch).
constexpr int kMaxClusterSplits = 16;

// The split reduction of a tile whose `splits` blocks form one cluster: each block
// leaves its partial sums in its shared memory; after the cluster's barrier, block s
// adds up the s-th share of the outputs over every block's partials (distributed
// shared memory, in split order: deterministic), and a second barrier keeps every
// block's shared memory alive until all have read it. Two barriers and reads that
// stay on the GPC, where the handshake through global memory costs a store, an
// atomic and the loads of the last block (about 2 us; arrive_acq_rel).
template <typename TY, typename Acc, typename Args, typename Partial>
__device__ __forceinline__ void finish_tile_in_cluster(const Args& args, TY* y, index_t first, int outputs,
                                                       Partial&& partial) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  __shared__ Acc tile_partials[kBlockThreads];  // outputs <= kBlockThreads
  for (int t = threadIdx.x; t < outputs; t += blockDim.x) tile_partials[t] = partial(t);
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  const int splits = args.splits;
  const int share = (outputs + splits - 1) / splits;
  const int t = static_cast<int>(blockIdx.y) * share + static_cast<int>(threadIdx.x);
  if (static_cast<int>(threadIdx.x) < share && t < outputs) {
    // Four remote loads in flight at a time (registers: the Dot kernels have 64).
    constexpr int kInFlight = 4;
    Acc sum = 0;
    for (int s0 = 0; s0 < splits; s0 += kInFlight) {
      Acc values[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        if (s0 + u < splits) values[u] = *cluster.map_shared_rank(&tile_partials[t], s0 + u);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        if (s0 + u < splits) sum += values[u];
      }
    }
    store_output(y, first + t, args.incy, args.alpha, args.beta, sum);
  }
  cluster.sync();
#endif
}

// A split's arrival at its tile's counter, by thread 0 once every thread of the block
// has stored its partial sums (the caller's __syncthreads): an atomic add that
// releases those stores at GPU scope and, for the last block to arrive, acquires the
// other splits' (the barrier after it orders the whole block's loads behind it).
// Returns the count before. One thread's acquire-release atomic where every thread
// ran a sequentially consistent __threadfence() before the atomic and again after it
// (CUTLASS's split-K semaphore: a barrier, then one thread's fence.acq_rel and atomic).
// The TMA kernel's per-block timeline (globaltimer, bf16 row T 16384 x 1024, 8 splits)
// put the handshake at 1.25 us a block and 3.0 for the last (a tile's reduction);
// with this, 1.09 and 2.24 (the unsplit grid's finish: 0.35).
__device__ __forceinline__ unsigned arrive_acq_rel(unsigned* counter) {
  unsigned before;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
  return before;
}

// finish_tile (below) for a tile of `splits` blocks of which this one is split number
// `split`, given as values rather than args.splits and blockIdx.y: dot_kernel's tail
// tiles (GemvArgs::tail_splits). A copy of finish_tile's reduction through memory: one
// body for both, with the splits passed in, changed the register allocation of the Dot
// kernels held to 64 registers (the realigned bf16 one spilled 4 bytes where it spills
// none; fp64's spilled 4 instead of 12) even where no tail is split.
template <typename TY, typename Acc, typename Args, typename Partial>
__device__ __forceinline__ void finish_split_tile(const Args& args, TY* y, index_t batch_index, index_t tile,
                                                  index_t first, int outputs, index_t total_outputs, int splits,
                                                  int split, Partial&& partial) {
  if (splits == 1) {
    for (int t = threadIdx.x; t < outputs; t += blockDim.x) {
      store_output(y, first + t, args.incy, args.alpha, args.beta, partial(t));
    }
    return;
  }
  Acc* mine = args.partials + (batch_index * splits + split) * total_outputs + first;
  for (int t = threadIdx.x; t < outputs; t += blockDim.x) mine[t] = partial(t);
  __syncthreads();
  __shared__ bool last;
  unsigned* counter = args.counters + batch_index * gridDim.x + tile;
  if (threadIdx.x == 0) last = arrive_acq_rel(counter) == static_cast<unsigned>(splits - 1);
  __syncthreads();
  if (!last) return;
  // Each output's splits are shared by `team` lanes of one warp (more when the tile
  // has few outputs); each lane keeps 16 loads in flight (this tail runs on one block
  // per tile while the GPU idles, so its latency counts), then the team adds up by
  // shuffles. The order of additions is fixed, so the result is deterministic.
  const Acc* all = args.partials + batch_index * splits * total_outputs + first;
  int team = 1;
  while (team < 32 && team * 2 * outputs <= static_cast<int>(blockDim.x)) team *= 2;
  const int member = threadIdx.x % team;
  const int teams = blockDim.x / team;
  const int rounds = (outputs + teams - 1) / teams;
  for (int round = 0; round < rounds; ++round) {
    const int t = round * teams + static_cast<int>(threadIdx.x) / team;
    Acc sum = 0;
    if (t < outputs) {
      int s = member;
      constexpr int kInFlight = 16;
      for (; s + (kInFlight - 1) * team < splits; s += kInFlight * team) {
        Acc v[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
          v[u] = __ldcg(all + static_cast<index_t>(s + u * team) * total_outputs + t);
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) sum += v[u];
      }
      // The rest, fewer than kInFlight per lane: loaded together as well.
      Acc rest[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int other = s + u * team;
        rest[u] = other < splits ? __ldcg(all + static_cast<index_t>(other) * total_outputs + t) : Acc(0);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) sum += rest[u];
    }
    for (int offset = team / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (t < outputs && member == 0) store_output(y, first + t, args.incy, args.alpha, args.beta, sum);
  }
  if (threadIdx.x == 0) *counter = 0;
}

// Split reduction across blocks, in one launch: each of the `splits` blocks of a
// tile writes its partial sums; the last to arrive adds them in split order (so the
// result does not depend on scheduling), writes y and resets the counter. Blocks of
// one cluster (args.cluster) go through finish_tile_in_cluster instead.
// `partial(t)` is this block's partial for its t-th output (t < outputs); output
// t of the tile is y element first + t.
// kClusters: the kernel may be launched in clusters (the Dot form's); the others leave
// the cluster code out (compiled in, unused, it cost the unaligned fp32 Axpy kernel
// 5-15 % from 64 MiB up).
template <typename TY, typename Acc, bool kClusters = false, typename Args, typename Partial>
__device__ __forceinline__ void finish_tile(const Args& args, TY* y, index_t batch_index,
                                            index_t tile, index_t first, int outputs,
                                            index_t total_outputs, Partial&& partial) {
  if (args.splits == 1) {
    for (int t = threadIdx.x; t < outputs; t += blockDim.x) {
      store_output(y, first + t, args.incy, args.alpha, args.beta, partial(t));
    }
    return;
  }
  if constexpr (kClusters) {
    if (args.cluster != 0) {
      finish_tile_in_cluster<TY, Acc>(args, y, first, outputs, partial);
      return;
    }
  }
  const int split = blockIdx.y;
  Acc* mine = args.partials + (batch_index * args.splits + split) * total_outputs + first;
  for (int t = threadIdx.x; t < outputs; t += blockDim.x) mine[t] = partial(t);
  __syncthreads();
  __shared__ bool last;
  unsigned* counter = args.counters + batch_index * gridDim.x + tile;
  if (threadIdx.x == 0) last = arrive_acq_rel(counter) == static_cast<unsigned>(args.splits - 1);
  __syncthreads();
  if (!last) return;
  // Each output's splits are shared by `team` lanes of one warp (more when the tile
  // has few outputs); each lane keeps 16 loads in flight (this tail runs on one block
  // per tile while the GPU idles, so its latency counts), then the team adds up by
  // shuffles. The order of additions is fixed, so the result is deterministic.
  const Acc* all = args.partials + batch_index * args.splits * total_outputs + first;
  int team = 1;
  while (team < 32 && team * 2 * outputs <= static_cast<int>(blockDim.x)) team *= 2;
  const int member = threadIdx.x % team;
  const int teams = blockDim.x / team;
  const int rounds = (outputs + teams - 1) / teams;
  for (int round = 0; round < rounds; ++round) {
    const int t = round * teams + static_cast<int>(threadIdx.x) / team;
    Acc sum = 0;
    if (t < outputs) {
      int s = member;
      constexpr int kInFlight = 16;
      for (; s + (kInFlight - 1) * team < args.splits; s += kInFlight * team) {
        Acc v[kInFlight];
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) {
          v[u] = __ldcg(all + static_cast<index_t>(s + u * team) * total_outputs + t);
        }
#pragma unroll
        for (int u = 0; u < kInFlight; ++u) sum += v[u];
      }
      // The rest, fewer than kInFlight per lane: loaded together as well.
      Acc rest[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int split = s + u * team;
        rest[u] = split < args.splits ? __ldcg(all + static_cast<index_t>(split) * total_outputs + t) : Acc(0);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) sum += rest[u];
    }
    for (int offset = team / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (t < outputs && member == 0) store_output(y, first + t, args.incy, args.alpha, args.beta, sum);
  }
  if (threadIdx.x == 0) *counter = 0;
}

}  // namespace fastmv::gemv_cuda
