// The Dot form: y[r] = alpha * <A row r, x> + beta * y[r] for `count` stored vectors of
// `length` contiguous elements (row-major NoTrans, column-major Trans).
//
// dot_kernel: groups of kLanes threads walk Rows stored vectors at once with 16-byte
// loads, so each x word loaded serves Rows rows; groups_k groups of a block, and
// `splits` blocks, share one row when there are too few rows to fill the GPU. x is
// always 16-byte aligned and contiguous here (the dispatcher packs it otherwise) and
// read in 16-byte words through L1; rows at any alignment are read in aligned 16-byte
// words, either shifted into place in registers (one row a group) or taken as they lie
// against x read from the matching element (kShifted: rows that share their offset from
// a 16-byte boundary, several a group).
//
// dot_balanced_kernel: aligned rows of whole words, one wave of blocks whose warps each
// take an equal run of words across row ends, cut on 512-byte boundaries of A by default (where
// dot_kernel's grid would leave its last wave or its groups' last round of loads part
// empty).
//
// dot_shared_x_kernel: rows off 16-byte boundaries read as the aligned words they lie
// in, a block the rows of one offset class, against x staged in shared memory shifted by
// that offset.
//
// dot_staged_kernel: stored vectors of at most kStagedMaxLength elements (tall-skinny
// matrices). A block copies rows_per_block whole rows, one contiguous span of A, into
// shared memory with 16-byte loads, then one thread per row takes the dot product.
#pragma once

#include "cuda/gemv/gemv_common.cuh"

namespace fastmv::gemv_cuda {

// Where a dot_kernel block works: its tile of rows and its split of their reduction,
// `splits` blocks a tile. blockIdx.x and blockIdx.y, or past tail_first (the grid's
// last, partial wave) split tail_splits ways: block tail_first + t * tail_splits + s
// takes split s of tile tail_first + t.
struct DotPlace {
  index_t tile;
  int split;
  int splits;
};
template <typename Args>
__device__ __forceinline__ DotPlace dot_place(const Args& args, unsigned block_x) {
  if (args.tail_splits > 1 && block_x >= static_cast<unsigned>(args.tail_first)) {
    const unsigned j = block_x - static_cast<unsigned>(args.tail_first);
    const unsigned ways = static_cast<unsigned>(args.tail_splits);
    return {static_cast<index_t>(args.tail_first + j / ways), static_cast<int>(j % ways), args.tail_splits};
  }
  return {static_cast<index_t>(block_x), static_cast<int>(blockIdx.y), args.splits};
}
// blockIdx.x, read again: the compiler may not keep an earlier reading (and what it
// computed from it) live instead.
__device__ __forceinline__ unsigned volatile_block_x() {
  unsigned x;
  asm volatile("mov.u32 %0, %%ctaid.x;" : "=r"(x));
  return x;
}

// kUnroll: words per row in flight per thread before the first multiply.
// kAligned: rows start on 16-byte boundaries. Otherwise (kRows == 1) every load of A
// is still a whole aligned 16-byte word: each lane loads the aligned word under its
// elements and takes the next one from its neighbour lane by a shuffle, then shifts
// the pair into place (realign, gemv_common.cuh), so that x (16-byte aligned,
// contiguous: the dispatcher makes a compact copy when it is not) is read in words at
// any alignment of A.
// kShifted (with kAligned): rows off 16-byte boundaries whose every row_period-th row
// lies the same distance d past one (the dispatcher's condition). A group takes kRows
// rows row_period apart, so that all of its rows share d, and reads each as the
// aligned words wholly inside it, unshifted: word c / V of a row (c a multiple of V)
// holds its elements c - d ... c - d + V - 1, which multiply x[c - d] ..., read from
// L1 one element a load (x is shared by the kRows rows; no shuffles, no realignment).
// The row's first V - d elements and its last ones are edges, as aligned rows' tails.
// Registers: one row with 4 words in flight is held to 64 (4 blocks per SM), the
// deeper variants to 128 (2 per SM). Left to itself ptxas gave the aligned bf16
// kernel 118 (2 blocks per SM: 8448^2 bf16 52 us, 8456^2 67 us) and the realigned
// one 80 (3 per SM: 3329^2 bf16 made 417 blocks for 396 slots).
// kThreads: threads a block, kBlockThreads or 128 (cuBLAS's row a warp in blocks of 4 warps:
// long aligned fp32 rows in grids of many, GemvPolicy::dot_threads_128_4byte_min_words, or
// forced by dot_threads), with as many warps an SM resident.
template <typename TA, typename TX, typename TY, typename Acc, int kLanes, int kRows, int kUnroll,
          bool kAligned, bool kShifted = false, int kThreads = kBlockThreads>
__global__ void __launch_bounds__(kThreads, (kRows == 1 && kUnroll == 4 ? 4 : 2) * kBlockThreads / kThreads)
    dot_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  static_assert(kThreads % kLanes == 0 && kLanes <= 32 && kThreads <= kBlockThreads, "groups within a warp");
  static_assert(kAligned || kRows == 1, "unaligned rows are realigned one row at a time");
  static_assert(kAligned || !kShifted, "shifted rows are read as aligned ones are");
  allow_later_work();
  constexpr int V = kVector<TA>;
  constexpr int kGroups = kThreads / kLanes;
  const int lane = threadIdx.x % kLanes;
  const int group = threadIdx.x / kLanes;
  const int groups_k = args.groups_k;
  const int groups_r = kGroups / groups_k;
  const int group_k = group % groups_k;
  const int group_r = group / groups_k;
  const int block_rows = groups_r * kRows;
  // This block's tile of rows and split of their reduction (dot_place), worked out again
  // for the end rather than held through the rounds. Shifted rows only (the dispatcher
  // splits no other grid's tail): compiled into the variants held to 64 registers (one
  // row, 4 words in flight) the aligned bf16 one spilled 60 bytes (4 without) and ran 13 %
  // slower (bf16 8456^2 56.2 -> 63.6 us), and the aligned bf16 rows two a group took 128
  // registers instead of 124 and ran 3-7 % slower at 3584^2-4104^2 (12.9 -> 13.8 us).
  constexpr bool kTailSplits = kShifted;
  const DotPlace place = kTailSplits ? dot_place(args, blockIdx.x)
                                     : DotPlace{static_cast<index_t>(blockIdx.x), static_cast<int>(blockIdx.y),
                                                args.splits};
  const index_t first_row = kTailSplits ? place.tile * block_rows : static_cast<index_t>(blockIdx.x) * block_rows;
  // Row r of this group, counted from the block's first: kRows consecutive rows, or
  // (kShifted) rows `period` apart, the groups of each run of period * kRows rows
  // interleaved (groups_r is a multiple of period).
  const int period = kShifted ? args.row_period : 1;
  const auto local_row = [&](int r) {
    return kShifted ? (group_r / period) * period * kRows + group_r % period + r * period : group_r * kRows + r;
  };
  // The lanes of this thread's group in its warp (groups of one warp may take
  // different numbers of rounds: they shuffle among themselves only).
  const unsigned group_mask =
      kLanes == 32 ? 0xffffffffu : ((1u << kLanes) - 1) << (threadIdx.x % 32 / kLanes * kLanes);

