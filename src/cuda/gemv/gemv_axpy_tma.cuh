// The Axpy form fed by the Tensor Memory Accelerator (sm_90): y[c] = alpha * sum_k
// x[k] * A[k * lda + c] + beta * y[c], A's stored vectors read as 2D boxes of kWords
// 16-byte words (a tile of outputs) x kColumns stored vectors.
//
// Thread 0 of a block asks the TMA unit for a ring of `stages_in_ring` boxes of A (and
// the matching pieces of x) ahead of use; the copies land in shared memory and complete
// on an mbarrier per stage, so a block keeps stages_in_ring * 16 KiB in flight with no
// registers and no load instructions of its own. All 256 threads consume: thread t takes word
// t % kWords of the tile for every (256 / kWords)-th stored vector of a stage, and
// the groups' sums are added at the end as in axpy_kernel. The tensor maps give zeros
// past the matrix and past x, so the kernel has no edge cases; a split's reduction
// range is a multiple of kColumns.
//
// Unaligned vectors (lda * sizeof(TA) not a multiple of 16, or A off a 16-byte
// boundary; kRealigned): a tensor map wants 16-byte strides, a 16-byte aligned base,
// and (the hardware) a box that starts on a 16-byte boundary. Every P-th vector (P =
// 16 / gcd(lda * sizeof(TA), 16): 2, 4 or 8) starts at the same offset from a 16-byte
// boundary, so the vectors fall into P classes k = c + P * k', each one tensor map of
// stride P * lda elements from the 16-byte boundary at or below vector c, whose
// elements start `shift` elements into each of its rows. A stage takes its kColumns
// vectors as P boxes of kColumns / P, each row one 16-byte word wider than the tile
// and starting on the boundary below its first output; a thread takes the two words
// of shared memory around its outputs and shifts them into place (realign, as the
// register kernel's realigned layout does with two loads from global memory). Box c's
// row r is vector k0 + c + P * r, which is all the consumer needs for its x.
#pragma once

#include <cuda.h>

#include "cuda/gemv/gemv_axpy.cuh"

namespace fastmv::gemv_cuda {

// Most classes of vectors (2-byte types with odd lda).
constexpr int kTmaMaxClasses = 8;

// The tensor maps of a call (encoded on the host, gemv_cuda.cu): A as `classes`
// maps [batch][count / classes][shift + length], class c holding vectors c, c +
// classes, ... from the 16-byte boundary at or below vector c's first element, which
// lies `shift[c]` elements into it (one map and shift 0 where the vectors are aligned);
// x as [batch][count].
struct AxpyTmaMaps {
  CUtensorMap a[kTmaMaxClasses];
  CUtensorMap x;
  int classes;      // 1, 2, 4 or 8
  int log_classes;  // log2(classes)
  int shift[kTmaMaxClasses];
};

// Vectors per stage: 4 per thread group, 16 KiB of A per stage (plus a word a row
// realigned).
template <int kWords>
constexpr int kTmaColumns = 4 * (kBlockThreads / kWords);

// 16-byte words of a box's row: the tile's, and one more realigned.
template <int kWords, bool kRealigned>
constexpr int kTmaRowWords = kWords + (kRealigned ? 1 : 0);

template <typename TA, typename TX, int kWords, bool kRealigned>
constexpr std::size_t axpy_tma_stage_bytes() {
  return static_cast<std::size_t>(kTmaColumns<kWords>) * kTmaRowWords<kWords, kRealigned> * 16 +
         (static_cast<std::size_t>(kTmaColumns<kWords>) * sizeof(TX) + 127) / 128 * 128;
}
// Shared memory of a block with `stages` stages (+ the alignment slack and barriers).
template <typename TA, typename TX, int kWords, bool kRealigned>
constexpr std::size_t axpy_tma_shared_bytes(int stages) {
  return stages * axpy_tma_stage_bytes<TA, TX, kWords, kRealigned>() + 128 + 8 * static_cast<std::size_t>(stages);
}

// kSumLater (a split grid, GemvPolicy::axpy_tma_sum_kernel): each block stores its
// tile's partial sums and ends; axpy_split_sum_kernel, launched after it, adds them.
template <typename TA, typename TX, typename TY, typename Acc, int kWords, bool kRealigned, bool kSumLater = false>
__global__ void __launch_bounds__(kBlockThreads)
    axpy_tma_kernel(const __grid_constant__ GemvArgs<TA, TX, TY, Acc> args,
                    const __grid_constant__ AxpyTmaMaps maps, const int stages_in_ring) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // no TMA unit: the dispatcher never launches this kernel there
#else
  constexpr int V = kVector<TA>;
  constexpr int kTile = kWords * V;                 // outputs per tile
  constexpr int kGroups = kBlockThreads / kWords;  // thread groups along the vectors
  constexpr int kColumns = kTmaColumns<kWords>;
  constexpr int kRowBytes = kTmaRowWords<kWords, kRealigned> * 16;
  constexpr int kStageA = kColumns * kRowBytes;
  constexpr int kStageBytes = static_cast<int>(axpy_tma_stage_bytes<TA, TX, kWords, kRealigned>());
  constexpr int kBoxX = kColumns * static_cast<int>(sizeof(TX));

