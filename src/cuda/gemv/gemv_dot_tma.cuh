// The Dot form fed by the Tensor Memory Accelerator (sm_90): y[r] = alpha * sum_c
// A[r * lda + c] * x[c] + beta * y[r], for aligned rows (16-byte aligned A, lda *
// sizeof(TA) a multiple of 16) and a contiguous, aligned x. Off by default
// (GemvPolicy::dot_tma, where the measurements are).
//
// The rows are shared out in equal bands, one band a block and at most one block an SM
// (the dispatcher sizes the band as ceil(rows / SMs)), so that every SM reads the same
// share of A whatever the number of rows, where dot_kernel tiles rows by the warp and
// can leave a part-full last wave. A block walks its band along the rows in stages: a
// stage is kWords 16-byte words of each of the band's rows, as kWords /
// kDotTmaBoxWords 2D boxes of A and the matching pieces of x, asked of the TMA unit by
// thread 0 a ring of stages ahead, each completing on an mbarrier, so that the block
// keeps stages_in_ring stages in flight with no registers and no load instructions of
// its own. The tensor maps give zeros past the matrix and past x, so the last stage
// and the last band need no edge cases.
//
// Thread t takes word t % kWords of the band's rows t / kWords, t / kWords + 256 /
// kWords, ... (at most kDotTmaUnits of them) in every stage, one sum a row, and its
// piece of x once a stage for all of them. At the end each warp adds its lanes' sums by
// a shuffle tree, and one thread a row adds the sums of the row's kWords / 32 warps in
// warp order, so a row's result does not depend on timing.
#pragma once

#include <cuda.h>

#include "cuda/gemv/gemv_common.cuh"

namespace fastmv::gemv_cuda {

// Rows of a band a thread takes at most (kDotTmaUnits * 256 / kWords rows a band), most
// rows a band (a box dimension's limit) and most elements a box row.
constexpr int kDotTmaUnits = 16;
constexpr int kDotTmaMaxRows = 256;
constexpr int kDotTmaMaxBoxElements = 256;

// Most rows a band of kWords words a stage row holds.
template <int kWords>
constexpr int kDotTmaBandRows = kDotTmaUnits * kBlockThreads / kWords < kDotTmaMaxRows
                                    ? kDotTmaUnits * kBlockThreads / kWords
                                    : kDotTmaMaxRows;

// The tensor maps and the stage geometry of a call (gemv_cuda.cu's dot_tma).
struct DotTmaPlan {
  CUtensorMap a;     // [count][length] of TA, boxes of [rows][kDotTmaBoxWords * V]
  CUtensorMap x;     // [1][length] of TX, boxes of [kDotTmaBoxWords * V]
  int rows;          // rows a band (a block)
  int stages;        // stages a row takes
  int a_box_bytes;   // an A box's shared memory, rounded up to 128 bytes
  int stage_bytes;   // the stage's A boxes, then its x boxes
};

// 16-byte words of a box row: kWords, or as many as a box row holds.
template <typename TA, int kWords>
constexpr int kDotTmaBoxWords = kWords < kDotTmaMaxBoxElements / kVector<TA> ? kWords
                                                                             : kDotTmaMaxBoxElements / kVector<TA>;

// Shared memory of a block: the ring, the alignment slack and a barrier a stage.
inline std::size_t dot_tma_shared_bytes(const DotTmaPlan& plan, int stages_in_ring) {
  return static_cast<std::size_t>(stages_in_ring) * plan.stage_bytes + 128 + 8 * static_cast<std::size_t>(stages_in_ring);
}

// Count elements of TX at a 16-byte aligned shared-memory address, converted to Acc
// (TX is TA or wider, so Count fills whole 16-byte words).
template <typename TX, typename Acc, int Count>
__device__ __forceinline__ void load_shared_elements(const unsigned char* pointer, Acc* out) {
  constexpr int kPerWord = 16 / static_cast<int>(sizeof(TX));
  static_assert(Count % kPerWord == 0, "whole 16-byte words");
#pragma unroll
  for (int w = 0; w < Count / kPerWord; ++w) {
    unpack<TX, Acc>(reinterpret_cast<const uint4*>(pointer)[w], out + w * kPerWord);
  }
}

// kWords: 16-byte words of each row a stage (32, 64 or 128), in boxes of kDotTmaBoxWords.
// Thread t takes word t % kWords of rows t / kWords, t / kWords + 256 / kWords, ... of
// the band in every stage, so its piece of x is the same for all its rows.
template <typename TA, typename TX, typename TY, typename Acc, int kWords>
__global__ void __launch_bounds__(kBlockThreads)
    dot_tma_kernel(const __grid_constant__ GemvArgs<TA, TX, TY, Acc> args,
                   const __grid_constant__ DotTmaPlan plan, const int stages_in_ring) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no TMA unit: the dispatcher never launches this kernel there
#else
  constexpr int V = kVector<TA>;
  constexpr int kBoxWords = kDotTmaBoxWords<TA, kWords>;
  constexpr int kBoxes = kWords / kBoxWords;
  constexpr int kRowsAtOnce = kBlockThreads / kWords;
  constexpr int kWarps = kBlockThreads / 32;
  constexpr int kXBytes = kWords * V * static_cast<int>(sizeof(TX));
  extern __shared__ unsigned char raw[];
  // The boxes want 128-byte aligned destinations.
  unsigned char* ring = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(raw) + 127) / 128 * 128);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(ring + stages_in_ring * plan.stage_bytes);
  const int stages_n = stages_in_ring;
  const int rows = plan.rows;
  const int first_row = static_cast<int>(blockIdx.x) * rows;
  const int stages = plan.stages;

  allow_later_work();
  if (threadIdx.x == 0) {
    init_stage_barriers(full, stages_n);
    // Launched early: the first stages of A into L2 while the kernel before finishes.
    if (args.prefetch != 0) {
      for (int j = 0; j < min(stages_n, stages); ++j) {
        for (int b = 0; b < kBoxes; ++b) {
          asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global [%0, {%1, %2}];" ::"l"(
                           reinterpret_cast<std::uint64_t>(&plan.a)),
                       "r"((j * kWords + b * kBoxWords) * V), "r"(first_row)
                       : "memory");
        }
      }
    }
  }
  wait_for_earlier_work();
  __syncthreads();

  // Stage j into slot `slot`: box b of A at (column (j * kWords + b * kBoxWords) * V,
  // row first_row) and the matching piece of x, all completing on full[slot].
  const int a_bytes = rows * kBoxWords * 16;
  const auto produce = [&](int j, int slot) {
    const unsigned barrier = shared_address(full + slot);
    unsigned char* stage = ring + slot * plan.stage_bytes;
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
                 "r"(kBoxes * a_bytes + kXBytes)
                 : "memory");
    for (int b = 0; b < kBoxes; ++b) {
      const int column = (j * kWords + b * kBoxWords) * V;
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(stage + b * plan.a_box_bytes)),
          "l"(reinterpret_cast<std::uint64_t>(&plan.a)), "r"(column), "r"(first_row), "r"(barrier)
          : "memory");
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(stage + kBoxes * plan.a_box_bytes +
                                                               b * kBoxWords * V * static_cast<int>(sizeof(TX)))),
          "l"(reinterpret_cast<std::uint64_t>(&plan.x)), "r"(column), "r"(0), "r"(barrier)
          : "memory");
    }
  };

  // This thread's word of each row, in its box, and of x.
  const int word = static_cast<int>(threadIdx.x) % kWords;
  const int row_lane = static_cast<int>(threadIdx.x) / kWords;
  const int a_offset = (word / kBoxWords) * plan.a_box_bytes + (row_lane * kBoxWords + word % kBoxWords) * 16;
  constexpr int kRowStep = kRowsAtOnce * kBoxWords * 16;  // from one of its rows to the next
  const int x_offset = kBoxes * plan.a_box_bytes + word * V * static_cast<int>(sizeof(TX));

  if (threadIdx.x == 0) {
    for (int j = 0; j < min(stages_n, stages); ++j) produce(j, j);
  }
  Acc sum[kDotTmaUnits];