  __shared__ Acc reduced[kGroups * kRows];

  const index_t split_length = !kTailSplits || place.splits == args.splits ? args.split_length
                                                                           : args.tail_split_length;
  const index_t segment_begin = kTailSplits ? static_cast<index_t>(place.split) * split_length
                                            : static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t segment_end = min(args.length, segment_begin + split_length);

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;

    // Rows past the end repeat the last row (valid memory); their sums are dropped.
    // Shifted: a row of the same distance from a boundary, i % period (count >= period).
    const TA* row[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      index_t i = first_row + local_row(r);
      i = i < args.count ? i : kShifted ? i % period : args.count - 1;
      row[r] = A + i * args.lda;
    }
    Acc sum[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) sum[r] = 0;

    // [vector_begin, vector_end): this segment's elements taken in words (multiples
    // of V from the row's start, so x + c is 16-byte aligned); the elements before and
    // after go one per lane.
    index_t vector_begin = segment_begin;  // split_length is a multiple of V
    index_t vector_end = segment_begin + (segment_end - segment_begin) / V * V;
    // Shifted rows: word c / V of the aligned words under the rows holds elements c - d
    // ...; the words wholly inside the segment are c in [vector_begin, vector_end).
    int d = 0;
    if constexpr (kShifted) {
      d = static_cast<int>(reinterpret_cast<std::uintptr_t>(row[0]) % 16 / sizeof(TA));
      vector_begin = segment_begin + (d != 0 ? V : 0);
      vector_end = (segment_end + d) / V * V;
      // No whole word (a segment of under 2V): every element an edge, from the start.
      if (vector_end <= vector_begin) vector_begin = vector_end = segment_begin + d;
    }
    int shift = 0;
    const uint4* words = nullptr;  // unaligned: the aligned word under element 0 of the row
    if constexpr (!kAligned) {
      const auto address = reinterpret_cast<std::uintptr_t>(row[0]);
      shift = static_cast<int>(address % 16);
      words = reinterpret_cast<const uint4*>(address - shift);
      if (shift != 0) {
        // Every word loaded must lie inside the matrix: the one under the first
        // element (row 0 of the matrix) and the one after the last element's.
        const auto matrix_begin = reinterpret_cast<std::uintptr_t>(A);
        const auto matrix_end =
            reinterpret_cast<std::uintptr_t>(A + (args.count - 1) * args.lda + args.length);
        const auto word_address = [&](index_t c) {
          return address - shift + static_cast<std::uintptr_t>(c / V) * 16;
        };
        if (vector_begin < vector_end && word_address(vector_begin) < matrix_begin) vector_begin += V;
        while (vector_end > vector_begin && word_address(vector_end) + 16 > matrix_end) vector_end -= V;
        vector_end = max(vector_end, vector_begin);
      }
    }