  extern __shared__ unsigned char raw[];
  // The boxes want 128-byte aligned destinations.
  unsigned char* ring = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<std::uintptr_t>(raw) + 127) / 128 * 128);
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(ring + stages_in_ring * kStageBytes);
  const int stages_n = stages_in_ring;

  // Classes of vectors: one where they are aligned.
  const int classes = kRealigned ? maps.classes : 1;
  const int log_classes = kRealigned ? maps.log_classes : 0;
  const int word = threadIdx.x % kWords;
  const int group = threadIdx.x / kWords;
  const index_t tile_first = static_cast<index_t>(blockIdx.x) * kTile;
  const index_t k_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t k_end = min(args.count, k_begin + args.split_length);
  const index_t stages = k_begin < k_end ? (k_end - k_begin + kColumns - 1) / kColumns : 0;

  if (args.next_at == 0) allow_later_work();
  if (threadIdx.x == 0) {
    init_stage_barriers(full, stages_n);
    // Launched early: the first batch's first stages of A into L2 while the kernel
    // before finishes, then the wait (gemv_common.cuh).
    if (args.prefetch != 0 && blockIdx.z < args.batch) {
      for (index_t j = 0; j < min(static_cast<index_t>(stages_n), stages); ++j) {
        for (int c = 0; c < classes; ++c) {
          asm volatile("cp.async.bulk.prefetch.tensor.3d.L2.global [%0, {%1, %2, %3}];" ::"l"(
                           reinterpret_cast<std::uint64_t>(&maps.a[c])),
                       "r"(static_cast<int>(tile_first)),
                       "r"(static_cast<int>((k_begin + j * kColumns) >> log_classes)),
                       "r"(static_cast<int>(blockIdx.z))
                       : "memory");
        }
      }
    }
  }
  wait_for_earlier_work();
  if (args.next_at == 1) allow_later_work();
  __syncthreads();

  // Stage j of batch b into slot `slot`: A's box of each class at (tile_first, (k_begin
  // + j * kColumns) / classes), one after the other (a class map's coordinate
  // tile_first is the boundary shift_c elements before output tile_first), and x's
  // piece at k_begin + j * kColumns, all completing on full[slot].
  const int class_bytes = kStageA >> log_classes;
  const auto produce = [&](index_t b, index_t j, int slot) {
    const unsigned barrier = shared_address(full + slot);
    unsigned char* stage = ring + slot * kStageBytes;
    const int column = static_cast<int>(k_begin + j * kColumns);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier),
                 "r"(kStageA + kBoxX)
                 : "memory");
    for (int c = 0; c < classes; ++c) {
      asm volatile(
          "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
          " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(shared_address(stage + c * class_bytes)),
          "l"(reinterpret_cast<std::uint64_t>(&maps.a[c])), "r"(static_cast<int>(tile_first)),
          "r"(column >> log_classes), "r"(static_cast<int>(b)), "r"(barrier)
          : "memory");
    }
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(stage + kStageA)),
        "l"(reinterpret_cast<std::uint64_t>(&maps.x)), "r"(column), "r"(static_cast<int>(b)), "r"(barrier)
        : "memory");
  };

  // The ring's next slot and its phase, across batches: counted, not derived from a
  // 64-bit stage count (a division and a remainder a stage cost as much as the stage's
  // own arithmetic).
  int slot = 0;
  unsigned phase = 0;
  // Where this thread's vectors of a stage find their x: row `column` of the stage is
  // row r = column % (kColumns / classes) of class c = column / (kColumns / classes),
  // vector c + classes * r of the stage; realigned, its outputs lie shift_c elements
  // into the row's words `word` and `word` + 1.
  int x_index[kColumns / kGroups];
  int shift_bytes[kColumns / kGroups];
  {
    const int log_rows = __ffs(kColumns) - 1 - log_classes;
#pragma unroll
    for (int u = 0; u < kColumns / kGroups; ++u) {
      const int column = group + u * kGroups;
      x_index[u] = kRealigned ? ((column & ((1 << log_rows) - 1)) << log_classes) | (column >> log_rows) : column;
      shift_bytes[u] = kRealigned ? maps.shift[column >> log_rows] * static_cast<int>(sizeof(TA)) : 0;
    }
  }
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    TY* y = args.y + b * args.stride_y;
    if (threadIdx.x == 0) {
      // The last batch's reduction wrote the ring through ordinary stores.
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
      for (int j = 0; j < min(static_cast<index_t>(stages_n), stages); ++j) {
        produce(b, j, slot + j < stages_n ? slot + j : slot + j - stages_n);
      }
    }
    Acc sum[V];