#pragma unroll
  for (int u = 0; u < kDotTmaUnits; ++u) sum[u] = 0;
  int slot = 0;
  unsigned phase = 0;
  for (int j = 0; j < stages; ++j) {
    wait_stage(shared_address(full + slot), phase);
    const unsigned char* stage = ring + slot * plan.stage_bytes;
    Acc xv[V];
    load_shared_elements<TX, Acc, V>(stage + x_offset, xv);
#pragma unroll
    for (int u = 0; u < kDotTmaUnits; ++u) {
      if (row_lane + u * kRowsAtOnce < rows) {
        Acc a[V];
        unpack<TA, Acc>(*reinterpret_cast<const uint4*>(stage + a_offset + u * kRowStep), a);
#pragma unroll
        for (int i = 0; i < V; ++i) sum[u] = fma(a[i], xv[i], sum[u]);
      }
    }
    // Every thread is done with the slot: refill it. The fence orders the threads'
    // reads of the slot before the TMA unit's writes to it.
    __syncthreads();
    if (threadIdx.x == 0 && j + stages_n < stages) {
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      produce(j + stages_n, slot);
    }
    if (++slot == stages_n) {
      slot = 0;
      phase ^= 1u;
    }
  }

  // Every copy has landed and been read: the ring becomes the warps' sums. A row's
  // kWords threads are kWords / 32 whole warps: each adds its lanes by a shuffle tree,
  // then one thread a row adds its warps' sums in warp order.
  Acc* warp_sums = reinterpret_cast<Acc*>(ring);  // [unit][warp]
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
#pragma unroll
  for (int u = 0; u < kDotTmaUnits; ++u) {
    if (u * kRowsAtOnce < rows) {
      Acc total = sum[u];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) total += __shfl_down_sync(0xffffffffu, total, offset);
      if (lane == 0) warp_sums[u * kWarps + warp] = total;
    }
  }
  __syncthreads();
  for (int row = static_cast<int>(threadIdx.x); row < rows; row += kBlockThreads) {
    const int u = row / kRowsAtOnce;
    const int first_warp = (row % kRowsAtOnce) * (kWords / 32);
    Acc total = 0;
    for (int w = 0; w < kWords / 32; ++w) total += warp_sums[u * kWarps + first_warp + w];
    if (first_row + row < args.count) {
      store_output(args.y, static_cast<index_t>(first_row + row), args.incy, args.alpha, args.beta, total);
    }
  }
#endif
}

}  // namespace fastmv::gemv_cuda