    // Each round a thread takes kUnroll words of each of its rows, `spread` elements
    // apart, all loaded before the first multiply. Aligned rows interleave the groups
    // of a row word by word; realigned rows give each group kUnroll * kLanes
    // consecutive words per round, so that a lane's next word is its neighbour's (the
    // last lane's: the first lane's next one, and after the round's last word a load
    // of its own).
    const index_t step = static_cast<index_t>(groups_k) * kLanes * V;
    const index_t chunk = kUnroll * step;
    const index_t spread = kAligned ? step : static_cast<index_t>(kLanes) * V;
    const index_t lane_offset = kAligned ? (static_cast<index_t>(group_k) * kLanes + lane) * V
                                         : (static_cast<index_t>(group_k) * kUnroll * kLanes + lane) * V;
    const auto multiply = [&](const uint4& word, const Acc (&xv)[V], int r) {
      Acc av[V];
      unpack<TA, Acc>(word, av);
#pragma unroll
      for (int e = 0; e < V; ++e) sum[r] = fma(av[e], xv[e], sum[r]);
    };
    // One round from `base`; kMasked: some words may lie at or past `to` (they load a
    // word that is safe to read and add nothing).
    const auto round = [&](index_t base, index_t to, auto masked) {
      constexpr bool kMasked = decltype(masked)::value;
      uint4 a[kUnroll][kRows];
      uint4 extra = make_uint4(0, 0, 0, 0);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const index_t c = base + lane_offset + u * spread;
        // Aligned: a masked word re-reads the last one. Realigned: the word at `to`
        // is the last word's successor, inside the matrix (see vector_end); a row on a
        // 16-byte boundary (shift 0, no successor needed) re-reads its last word too,
        // since the word at `to` may run past the matrix's end (memcheck, seventy-third
        // session: bf16 4001 x 151, whose last row starts on a boundary, exact-size
        // allocation: 2 bytes past).
        const index_t at = !kMasked ? c : kAligned || shift == 0 ? min(c, to - V) : min(c, to);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          a[u][r] = kAligned ? load_stream(row[r] + (at - d)) : load_stream(words + at / V);
        }
      }
      if constexpr (kAligned) {
        // x is read only once every word of A of the round is in flight (after()).
        const TX* xr = after<kUnroll * kRows>(x, &a[0][0], args.zero);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t c = base + lane_offset + u * spread;
          if (kMasked && c >= to) continue;
          Acc xv[V];
          if constexpr (kShifted) {
            load_cached_elements<TX, Acc, V>(xr + (c - d), xv);
          } else {
            load_cached_vector<TX, Acc, V>(xr + c, xv);
          }
#pragma unroll
          for (int r = 0; r < kRows; ++r) multiply(a[u][r], xv, r);
        }
      } else {
        // The last lane's next word after the round's last one (clamped to `to` too).
        if (lane == kLanes - 1 && shift != 0) {
          const index_t c = base + lane_offset + (kUnroll - 1) * spread;
          extra = load_stream(words + min(c + V, to) / V);
        }
        // The lanes' next words: lane l + 1's word of this u, for the last lane the
        // first lane's of u + 1 (one shuffle: lane 0 sends that one).
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const uint4 send = lane == 0 && u + 1 < kUnroll ? a[u + 1][0] : a[u][0];
          const int from_lane = (lane + 1) % kLanes;
          uint4 high;
          high.x = __shfl_sync(group_mask, send.x, from_lane, kLanes);
          high.y = __shfl_sync(group_mask, send.y, from_lane, kLanes);
          high.z = __shfl_sync(group_mask, send.z, from_lane, kLanes);
          high.w = __shfl_sync(group_mask, send.w, from_lane, kLanes);
          if (lane == kLanes - 1 && u == kUnroll - 1) high = extra;
          const index_t c = base + lane_offset + u * spread;
          if (kMasked && c >= to) continue;
          Acc xv[V];
          load_cached_vector<TX, Acc, V>(x + c, xv);
          multiply(realign<TA>(a[u][0], high, shift), xv, 0);  // shift 0: a[u][0]
        }
      }
    };
    const auto stream = [&](index_t from, index_t to) {
      index_t base = from;
      for (; base + chunk <= to; base += chunk) round(base, to, std::false_type{});
      // The rest, less than a round: one more round, masked, rather than a word at a
      // time (each of which would wait a whole memory latency).
      if (base < to) round(base, to, std::true_type{});
    };
    // Rows start at different chunks and wrap around, so that rows streamed side by
    // side are not all at the same column: with a leading dimension that is a
    // multiple of the DRAM channel interleave they would all read one channel. (A
    // guard; the slow points first blamed on this, 2824^2 and 1793^2 fp32, were slow
    // for cuBLAS in the same run too, and did not repeat.) The second part is whole
    // chunks, so only the first can end in a masked round.
    const index_t chunks = (vector_end - vector_begin) / chunk;
    const index_t rotation = chunks > 1 ? (first_row + local_row(0)) % chunks : 0;
    const index_t pivot = vector_begin + rotation * chunk;
    if (b == blockIdx.z) {
      // Launched early: this thread's first round of A into L2 while the kernel before
      // finishes, then the wait (gemv_common.cuh). Nothing above touched memory.
      if (args.prefetch != 0 && pivot + chunk <= vector_end) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t c = pivot + lane_offset + u * spread;
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            prefetch_l2(kAligned ? row[r] + (c - d) : static_cast<const void*>(words + c / V));
          }
        }
      }
      wait_for_earlier_work();
    }
    // The elements before and after the words (fewer than 3V, kEdge or fewer a lane
    // of group 0; aligned rows have none before and fewer than V after), loaded before
    // the words so that their latency overlaps the rounds' rather than following them
    // (a split row's last block waits for its tail).
    // Shifted rows: fewer than 2V, V - d before the words and fewer than V after.
    constexpr int kEdge = ((kAligned && !kShifted ? 1 : 3) * V + kLanes - 1) / kLanes;
    Acc edge_a[kEdge][kRows];
    Acc edge_x[kEdge];
    {
      const index_t head = vector_begin - d - segment_begin;
      const index_t tail = segment_end - (vector_end - d);
#pragma unroll
      for (int j = 0; j < kEdge; ++j) {
        const index_t i = lane + static_cast<index_t>(j) * kLanes;
        const bool present = group_k == 0 && i < head + tail;
        const index_t e = i < head ? segment_begin + i : vector_end - d + (i - head);
        edge_x[j] = present ? to_acc(x[e]) : Acc(0);
#pragma unroll
        for (int r = 0; r < kRows; ++r) edge_a[j][r] = present ? to_acc(row[r][e]) : Acc(0);
      }
    }
    stream(pivot, vector_end);
    stream(vector_begin, pivot);
#pragma unroll
    for (int j = 0; j < kEdge; ++j) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) sum[r] = fma(edge_a[j][r], edge_x[j], sum[r]);
    }

    // Reduce each row over the group's lanes (shuffles), then over groups_k (shared).
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int offset = kLanes / 2; offset > 0; offset /= 2) {
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], offset);
      }
    }
    if (lane == 0) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) reduced[group_k * block_rows + local_row(r)] = sum[r];
    }
    __syncthreads();
    const int outputs = static_cast<int>(min(static_cast<index_t>(block_rows), args.count - first_row));
    const auto partial = [&](int t) {
      Acc total = 0;
      for (int k = 0; k < groups_k; ++k) total += reduced[k * block_rows + t];
      return total;
    };
    if constexpr (kTailSplits) {
      const DotPlace end_place = dot_place(args, volatile_block_x());
      if (end_place.splits != args.splits) {  // a tail tile (never in a cluster)
        finish_split_tile<TY, Acc>(args, y, b, end_place.tile, first_row, outputs, args.count, end_place.splits,
                                   end_place.split, partial);
      } else {
        finish_tile<TY, Acc, /*kClusters=*/true>(args, y, b, end_place.tile, first_row, outputs, args.count,
                                                 partial);
      }
    } else {
      finish_tile<TY, Acc, /*kClusters=*/true>(args, y, b, blockIdx.x, first_row, outputs, args.count, partial);
    }
    __syncthreads();  // `reduced` is reused by the next batch entry
  }
}