#pragma unroll
    for (int i = 0; i < V; ++i) sum[i] = 0;
    for (index_t j = 0; j < stages; ++j) {
      wait_stage(shared_address(full + slot), phase);
      const unsigned char* stage = ring + slot * kStageBytes;
      const TX* xs = reinterpret_cast<const TX*>(stage + kStageA);
      uint4 words[kColumns / kGroups];
      Acc xk[kColumns / kGroups];
#pragma unroll
      for (int u = 0; u < kColumns / kGroups; ++u) {
        const int column = group + u * kGroups;
        const uint4* row = reinterpret_cast<const uint4*>(stage + column * kRowBytes);
        if constexpr (kRealigned) {
          words[u] = realign<TA>(row[word], row[word + 1], shift_bytes[u]);
        } else {
          words[u] = row[word];
        }
        xk[u] = to_acc(xs[x_index[u]]);
      }
#pragma unroll
      for (int u = 0; u < kColumns / kGroups; ++u) {
        Acc a[V];
        unpack<TA, Acc>(words[u], a);
#pragma unroll
        for (int i = 0; i < V; ++i) sum[i] = fma(a[i], xk[u], sum[i]);
      }
      // Every thread is done with the slot: refill it. The fence orders the threads'
      // reads of the slot before the TMA unit's writes to it.
      __syncthreads();
      if (threadIdx.x == 0 && j + stages_n < stages) {
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        produce(b, j + stages_n, slot);
      }
      if (++slot == stages_n) {
        slot = 0;
        phase ^= 1u;
      }
    }
    if (args.next_at == 2 && b + gridDim.z >= args.batch) allow_later_work();
    // Every copy has landed and been read: the ring becomes the reduction's buffer.
    if constexpr (kSumLater) {
      store_split_partials<Acc, V>(args, b, tile_first, args.length - tile_first, word, group, kGroups, kTile,
                                   reinterpret_cast<Acc*>(ring), sum);
    } else {
      add_groups_and_finish<TY, Acc, V>(args, y, b, tile_first, args.length - tile_first, word, group, kGroups,
                                        kTile, reinterpret_cast<Acc*>(ring), sum);
    }
  }
#endif
}

}  // namespace fastmv::gemv_cuda