// The Dot form with rows balanced over the warps (aligned rows of whole 16-byte words,
// at least kBalancedMinWords of them, one matrix): block b takes rows
// [b * count / blocks, (b + 1) * count / blocks), and its warps split those rows' words,
// taken row after row as one run, into equal pieces, each cut moved back to a boundary
// of args.piece_align bytes of A (GemvPolicy::dot_balanced_align). dot_kernel gives each thread
// group whole rows (or equal parts of one), so rows that come to just over a multiple
// of the GPU's thread groups leave most of them idle for a last round (bf16 4352^2:
// 4352 rows for 4224 warps ran 1.41x as long as 4096^2); here every warp has the
// same number of words whatever the count, and a block's rows differ from the mean
// by less than one. A warp adds the rows that lie wholly in its piece and writes them;
// the rows it shares with its neighbours go through shared memory, added in warp
// order (deterministic: the pieces depend only on the shape and the grid).
// The words of a piece past its last full round, where they are at most
// args.spare_per_lane a lane (its spare words; 2 for 2-byte types, 1 for others), go to
// shared memory by cp.async as its first round starts and are
// added to their rows at the end, rather than taking a round of their own: a round is
// a memory latency, and rows of 257 words made pieces of 257 (bf16 8192 x 2056, 16 rows
// a block of 8 warps), three rounds for two rounds' words. (Loaded into registers with
// the first round instead, they made the rounds' loop spill: up to 11 % slower where the
// pieces have no spare words, bf16 4096^2 13.8 -> 15.4 us.)
constexpr int kBalancedUnroll = 4;  // words a lane a round
constexpr index_t kBalancedRound = kBalancedUnroll * 32;  // words of a warp's round
constexpr index_t kBalancedMinWords = kBalancedRound;     // so a round spans <= 2 rows
// The most spare words a lane the kernel holds for A of type TA (its shared array):
// two for 2-byte types, one for the others (fp32 gained nothing from two and keeps the
// smaller array). The dispatcher asks for at most this many (args.spare_per_lane).
template <typename TA>
constexpr int kBalancedSparePerLane = sizeof(TA) == 2 ? 2 : 1;
// A piece's spare words (0, or 1 to 32 x per_lane), and the rounds of loads it takes.
__host__ __device__ constexpr int balanced_spare(index_t piece, int per_lane) {
  return piece >= kBalancedRound && piece % kBalancedRound <= 32 * per_lane ? static_cast<int>(piece % kBalancedRound)
                                                                             : 0;
}
__host__ __device__ constexpr index_t balanced_rounds(index_t piece, int per_lane) {
  return (piece - balanced_spare(piece, per_lane) + kBalancedRound - 1) / kBalancedRound;
}

template <typename TA, typename TX, typename TY, typename Acc, int kThreads>
__global__ void __launch_bounds__(kThreads, 1024 / kThreads)
    dot_balanced_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int V = kVector<TA>;
  constexpr int kUnroll = kBalancedUnroll;
  constexpr int kWarps = kThreads / 32;
  constexpr index_t kRound = kBalancedRound;
  allow_later_work();
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const index_t words = args.length / V;  // of each row
  const index_t gap = args.lda - args.length;
  const index_t first_row = static_cast<index_t>(blockIdx.x) * args.count / gridDim.x;
  const index_t end_row = (static_cast<index_t>(blockIdx.x) + 1) * args.count / gridDim.x;
  const index_t block_words = (end_row - first_row) * words;
  const TA* A = args.A;
  // This warp's piece [begin, end) of the run of words (word w of the run is word
  // w - r * words of row r, at element w * V + r * gap of A): an equal share of the
  // block's words, its ends moved back to the last boundary of args.piece_align bytes
  // of A in the same row (row starts stay), so that each load of 32 words of the warp
  // reads whole sectors and lines even where the rows do not start on them (rows of an
  // odd number of words); 512 bytes measured faster than 32 or 128, 1024 slower on small
  // matrices (docs/PERFORMANCE.md).
  const auto cut = [&](index_t w) {
    const index_t r = w / words;
    const auto at = reinterpret_cast<std::uintptr_t>(A) +
                    static_cast<std::uintptr_t>(w * V + r * gap) * sizeof(TA);
    const index_t back = static_cast<index_t>(at & static_cast<std::uintptr_t>(args.piece_align - 1)) / 16;
    return max(r * words, w - back);
  };
  const index_t begin = cut(first_row * words + block_words * warp / kWarps);
  const index_t end = cut(first_row * words + block_words * (warp + 1) / kWarps);
  const TX* x = args.x;
  index_t row = begin / words;
  index_t row_end = (row + 1) * words;  // where the next row's words start in the run

  // The rows this warp shares: the one it starts inside (head) and the one it ends
  // inside (tail); -1 where it has none.
  __shared__ index_t head_row[kWarps];
  __shared__ index_t tail_row[kWarps];
  __shared__ Acc head_sum[kWarps];
  __shared__ Acc tail_sum[kWarps];
  if (lane == 0) {
    head_row[warp] = -1;
    tail_row[warp] = -1;
  }
  const auto address = [&](index_t w) {
    const index_t r = w >= row_end ? row + 1 : row;
    return A + w * V + r * gap;
  };
  // The spare words [end - spare, end), at most args.spare_per_lane a lane: this lane's
  // j-th is word end - spare + lane + 32 j (if that is before end), in the last row of
  // the piece or the one before it (rows are longer than the spare words).
  constexpr int kSpare = kBalancedSparePerLane<TA>;
  __shared__ uint4 spare_words[kWarps][32 * kSpare];
  const int spare = balanced_spare(end - begin, args.spare_per_lane);
  const index_t last_row = (end - 1) / words;
  const auto spare_word = [&](int j) { return end - spare + lane + 32 * j; };
  const auto spare_row = [&](int j) { return spare_word(j) >= last_row * words ? last_row : last_row - 1; };
  if (args.prefetch != 0) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const index_t w = begin + lane + u * 32;
      if (w < end) prefetch_l2(address(w));
    }
#pragma unroll
    for (int j = 0; j < kSpare; ++j) {
      if (lane + 32 * j < spare) prefetch_l2(A + spare_word(j) * V + spare_row(j) * gap);
    }
  }
  wait_for_earlier_work();
#pragma unroll
  for (int j = 0; j < kSpare; ++j) {
    if (lane + 32 * j < spare) {
      copy_async(&spare_words[warp][lane + 32 * j], A + spare_word(j) * V + spare_row(j) * gap);
    }
  }

  // A row's sum over the warp: written if the row lies wholly in the piece, else left
  // for the block.
  const auto emit = [&](index_t r, Acc sum) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane != 0) return;
    const index_t row_begin = r * words;
    if (row_begin < begin) {
      head_row[warp] = r;
      head_sum[warp] = sum;
    } else if (row_begin + words > end) {
      tail_row[warp] = r;
      tail_sum[warp] = sum;
    } else {
      store_output(args.y, r, args.incy, args.alpha, args.beta, sum);
    }
  };

  Acc sum = 0;   // the current row's
  Acc next = 0;  // the next row's, for the words of a round past row_end
  // One round of kUnroll words a lane from `base`, all loaded before the first
  // multiply; kMasked: some lie past the piece (they re-read its last word and add
  // nothing).
  const auto round = [&](index_t base, auto masked) {
    constexpr bool kMasked = decltype(masked)::value;
    uint4 a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const index_t w = base + lane + u * 32;
      a[u] = load_stream(address(kMasked ? min(w, end - 1) : w));
    }
    const TX* xr = after<kUnroll>(x, a, args.zero);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const index_t w = kMasked ? min(base + lane + u * 32, end - 1) : base + lane + u * 32;
      const bool in_next = w >= row_end;
      const index_t c = w - (in_next ? row_end : row_end - words);
      Acc xv[V];
      load_cached_vector<TX, Acc, V>(xr + c * V, xv);
      Acc av[V];
      unpack<TA, Acc>(a[u], av);
      Acc part = 0;
#pragma unroll
      for (int e = 0; e < V; ++e) part = fma(av[e], xv[e], part);
      if (kMasked && base + lane + u * 32 >= end) part = 0;
      next += in_next ? part : Acc(0);
      sum += in_next ? Acc(0) : part;
    }
    if (row_end <= min(base + kRound, end)) {  // the current row ended in this round
      emit(row, sum);
      sum = next;
      next = 0;
      ++row;
      row_end += words;
    }
  };
  index_t base = begin;
  for (; base + kRound + spare <= end; base += kRound) round(base, std::false_type{});
  if (base + spare < end) round(base, std::true_type{});  // only where spare is 0
  // The spare words, and the row the rounds end inside and the one after it where the
  // spare words reach into it.
  Acc spare_here = 0;  // the spare words in `row`, where the rounds end
  Acc spare_next = 0;  // ... and in the row after it
  if (spare != 0) {
    wait_copies();
#pragma unroll
    for (int j = 0; j < kSpare; ++j) {
      if (lane + 32 * j < spare) {
        Acc xv[V];
        load_cached_vector<TX, Acc, V>(x + (spare_word(j) - spare_row(j) * words) * V, xv);
        Acc av[V];
        unpack<TA, Acc>(spare_words[warp][lane + 32 * j], av);
        Acc part = 0;
#pragma unroll
        for (int e = 0; e < V; ++e) part = fma(av[e], xv[e], part);
        if (spare_row(j) == row) {
          spare_here += part;
        } else {
          spare_next += part;
        }
      }
    }
  }
  if (row_end - words < end) emit(row, sum + spare_here);
  if (row_end < end) emit(row + 1, spare_next);
  __syncthreads();

  // Each shared row is added by the warp it starts in (its tail), with the heads of
  // the warps after it that lie in the same row, in warp order.
  if (threadIdx.x < kWarps && tail_row[threadIdx.x] >= 0) {
    const index_t r = tail_row[threadIdx.x];
    Acc total = tail_sum[threadIdx.x];
    for (int w = threadIdx.x + 1; w < kWarps && head_row[w] == r; ++w) {
      total += head_sum[w];
      if (tail_row[w] >= 0) break;  // warp w ends in a later row
    }
    store_output(args.y, r, args.incy, args.alpha, args.beta, total);
  }
}

// A compact copy of x for the Dot form when x is strided or not 16-byte aligned:
// packed[b * stride + i] = x[b * stride_x + i * incx], each entry 16-byte aligned.
template <typename TX>
__global__ void __launch_bounds__(kBlockThreads)
    pack_x_kernel(const TX* x, index_t incx, index_t stride_x, index_t length, index_t batch,
                  TX* packed, index_t stride) {
  const index_t total = length * batch;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t b = i / length;
    const index_t e = i - b * length;
    packed[b * stride + e] = x[b * stride_x + e * incx];
  }
}

template <typename TA, typename TX, typename TY, typename Acc>
__global__ void __launch_bounds__(kBlockThreads)
    dot_staged_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  extern __shared__ uint4 staged_words[];
  __shared__ Acc staged_x[kStagedMaxLength];
  allow_later_work();
  wait_for_earlier_work();
  const index_t first_row = static_cast<index_t>(blockIdx.x) * args.rows_per_block;
  const index_t rows = min(args.rows_per_block, args.count - first_row);
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;

    // The span of A holding the block's rows (stage_span, gemv_common.cuh).
    const TA* begin = A + first_row * args.lda;
    const TA* staged = stage_span(begin, begin + (rows - 1) * args.lda + args.length, staged_words);
    for (index_t c = threadIdx.x; c < args.length; c += blockDim.x) staged_x[c] = to_acc(x[c * args.incx]);
    __syncthreads();
    // Thread r starts its row at element r mod length: with lda a multiple of the 32
    // banks' width, rows side by side would otherwise hit one bank together.
    for (index_t r = threadIdx.x; r < rows; r += blockDim.x) {
      const TA* a = staged + r * args.lda;
      index_t c = r % args.length;
      Acc sum = 0;
      for (index_t k = 0; k < args.length; ++k) {
        sum = fma(to_acc(a[c]), staged_x[c], sum);
        if (++c == args.length) c = 0;
      }
      store_output(y, first_row + r, args.incy, args.alpha, args.beta, sum);
    }
    __syncthreads();
  }
}

// Dot form with x staged in shared memory (GemvPolicy::dot_shared_x; one matrix, rows of
// whole warps' rounds). Every row_period-th row lies the same d elements past a 16-byte
// boundary; a block takes the rows of one such class (class blockIdx.x % period, share
// blockIdx.x / period of its rows) and stages x once, shifted by d: xs[i] = x[i - d].
// Word w of the aligned words under a row then holds its elements w * V - d ... and meets
// xs[w * V ...], whole aligned shared-memory words: the aligned rows' loads and no
// shifts or shuffles at any lda, where dot_kernel realigns odd rows in registers or reads
// x one element a load (kShifted). One warp a row, kUnroll words a lane in flight; the
// row's first V - d elements and those after its last whole word (edges) one a lane.
// Rows start at different chunks and wrap around, as in dot_kernel, a guard: the rows of
// a class lie period * lda apart, near a multiple of 32 KiB at 2-byte lda 2049, 4097, ...
// (rotated or not, the orders 1025^2-12289^2 measured the same, forty-third session).
template <typename TA, typename TX, typename TY, typename Acc, int kUnroll, int kThreads>
__global__ void __launch_bounds__(kThreads)
    dot_shared_x_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int V = kVector<TA>;
  constexpr int kWarps = kThreads / 32;
  constexpr index_t kChunk = 32 * kUnroll;  // words of a warp's round
  constexpr int kXWords = V * static_cast<int>(sizeof(Acc)) / 16;  // shared words of x a word of A
  extern __shared__ uint4 shared_x_words[];
  Acc* xs = reinterpret_cast<Acc*>(shared_x_words);
  allow_later_work();
  const int period = args.row_period;
  const int shares = static_cast<int>(gridDim.x) / period;
  const int c = static_cast<int>(blockIdx.x) % period;
  const int share = static_cast<int>(blockIdx.x) / period;
  const index_t class_rows = c < args.count ? (args.count - c + period - 1) / period : 0;
  const index_t first = class_rows * share / shares;
  const index_t end = class_rows * (share + 1) / shares;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int warp = static_cast<int>(threadIdx.x / 32);
  const TA* A = args.A;
  const int d = static_cast<int>(reinterpret_cast<std::uintptr_t>(A + c * args.lda) % 16 / sizeof(TA));
  // The whole words of a row, [w_first, w_end) (none in rows of a word or two: the edges
  // below take those), and where row j starts among them.
  const index_t w_first = d != 0 ? 1 : 0;
  const index_t w_end = max(w_first, (args.length + d) / V);
  const index_t chunks = (w_end - w_first) / kChunk;
  const auto pivot_of = [&](index_t j) { return w_first + (chunks > 1 ? (c + j * period) % chunks : 0) * kChunk; };

  // Launched early: the first round and x into L2 while the kernel before ends, so that
  // staging x, which comes before any load of A, waits for L2 and not for DRAM (x cold,
  // as in the benchmark's pool of operands; separate runs, row N, bf16 2305^2 8.03 ->
  // 7.45 us, 2561^2 9.02 -> 8.45, 2817^2 9.96 -> 9.26).
  if (args.prefetch != 0 && first < end) {
    if (first + warp < end) {
      const index_t j = first + warp;
      const TA* base = A + (c + j * period) * args.lda - d;
      const index_t pivot = pivot_of(j);
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const index_t w = pivot + lane + 32 * u;
        if (w < w_end) prefetch_l2(base + w * V);
      }
    }
    if (args.incx == 1) {
      constexpr index_t kLine = 128 / sizeof(TX);
      for (index_t i = static_cast<index_t>(threadIdx.x) * kLine; i < args.length; i += kThreads * kLine) {
        prefetch_l2(args.x + i);
      }
    }
  }
  wait_for_earlier_work();
  if (first >= end) return;
  {
    const index_t staged = (args.length + d + V - 1) / V * V;
    for (index_t i = threadIdx.x; i < staged; i += kThreads) {
      xs[i] = i >= d && i < args.length + d ? to_acc(args.x[(i - d) * args.incx]) : Acc(0);
    }
  }
  __syncthreads();

  for (index_t j = first + warp; j < end; j += kWarps) {
    const index_t r = c + j * period;
    const TA* row = A + r * args.lda;
    const TA* base = row - d;  // 16-byte aligned
    Acc sum = 0;
    const auto multiply = [&](const uint4& word, index_t w) {
      Acc a[V];
      unpack<TA, Acc>(word, a);
      const uint4* xw = reinterpret_cast<const uint4*>(xs + w * V);
      Acc xv[V];
#pragma unroll
      for (int q = 0; q < kXWords; ++q) {
        const uint4 t = xw[q];
        memcpy(xv + q * (16 / static_cast<int>(sizeof(Acc))), &t, 16);
      }
#pragma unroll
      for (int e = 0; e < V; ++e) sum = fma(a[e], xv[e], sum);
    };
    // Rounds from `from` to `to`: whole ones, then (only [pivot, w_end) can have one)
    // a masked rest.
    const auto stream = [&](index_t from, index_t to) {
      index_t w = from + lane;
      for (; w + 32 * (kUnroll - 1) < to; w += kChunk) {
        uint4 a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) a[u] = load_stream(base + (w + 32 * u) * V);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) multiply(a[u], w + 32 * u);
      }
      if (w - lane < to) {
        uint4 a[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t at = w + 32 * u;
          a[u] = at < to ? load_stream(base + at * V) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (w + 32 * u < to) multiply(a[u], w + 32 * u);
        }
      }
    };
    const index_t pivot = pivot_of(j);
    stream(pivot, w_end);
    stream(w_first, pivot);
    // The edges: elements [0, V - d) and [w_end * V - d, length), one a lane.
    const index_t head = d != 0 ? min(static_cast<index_t>(V - d), args.length) : 0;
    const index_t tail = max(head, w_end * V - d);
    for (index_t e = lane; e < head; e += 32) sum = fma(to_acc(row[e]), xs[e + d], sum);
    for (index_t e = tail + lane; e < args.length; e += 32) sum = fma(to_acc(row[e]), xs[e + d], sum);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    if (lane == 0) store_output(args.y, r, args.incy, args.alpha, args.beta, sum);
  }
}

// Dot form with short rows (row-major N, column-major T; the dispatcher gives it rows
// of 8 to a few hundred bytes), read as one flat run of granules as axpy_flat_kernel
// reads the Axpy form: kBytes-byte pieces (16, 8, 4 or 2; the largest that A, lda,
// length and stride_a allow), a row args.lanes granules (lda included), the block's
// threads args.groups_k groups of that many. Thread t owns granule t % lanes of its
// group's rows and keeps that granule of x in registers (any increment: no packing).
// A round covers groups_k * kUnroll consecutive rows, one contiguous run of A, with
// kUnroll granules (128 bytes, 16 of 2 or 4 bytes) in flight per thread; each thread's
// partial products go to shared memory, and thread j then adds row j's granules in
// order and writes y[j] (deterministic, no split). Blocks walk the rounds
// grid-strided. Where a row is a few granules, dot_kernel's lanes along the row left
// most of each round masked, and its row groups of 4 lanes read 64-byte pieces.
template <typename TA, typename TX, typename TY, typename Acc, int kBytes>
__global__ void __launch_bounds__(kBlockThreads)
    dot_flat_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int P = kGranuleElements<TA, kBytes>;
  constexpr int kUnroll = flat_unroll(kBytes);
  __shared__ Acc partial[kUnroll][kBlockThreads];
  allow_later_work();
  const int per_row = args.lanes;   // granules of a row, lda included
  const int groups = args.groups_k;  // kBlockThreads / per_row
  const int granule = static_cast<int>(threadIdx.x) % per_row;
  const int group = static_cast<int>(threadIdx.x) / per_row;  // groups and up: idle
  const int first = granule * P;
  const bool active = group < groups && first < args.length;
  const int used = static_cast<int>(args.length) / P;  // granules of a row inside it
  const index_t per_round = static_cast<index_t>(groups) * kUnroll;
  const index_t rounds = (args.count + per_round - 1) / per_round;

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a + first;  // this thread's granule of row 0
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    if (b == blockIdx.z) {
      // Launched early: the first round into L2 before the wait (gemv_common.cuh).
      if (args.prefetch != 0 && active && blockIdx.x < rounds) {
        const index_t row0 = static_cast<index_t>(blockIdx.x) * per_round + group;
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t row = row0 + static_cast<index_t>(u) * groups;
          if (row < args.count) prefetch_l2(A + row * args.lda);
        }
      }
      wait_for_earlier_work();
    }
    Acc xs[P];
#pragma unroll
    for (int i = 0; i < P; ++i) xs[i] = active ? to_acc(x[(first + i) * args.incx]) : Acc(0);

    for (index_t r = blockIdx.x; r < rounds; r += gridDim.x) {
      const index_t row0 = r * per_round;
      if (active) {
        // Rows past the end re-read the last row (no branch around the loads); their
        // sums are not written.
        decltype(load_granule<TA, kBytes>(A)) raw[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t row = min(row0 + group + static_cast<index_t>(u) * groups, args.count - 1);
          raw[u] = load_granule<TA, kBytes>(A + row * args.lda);
        }
        // The stores depend on every load of the round (through args.zero, 0 at run
        // time; see after() in gemv_common.cuh): without that, ptxas issued each load
        // next to its use, one or two in flight.
        unsigned any = 0;
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) any |= granule_bits(raw[u]);
        Acc* out = &partial[0][threadIdx.x] + (any & args.zero);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          Acc a[P];
          unpack_granule<TA, Acc, kBytes>(raw[u], a);
          Acc sum = 0;
#pragma unroll
          for (int i = 0; i < P; ++i) sum = fma(a[i], xs[i], sum);
          out[u * kBlockThreads] = sum;
        }
      }
      __syncthreads();
      for (int j = static_cast<int>(threadIdx.x); j < per_round; j += kBlockThreads) {
        const index_t row = row0 + j;
        if (row < args.count) {
          const Acc* parts = &partial[j / groups][(j % groups) * per_row];
          Acc total = 0;
          for (int c = 0; c < used; ++c) total += parts[c];
          store_output(y, row, args.incy, args.alpha, args.beta, total);
        }
      }
      __syncthreads();
    }
  }
}

// The Dot form with x held in registers (dot_held_x_kernel): aligned rows of whole
// 16-byte words of a 2- or 4-byte type, kHeldXMinWords to kHeldXMaxWords of them, one
// matrix. A row group of kW warps shares a row, warp p taking its p-th share of the words
// (at most kK a lane): 4 warps of 2-4 words for rows of 129-512 words, 8 warps of 3-7 for
// 513-1792; kRows rows a round (2 for rows of 2-3 words a lane: twice the loads in flight).
// Narrow rows (kL < 32, one warp, aligned rows of at most kHeldXNarrowMaxWords words): a
// row group is kL lanes of a warp, the warp's 32 / kL groups taking neighbouring rows and
// going round together (the shuffles need the whole warp), a group past the last row
// loading nothing. So each lane loads its words of x once, as the kernel starts, and
// keeps them for every row: no x in the loop, where dot_kernel and dot_balanced_kernel
// read x through L1 again for every row (two 16-byte loads of fp32 x a word of bf16 A).
// The grid is one wave of row groups, group g of G taking rows g, g + G, g + 2G, ..., so
// that the grid reads A front to back as the benchmark's read ceiling does; each warp
// keeps its share of a row's sum in shared memory, and one thread a row adds the shares
// in warp order at the end (a row's result does not depend on timing). Measurements:
// GemvPolicy::dot_held_x.
// kShifted: rows off 16-byte boundaries, or of a length that ends inside a word (A
// aligned to its element), one matrix. The grid's row groups G are a multiple of the rows'
// period (the dispatcher's), so that the rows g, g + G, ... of a group all lie the same
// d elements past a boundary: the group reads the whole aligned words inside each row,
// word w holding elements head + w * V ... (head = V - d, or 0), against x held from
// element head on, and the last warp's first lanes take the edges (the head and the
// elements after the last whole word, at most 2 (V - 1)) one element a lane, their x
// held too. x's held words come from the two aligned words around them, shifted by head
// in three select steps (shift_left_by_steps; a chain of V - 1 selects an element cost
// the odd orders 0.3-0.6 us a call: bf16 2305^2 6.71 -> 6.11 us on an H200).
// w[e] = w[e + s] for s = shift's set bits from kStep down to 1, in place: a shift of up
// to 2 kStep - 1 elements in log2 steps, every index known at compile time (a loop over
// the steps, `step /= 2` under #pragma unroll, was not unrolled and went to local memory).
template <typename T, int N, int kStep>
__device__ __forceinline__ void shift_left_by_steps(T (&w)[N], int shift) {
  if constexpr (kStep >= 1) {
    const bool take = (shift & kStep) != 0;
#pragma unroll
    for (int e = 0; e + kStep < N; ++e) w[e] = take ? w[e + kStep] : w[e];
    shift_left_by_steps<T, N, kStep / 2>(w, shift);
  }
}

constexpr index_t kHeldXMinWords = 4 * 32 + 1;
// Rows of at most this many words take row groups of kL < 32 lanes (one warp, several
// rows at once): dot_held_x_kernel's narrow rows.
constexpr index_t kHeldXNarrowMaxWords = 4 * 32;
constexpr index_t kHeldXMaxWords = 8 * 32 * 7;

// Row sums a block keeps: its `groups` row groups' rows of a grid of `blocks` blocks.
__host__ __device__ constexpr index_t held_x_slots(index_t count, index_t blocks, index_t groups) {
  return (count + blocks * groups - 1) / (blocks * groups);
}

template <typename TA, typename TX, typename TY, typename Acc, int kW, int kK, bool kShifted = false, int kRows = 1,
          int kL = 32>
__global__ void __launch_bounds__(kBlockThreads, kK <= 4 ? 3 : 2)
    dot_held_x_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  static_assert(sizeof(TA) == 2 || sizeof(TA) == 4, "2- and 4-byte matrices");
  static_assert(kL == 32 || (kW == 1 && !kShifted), "narrow row groups: one warp, aligned rows");
  using Bits = std::conditional_t<sizeof(TA) == 2, unsigned short, unsigned>;
  constexpr int V = kVector<TA>;
  constexpr int kPerWarp = 32 / kL;                            // row groups a warp (narrow rows)
  constexpr int kGroups = kBlockThreads / 32 / kW * kPerWarp;  // row groups a block
  extern __shared__ unsigned char held_raw[];
  Acc* shares = reinterpret_cast<Acc*>(held_raw);  // [group][slot][kW]
  allow_later_work();
  const int lane = threadIdx.x % kL;  // in the row group
  const int warp = threadIdx.x / 32;
  const int sub = threadIdx.x % 32 / kL;  // the warp's row group
  const int group = warp / kW * kPerWarp + sub;
  const int part = warp % kW;
  const index_t groups = static_cast<index_t>(gridDim.x) * kGroups;
  const index_t first = static_cast<index_t>(blockIdx.x) * kGroups + group;
  const index_t slots = held_x_slots(args.count, gridDim.x, kGroups);
  const TA* A = args.A;
  // Shifted: this group's rows lie d elements past a boundary; their whole words start at
  // element head. A lane's edge (lane < edges, last warp): element `lane` of the head, past
  // it the elements after the last whole word.
  index_t head = 0;
  index_t words = args.length / V;
  int edges = 0;
  if constexpr (kShifted) {
    const index_t d = first < args.count
                          ? static_cast<index_t>(reinterpret_cast<std::uintptr_t>(A + first * args.lda) % 16 / sizeof(TA))
                          : 0;
    head = d != 0 ? V - d : 0;
    words = args.length > head ? (args.length - head) / V : 0;
    edges = static_cast<int>(args.length - words * V);
  }
  // Warp `part` takes the part-th share of the row's whole words, word_of(k) its lane's
  // k-th where in_row(k).
  const index_t share = (words + kW - 1) / kW;
  const index_t w0 = part * share;
  const index_t w1 = min(words, w0 + share);
  const auto word_of = [&](int k) { return w0 + lane + kL * k; };
  const auto in_row = [&](int k) { return word_of(k) < w1; };
  const bool edge_lane = kShifted && part == kW - 1 && lane < edges;
  const index_t edge_element = lane < head ? lane : head + words * V + (lane - head);

  // Launched early: the first row's words and x into L2 while the kernel before ends.
  if (args.prefetch != 0) {
    if (first < args.count) {
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        if (in_row(k)) prefetch_l2(A + first * args.lda + head + word_of(k) * V);
      }
    }
    prefetch_x_l2(args.x, args.length);
  }
  wait_for_earlier_work();

  Acc xv[kK][V];
#pragma unroll
  for (int k = 0; k < kK; ++k) {
    if (in_row(k)) {
      if constexpr (kShifted) {
        // x's aligned words under the word's elements head + c ...: the one at c,
        // and past a head the next, the elements picked from the two by head
        // (select steps: no register array indexed at run time). Element loads
        // where the next word runs past x's end (16-byte loads of fp32 x: 4 a word
        // and lane, where 8 element loads of 32-byte strided lanes cost 1.7-2 us a
        // call at 4096^2).
        const index_t c = word_of(k) * V;
        if (head == 0) {
          load_cached_vector<TX, Acc, V>(args.x + c, xv[k]);
        } else if (c + 2 * V <= args.length) {
          Acc w[2 * V];
          load_cached_vector<TX, Acc, V>(args.x + c, w);
          load_cached_vector<TX, Acc, V>(args.x + c + V, w + V);
          shift_left_by_steps<Acc, 2 * V, V / 2>(w, static_cast<int>(head));
#pragma unroll
          for (int e = 0; e < V; ++e) xv[k][e] = w[e];
        } else {
          load_cached_elements<TX, Acc, V>(args.x + head + c, xv[k]);
        }
      } else {
        load_cached_vector<TX, Acc, V>(args.x + word_of(k) * V, xv[k]);
      }
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e) xv[k][e] = 0;
    }
  }
  const Acc edge_x = edge_lane ? to_acc(__ldg(args.x + edge_element)) : Acc(0);
  Acc* mine = shares + static_cast<index_t>(group) * slots * kW;
  index_t slot = 0;
  // kRows rows an iteration (rows r, r + G, ...): their loads in flight together. The
  // warp's row groups (narrow rows) go round together, the shuffles below need the
  // whole warp: r0 is its first group's row.
  for (index_t r0 = first - sub; r0 < args.count; r0 += kRows * groups, slot += kRows) {
    const index_t r = r0 + sub;
    uint4 a[kRows][kK];
    Bits edge_bits[kRows];
    bool here[kRows];  // row r + q * groups is a row (the same for a whole warp where kL is 32)
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      here[q] = (kL == 32 && q == 0) || r + q * groups < args.count;
      const TA* row = A + (r + q * groups) * args.lda;
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        a[q][k] = here[q] && in_row(k) ? load_stream(row + head + word_of(k) * V) : make_uint4(0, 0, 0, 0);
      }
      // The edge's bits join the loads the sum waits for: left to its own use after the
      // words' multiplies, ptxas issued the edge load there, and the last warp, which
      // takes the edges, waited for two loads in turn a row (a probe, bf16 8449^2: 57.7 us;
      // 50.8 with the load issued with the words').
      edge_bits[q] = 0;
      if constexpr (kShifted) {
        if (here[q] && edge_lane) edge_bits[q] = __ldg(reinterpret_cast<const Bits*>(row + edge_element));
      }
    }
    // Every load of the rows before the first multiply (the sums start from their bits
    // and args.zero, which is 0).
    unsigned any = 0u;
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      if constexpr (kShifted) any |= edge_bits[q] & args.zero;
#pragma unroll
      for (int k = 0; k < kK; ++k) any |= a[q][k].x & args.zero;
    }
#pragma unroll
    for (int q = 0; q < kRows; ++q) {
      Acc sum = static_cast<Acc>(any);
#pragma unroll
      for (int k = 0; k < kK; ++k) {
        Acc av[V];
        unpack<TA, Acc>(a[q][k], av);
#pragma unroll
        for (int e = 0; e < V; ++e) sum = fma(av[e], xv[k][e], sum);
      }
      if constexpr (kShifted) {
        Acc edge;
        if constexpr (sizeof(TA) == 4) {
          edge = __uint_as_float(edge_bits[q]);
        } else {
          edge = static_cast<Acc>(acc_from_bits<TA>(edge_bits[q]));
        }
        sum = fma(edge, edge_x, sum);
      }
#pragma unroll
      for (int offset = kL / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      if (lane == 0 && here[q]) mine[(slot + q) * kW + part] = sum;
    }
  }
  __syncthreads();
  for (index_t t = threadIdx.x; t < kGroups * slots; t += kBlockThreads) {
    const index_t g = t / slots;
    const index_t s = t % slots;
    const index_t r = static_cast<index_t>(blockIdx.x) * kGroups + g + s * groups;
    if (r >= args.count) continue;
    Acc total = 0;
#pragma unroll
    for (int w = 0; w < kW; ++w) total += shares[(g * slots + s) * kW + w];
    store_output(args.y, r, args.incy, args.alpha, args.beta, total);
  }
}

}  // namespace fastmv::gemv_cuda
