// The Axpy form: y[c] = alpha * sum_k x[k] * A[k * lda + c] + beta * y[c] for `count`
// stored vectors of `length` contiguous elements (row-major Trans, column-major
// NoTrans).
//
// A block covers a tile of `lanes` * V outputs; its kBlockThreads / lanes thread
// groups take interleaved stored vectors, each thread accumulating V outputs, and
// add their sums in shared memory. `splits` blocks share a tile when the tiles alone
// cannot fill the GPU. Each thread accumulates V consecutive outputs, loaded as one
// 16-byte word (aligned: A 16-byte aligned, lda and stride_a multiples of 16 bytes)
// or as two aligned words realigned in registers (see fetch_outputs and AxpyLoads); or,
// unaligned, V outputs `lanes` apart, one element a load (fetch_interleaved).
#pragma once

#include "cuda/gemv/gemv_common.cuh"

namespace fastmv::gemv_cuda {

// How a thread of axpy_kernel reads its outputs of each stored vector.
//  kAligned:     one 16-byte word (vectors on 16-byte boundaries).
//  kRealigned:   the two aligned words around them, the second through L1 (where the
//                neighbour lane's load put it), shifted into place (fetch_outputs).
//  kInterleaved: V outputs `lanes` apart, one element a load (fetch_interleaved).
enum class AxpyLoads { kAligned, kRealigned, kInterleaved };

// One stored vector's V elements for a thread, in two steps so that all of a
// thread's loads are in flight before the first conversion waits for its data.
//
// fetch: a 16-byte word when the elements lie wholly inside the vector. Unaligned
// (lda or A not a multiple of 16 bytes), the two aligned words that straddle the
// elements, `shift` bytes apart, to be realigned in registers: every load stays
// 16 bytes wide whatever the alignment, which keeps odd leading dimensions as fast
// as even ones. The second word is the next lane's first, so it comes from L1.
// Elements at the vector's end, or whose words would reach past the end of the
// matrix (`limit`), are read one by one; those past `remaining` read as 0.
template <typename TA>
struct Fetched {
  uint4 low;
  uint4 high;
  int shift;  // bytes
};

// V elements read one at a time, those past `remaining` as 0.
template <typename TA>
__device__ __forceinline__ void fetch_elements(const TA* elements, index_t remaining, Fetched<TA>& out) {
  constexpr int V = kVector<TA>;
  out.shift = 0;
  TA values[V];
#pragma unroll
  for (int i = 0; i < V; ++i) values[i] = i < remaining ? elements[i] : TA{};
  memcpy(&out.low, values, sizeof out.low);
}

// Unaligned, where the caller knows that the V elements from `elements` lie inside the
// vector: the two aligned words that hold them, however they lie (a shift of 0 realigns to
// the first word). The second can pass the matrix's end (`limit`) only in its last vector:
// there it is read element by element, those past the end as 0.
template <typename TA>
__device__ __forceinline__ void fetch_two_words(const TA* elements, const TA* limit, Fetched<TA>& out) {
  constexpr int V = kVector<TA>;
  const auto address = reinterpret_cast<std::uintptr_t>(elements);
  out.shift = static_cast<int>(address % 16);
  const TA* first = reinterpret_cast<const TA*>(address - out.shift);
  out.low = __ldg(reinterpret_cast<const uint4*>(first));
  const TA* second = first + V;
  if (second + V <= limit) {
    out.high = __ldg(reinterpret_cast<const uint4*>(second));
  } else {
    TA values[V];
#pragma unroll
    for (int i = 0; i < V; ++i) values[i] = second + i < limit ? second[i] : TA{};
    memcpy(&out.high, values, sizeof out.high);
  }
}

// kWhole: the caller knows V <= remaining, so the loop it sits in has no branch
// around its loads (which the compiler then keeps in flight together).
template <typename TA, bool kAligned, bool kWhole>
__device__ __forceinline__ void fetch_outputs(const TA* elements, index_t remaining,
                                              const TA* limit, Fetched<TA>& out) {
  constexpr int V = kVector<TA>;
  out.shift = 0;
  if constexpr (kAligned && kWhole) {
    out.low = load_stream(elements);
  } else {
    if (kWhole || V <= remaining) {
      if constexpr (kAligned) {
        out.low = load_stream(elements);
        return;
      } else {
        const auto address = reinterpret_cast<std::uintptr_t>(elements);
        const int shift = static_cast<int>(address % 16);
        const TA* first = reinterpret_cast<const TA*>(address - shift);
        if (shift == 0) {
          out.low = __ldg(reinterpret_cast<const uint4*>(first));
          return;
        }
        if (first + 2 * V <= limit) {
          out.low = __ldg(reinterpret_cast<const uint4*>(first));
          out.high = __ldg(reinterpret_cast<const uint4*>(first + V));
          out.shift = shift;
          return;
        }
      }
    }
    fetch_elements(elements, remaining, out);
  }
}

// The interleaved layout (unaligned vectors, GemvPolicy::axpy_interleave_unaligned):
// thread `lane` of a group of `lanes` owns outputs lane, lane + lanes, ..., V of them,
// each loaded as one element, so that each load instruction of a warp reads one run of
// consecutive elements whatever the vector's alignment: no second word, no shifts.
// `valid` of the V elements lie inside the vector (kWhole: all V); the rest read as 0.
// The elements are packed into `out.low` as a 16-byte word of them would be.
template <typename TA, bool kWhole>
__device__ __forceinline__ void fetch_interleaved(const TA* elements, int lanes, index_t valid,
                                                  Fetched<TA>& out) {
  constexpr int V = kVector<TA>;
  out.shift = 0;
  unsigned words[4];
  if constexpr (sizeof(TA) == 8) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      const unsigned long long v = kWhole || i < valid ? load_stream_bits<sizeof(TA)>(elements + i * lanes) : 0ull;
      words[2 * i] = static_cast<unsigned>(v);
      words[2 * i + 1] = static_cast<unsigned>(v >> 32);
    }
  } else if constexpr (sizeof(TA) == 4) {
#pragma unroll
    for (int i = 0; i < 4; ++i) words[i] = kWhole || i < valid ? load_stream_bits<sizeof(TA)>(elements + i * lanes) : 0u;
  } else {
    unsigned short halves[V];
#pragma unroll
    for (int i = 0; i < V; ++i) {
      halves[i] = kWhole || i < valid ? load_stream_bits<sizeof(TA)>(elements + i * lanes) : static_cast<unsigned short>(0);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) words[i] = halves[2 * i] | static_cast<unsigned>(halves[2 * i + 1]) << 16;
  }
  out.low = make_uint4(words[0], words[1], words[2], words[3]);
}

// kBothWords: `in` came from fetch_two_words, so it is realigned whatever its shift (a
// shift of 0 gives the first word). Were the realignment skipped at a shift of 0, the
// second word would be needed only past that branch, and ptxas moved its load there,
// behind the first vector's multiplies, which wait for its data (SASS of the bf16 kernel).
template <typename TA, typename Acc, bool kBothWords = false>
__device__ __forceinline__ void convert_outputs(const Fetched<TA>& in, Acc (&out)[kVector<TA>]) {
  if constexpr (kBothWords) {
    unpack<TA, Acc>(realign<TA>(in.low, in.high, in.shift), out);
  } else {
    unpack<TA, Acc>(in.shift != 0 ? realign<TA>(in.low, in.high, in.shift) : in.low, out);
  }
}

// The end of a block of the Axpy form: each thread's V sums (outputs lane * V ...) of
// its group are added over the block's groups_k groups and finished (y, or the
// block's partial tile of a split). `reduced` holds kBlockThreads * V values.
//
// kInterleaved: sum[i] is output lane + i * lanes (fetch_interleaved), else lane * V + i.
//
// reduced[group][output]; for tiles of at most kBlockThreads outputs, each output's
// groups are shared by `parts` consecutive lanes of one warp (parts = groups_k / V, a
// power of 2 <= 32 as tiles have at least 8 outputs), each adding every parts-th
// group, combined by shuffles in a fixed order, the totals going back to
// reduced[output]; wider tiles (few long groups) add them one thread per output.
// Its first steps: the groups' sums into reduced[group][output] ...
template <typename Acc, int V, bool kInterleaved = false>
__device__ __forceinline__ void store_group_sums(int lane, int group_k, int tile_outputs, Acc* reduced,
                                                 const Acc (&sum)[V]) {
  const int lanes = tile_outputs / V;
#pragma unroll
  for (int i = 0; i < V; ++i) {
    reduced[group_k * tile_outputs + (kInterleaved ? i * lanes + lane : lane * V + i)] = sum[i];
  }
  __syncthreads();
}
// ... and, for tiles of at most kBlockThreads outputs, each output's total over the
// groups into reduced[output] (also the TMA kernel's split tiles' partial sums).
template <typename Acc>
__device__ __forceinline__ void add_group_sums(int groups_k, int tile_outputs, Acc* reduced) {
  const int parts = kBlockThreads / tile_outputs;
  const int t = threadIdx.x / parts;
  const int part = threadIdx.x % parts;
  Acc total = 0;
  for (int g = part; g < groups_k; g += parts) total += reduced[g * tile_outputs + t];
  for (int offset = parts / 2; offset > 0; offset /= 2) {
    total += __shfl_xor_sync(0xffffffffu, total, offset);
  }
  __syncthreads();
  if (part == 0) reduced[t] = total;
  __syncthreads();
}
template <typename TY, typename Acc, int V, bool kInterleaved = false, typename Args>
__device__ __forceinline__ void add_groups_and_finish(const Args& args, TY* y, index_t b,
                                                      index_t tile_first, index_t remaining,
                                                      int lane, int group_k, int groups_k,
                                                      int tile_outputs, Acc* reduced,
                                                      const Acc (&sum)[V]) {
  store_group_sums<Acc, V, kInterleaved>(lane, group_k, tile_outputs, reduced, sum);
  const int outputs = static_cast<int>(min(static_cast<index_t>(tile_outputs), remaining));
  if (tile_outputs <= kBlockThreads) {
    add_group_sums<Acc>(groups_k, tile_outputs, reduced);
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, tile_first, outputs, args.length,
                         [&](int output) { return reduced[output]; });
  } else {
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, tile_first, outputs, args.length, [&](int output) {
      Acc total = 0;
      for (int g = 0; g < groups_k; ++g) total += reduced[g * tile_outputs + output];
      return total;
    });
  }
  __syncthreads();
}
// ... or, where a second kernel adds a split grid's partial sums (axpy_split_sum_kernel,
// below), the block's sums for its split of the tile into args.partials
// ([batch][split][output]), and no handshake.
template <typename Acc, int V, bool kInterleaved = false, typename Args>
__device__ __forceinline__ void store_split_partials(const Args& args, index_t b, index_t tile_first,
                                                     index_t remaining, int lane, int group_k, int groups_k,
                                                     int tile_outputs, Acc* reduced, const Acc (&sum)[V]) {
  store_group_sums<Acc, V, kInterleaved>(lane, group_k, tile_outputs, reduced, sum);
  const int outputs = static_cast<int>(min(static_cast<index_t>(tile_outputs), remaining));
  Acc* mine = args.partials + (b * args.splits + blockIdx.y) * args.length + tile_first;
  if (tile_outputs <= kBlockThreads) {
    add_group_sums<Acc>(groups_k, tile_outputs, reduced);
    for (int t = threadIdx.x; t < outputs; t += blockDim.x) mine[t] = reduced[t];
  } else {
    for (int t = threadIdx.x; t < outputs; t += blockDim.x) {
      Acc total = 0;
      for (int g = 0; g < groups_k; ++g) total += reduced[g * tile_outputs + t];
      mine[t] = total;
    }
  }
  __syncthreads();
}

// The sums of a split grid's tiles (axpy_kernel or axpy_tma_kernel with kSumLater,
// store_split_partials): output t of matrix b (blockIdx.z: batch <= kMaxGridZ) is alpha
// times the sum over s of partials[b][s][t], plus beta y. A block takes 32 outputs, each
// of its warps the splits s = warp, warp + 8, ... of all 32 (a coalesced 128-byte load a
// split), up to 8 loads in flight a thread, so that 64 splits cost one round trip as 8
// do; warp 0 then adds the warps' sums in warp order (the same order on every call).
template <typename TY, typename Acc, typename Args>
__global__ void __launch_bounds__(kBlockThreads) axpy_split_sum_kernel(const Args args) {
  constexpr int kTeams = kBlockThreads / 32;
  constexpr int kInFlight = 8;
  __shared__ Acc team_sums[kTeams][32];
  allow_later_work();
  wait_for_earlier_work();
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int team = static_cast<int>(threadIdx.x / 32);
  const index_t t = static_cast<index_t>(blockIdx.x) * 32 + lane;
  const index_t b = blockIdx.z;
  Acc sum = 0;
  if (t < args.length) {
    const Acc* all = args.partials + b * args.splits * args.length + t;
    for (int s = team; s < args.splits; s += kTeams * kInFlight) {
      Acc v[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int split = s + u * kTeams;
        v[u] = split < args.splits ? __ldcg(all + static_cast<index_t>(split) * args.length) : Acc(0);
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) sum += v[u];
    }
  }
  team_sums[team][lane] = sum;
  __syncthreads();
  if (team == 0 && t < args.length) {
    Acc total = 0;
#pragma unroll
    for (int w = 0; w < kTeams; ++w) total += team_sums[w][lane];
    store_output(args.y + b * args.stride_y, t, args.incy, args.alpha, args.beta, total);
  }
}

// kLoads: how a thread reads its outputs (AxpyLoads above). kMinBlocks: blocks per SM
// that ptxas must leave registers for (0: its own choice). Realigned vectors with 4 in
// flight take 69-78 registers unasked (3 blocks per SM); the copy held to 3 blocks (80,
// no spills) runs 2-byte types at every size and the others for long calls (axpy_variant,
// axpy_realigned_held_min_bytes). Held to 4 blocks (64 registers, 12-28 bytes of spills)
// bf16 ran 4-16 % slower from 32 MiB (sixty-second session). Aligned fp16
// vectors with 4 in flight are held to 4 blocks per SM (64 registers, as bf16's take
// unasked; axpy_aligned_fp16_held). A minimum of 1
// is not the same as none: it made ptxas give the aligned bf16 kernel 91 registers
// instead of 60.
// kMaskedSelect: the last, masked round waits for every load and selects its sums (below;
// GemvPolicy::axpy_masked_select), for rounds of 8 of types up to 4 bytes.
// kSumLater (a split grid, GemvPolicy::axpy_sum_kernel): each block stores its split's
// partial sums and ends; axpy_split_sum_kernel, launched after it, adds them.
template <typename TA, typename TX, typename TY, typename Acc, AxpyLoads kLoads, int kUnroll, int kMinBlocks = 0,
          bool kMaskedSelect = false, bool kSumLater = false>
__global__ void __launch_bounds__(kBlockThreads, kMinBlocks)
    axpy_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr bool kAligned = kLoads == AxpyLoads::kAligned;
  constexpr bool kInterleaved = kLoads == AxpyLoads::kInterleaved;
  if (args.next_at == 0) allow_later_work();
  constexpr int V = kVector<TA>;
  __shared__ Acc reduced[kBlockThreads * V];

  const int lanes = args.lanes;
  const int groups_k = kBlockThreads / lanes;
  const int lane = threadIdx.x % lanes;
  const int group_k = threadIdx.x / lanes;
  const int tile_outputs = lanes * V;
  const index_t tile_first = static_cast<index_t>(blockIdx.x) * tile_outputs;

  const index_t k_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t k_end = min(args.count, k_begin + args.split_length);

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* matrix = args.A + b * args.stride_a;
    const TA* limit = matrix + (args.count - 1) * args.lda + args.length;
    const TA* A = matrix + tile_first + (kInterleaved ? lane : lane * V);  // this thread's first output
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    const index_t remaining = args.length - tile_first;  // outputs from the tile's start
    // Outputs of this thread inside the vectors: from its first on (contiguous), or
    // how many of its V (interleaved).
    const index_t mine = kInterleaved ? min(static_cast<index_t>(V), (remaining - lane + lanes - 1) / lanes)
                                      : remaining - lane * V;
    if (b == blockIdx.z) {
      // Launched early: this thread's first round of A into L2 while the kernel before
      // finishes, then the wait (gemv_common.cuh). Nothing above touched memory.
      if (args.prefetch != 0 && mine > 0) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t k = k_begin + group_k + u * groups_k;
          if (k < k_end) prefetch_l2(A + k * args.lda);
        }
      }
      wait_for_earlier_work();
      if (args.next_at != 0) allow_later_work();  // GemvArgs::next_at
    }

    Acc sum[V];
#pragma unroll
    for (int i = 0; i < V; ++i) sum[i] = 0;

    // Two versions of the loop: threads whose V outputs all lie inside the vectors (all
    // but the last lanes of the last tile) fetch with no branch around their loads, the
    // rest element by element. Realigned, the first version reads both words; only the
    // second word's check against the matrix's end (fetch_two_words) branches. (With an
    // element-by-element fallback for the whole word in every thread's loop, the bf16
    // kernel took 122-124 registers, 2 blocks an SM. Sending the threads with fewer than
    // 2 * V outputs to go, one a tile row, to the second version instead made their warps
    // run both loops, one after the other: bf16 8193^2 50.0 -> 68.1 us.
    // docs/PERFORMANCE.md.)
    const auto accumulate = [&](auto whole) {
      constexpr bool kWhole = decltype(whole)::value;
      index_t k = k_begin + group_k;
      const index_t step = groups_k;
      // One round: kUnroll vectors loaded before the first multiply. kMasked: vectors
      // at or past k_end re-read vector k (valid) and add nothing.
      const auto round = [&](auto masked) {
        constexpr bool kMasked = decltype(masked)::value;
        Fetched<TA> fetched[kUnroll];
        uint4 first_words[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t at = kMasked && k + u * step >= k_end ? k : k + u * step;
          if constexpr (kInterleaved) {
            fetch_interleaved<TA, kWhole>(A + at * args.lda, lanes, mine, fetched[u]);
            // after() below looks at .x: make it depend on every element's load.
            const uint4& w = fetched[u].low;
            first_words[u] = make_uint4(w.x | w.y | w.z | w.w, 0, 0, 0);
          } else if constexpr (kLoads == AxpyLoads::kRealigned) {
            if constexpr (kWhole) {
              fetch_two_words(A + at * args.lda, limit, fetched[u]);
            } else {
              fetch_elements(A + at * args.lda, mine, fetched[u]);
            }
            first_words[u] = fetched[u].low;
          } else {
            fetch_outputs<TA, kAligned, kWhole>(A + at * args.lda, mine, limit, fetched[u]);
            first_words[u] = fetched[u].low;
          }
        }
        // Unaligned 4- and 8-byte types: x only once every word of A of the round is in
        // flight (after(), gemv_common.cuh: ptxas had the multiplies of the first vectors
        // wait before the loads of the last were issued; fp32 4097^2 32.3 -> 30.1 us,
        // 5889^2 63.8 -> 58.6). Elsewhere it made calls slower, most for 2-byte types
        // with lda 8 past a multiple of 256 (bf16 11016^2 101.9 -> 122.0 us).
        constexpr bool kAfter = !kAligned && sizeof(TA) >= 4;
        const TX* xr = kAfter ? after<kUnroll>(x, first_words, args.zero) : x;
        TX xk[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t at = kMasked && k + u * step >= k_end ? k : k + u * step;
          xk[u] = xr[at * args.incx];
        }
        // kMaskedSelect: the last, masked round of 8 of types up to 4 bytes (kSelect; the
        // small matrices' kernels, and large aligned 2-byte ones on fast memory): its first
        // multiply waits for every word of A and every x of the round (`hold`, 0 at run
        // time through args.zero, as after() makes), and its vectors past k_end have their
        // sums selected away rather than skipped. With the branch, ptxas moved the second
        // vector's load into it, behind the first vector's multiplies, which wait for
        // their data: two memory latencies for the round (SASS, sm_90), the only round
        // that matrices of 257-264 or 513-520 vectors have. Whole rounds keep the order
        // ptxas gives them. Figures at GemvPolicy::axpy_masked_select.
        constexpr bool kSelect = kMaskedSelect && kMasked && kUnroll == 8 && sizeof(TA) <= 4;
        [[maybe_unused]] unsigned hold = 0;
        if constexpr (kSelect) {
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) hold |= first_words[u].x | low_bits(xk[u]);
          hold &= args.zero;
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const bool past = kMasked && k + u * step >= k_end;
          if (!kSelect && past) continue;
          Acc a[V];
          convert_outputs<TA, Acc, kLoads == AxpyLoads::kRealigned && kWhole>(fetched[u], a);
          Acc xu = to_acc(xk[u]);
          if constexpr (kSelect) {
            // The first vector's x carries the dependency; the later multiplies wait
            // on the first through sum[].
            if (u == 0) xu = with_low_bits(xu, hold);
            Acc product[V];
#pragma unroll
            for (int i = 0; i < V; ++i) product[i] = fma(a[i], xu, sum[i]);
#pragma unroll
            for (int i = 0; i < V; ++i) sum[i] = past ? sum[i] : product[i];
          } else {
#pragma unroll
            for (int i = 0; i < V; ++i) sum[i] = fma(a[i], xu, sum[i]);
          }
        }
      };
      for (; k + (kUnroll - 1) * step < k_end; k += kUnroll * step) round(std::false_type{});
      // The rest, fewer than kUnroll vectors: one masked round rather than one vector
      // at a time (each of which would wait a whole memory latency).
      if (k < k_end) round(std::true_type{});
    };
    if (mine >= V) {
      accumulate(std::true_type{});
    } else {
      accumulate(std::false_type{});
    }

    if constexpr (kSumLater) {
      store_split_partials<Acc, V, kInterleaved>(args, b, tile_first, remaining, lane, group_k, groups_k,
                                                 tile_outputs, reduced, sum);
    } else {
      add_groups_and_finish<TY, Acc, V, kInterleaved>(args, y, b, tile_first, remaining, lane, group_k,
                                                      groups_k, tile_outputs, reduced, sum);
    }
  }
}

// Axpy form with narrow tiles and long walks (GemvPolicy::axpy_narrow): a block of
// blockDim.x threads (kNarrowMaxThreads at most) owns a tile of `lanes` outputs (16 or
// 32), one a thread, and its blockDim.x / lanes groups share the stored vectors of the
// block's split, kUnroll of them in flight per thread. Each load instruction of a warp
// reads runs of `lanes` consecutive elements whatever the alignment (odd lda included);
// no per-vector packing or realignment. x: kXWords below, else one broadcast load a
// vector (every groups-th vector a group). Where the tiles alone fill the GPU a block
// walks every vector (no partial sums, no handshake); else the reduction is split over
// blocks (finish_tile). Lanes past the vector's end re-read its last element and store
// nothing.
constexpr int kNarrowMaxThreads = 512;

// kXWords: x contiguous and 16-byte aligned at every group's first vector (the caller
// checks): each group takes kUnroll consecutive vectors a round, whose x it reads as
// 16-byte words, instead of every groups-th vector with one load of x each.
template <typename TA, typename TX, typename TY, typename Acc, int kUnroll, bool kXWords = false,
          bool kPipelined = false>
__global__ void __launch_bounds__(kNarrowMaxThreads, 1)
    axpy_narrow_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  __shared__ Acc reduced[kNarrowMaxThreads];
  allow_later_work();
  const int lanes = args.lanes;
  const int threads = static_cast<int>(blockDim.x);
  const int groups = threads / lanes;
  const int lane = static_cast<int>(threadIdx.x) % lanes;
  const int group = static_cast<int>(threadIdx.x) / lanes;
  const index_t tile_first = static_cast<index_t>(blockIdx.x) * lanes;
  const index_t k_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t k_end = min(args.count, k_begin + args.split_length);
  const index_t output = min(tile_first + lane, args.length - 1);
  // Vector u of a group's round is k + u * spacing; the rounds are `stride` apart.
  const index_t first = kXWords ? k_begin + static_cast<index_t>(group) * kUnroll : k_begin + group;
  const index_t spacing = kXWords ? 1 : groups;
  const index_t stride = static_cast<index_t>(groups) * kUnroll;

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a + output;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    if (b == blockIdx.z) {
      if (args.prefetch != 0) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t k = first + u * spacing;
          if (k < k_end) prefetch_l2(A + k * args.lda);
        }
      }
      wait_for_earlier_work();
    }
    Acc sum = 0;
    index_t k = first;
    // The split's whole rounds (every group's full), and its vectors past them. Where
    // those number at most one a group (fold_tail), group g reads vector
    // k_begin + full * stride + g, if any, with its first round: the odd and +8 orders
    // leave 1-8 vectors past a multiple of the 256 or 512 a round covers, and a round of
    // their own costs the block a memory latency that every group waits out at the
    // reduction. (Up to 16 a group, so that any tail folds, ran 2-60 % slower, even
    // where there was none: axpy_narrow in gemv_cuda.cu.)
    const index_t full = (k_end - k_begin) / stride;
    const index_t past = k_end - k_begin - full * stride;
    const bool fold_tail = args.fold_tail != 0 && full >= 1 && past <= groups;
    const bool has_tail = fold_tail && group < past;
    const index_t tail = k_begin + full * stride + group;
    // A round: kUnroll vectors loaded (load), then multiplied (multiply). kMasked (the
    // last, partial round): vectors at or past k_end re-read vector `at` and add
    // nothing; kTail: and the group's tail vector where it has one.
    using Raw = decltype(load_stream_bits<sizeof(TA)>(A));
    struct Loaded {
      Raw raw[kUnroll];
      TX xk[kUnroll];
      Raw raw_tail;
      TX x_tail;
    };
    const auto load = [&](index_t at, auto masked, auto with_tail, Loaded& in) {
      constexpr bool kMasked = decltype(masked)::value;
      constexpr bool kTail = decltype(with_tail)::value;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const index_t v = kMasked && at + u * spacing >= k_end ? at : at + u * spacing;
        in.raw[u] = load_stream_bits<sizeof(TA)>(A + v * args.lda);
      }
      if constexpr (kTail) {
        in.raw_tail = Raw{};
        in.x_tail = TX{};
        if (has_tail) {
          in.raw_tail = load_stream_bits<sizeof(TA)>(A + tail * args.lda);
          in.x_tail = x[tail * args.incx];
        }
      }
      if constexpr (kXWords && !kMasked) {
        constexpr int kWords = kUnroll * static_cast<int>(sizeof(TX)) / 16;
        static_assert(kWords * 16 == kUnroll * static_cast<int>(sizeof(TX)), "whole 16-byte words of x");
        uint4 words[kWords];
#pragma unroll
        for (int w = 0; w < kWords; ++w) words[w] = load_cached(reinterpret_cast<const uint4*>(x + at) + w);
        memcpy(in.xk, words, sizeof in.xk);
      } else {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t v = kMasked && at + u * spacing >= k_end ? at : at + u * spacing;
          in.xk[u] = x[v * args.incx];
        }
      }
    };
    const auto multiply = [&](index_t at, auto masked, auto with_tail, const Loaded& in) {
      constexpr bool kMasked = decltype(masked)::value;
      constexpr bool kTail = decltype(with_tail)::value;
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        if (kMasked && at + u * spacing >= k_end) continue;
        TA value;
        memcpy(&value, &in.raw[u], sizeof value);
        sum = fma(to_acc(value), to_acc(in.xk[u]), sum);
      }
      if (kTail && has_tail) {
        TA value;
        memcpy(&value, &in.raw_tail, sizeof value);
        sum = fma(to_acc(value), to_acc(in.x_tail), sum);
      }
    };
    const auto round = [&](auto masked, auto with_tail) {
      Loaded in;
      load(k, masked, with_tail, in);
      multiply(k, masked, with_tail, in);
    };
    // The whole rounds from k up to k_stop, the first with the tail where kTail.
    // kPipelined: in two buffers, the next round's loads issued before the current
    // round's multiplies wait for its data, so that a thread always has kUnroll vectors
    // in flight (GemvPolicy::axpy_narrow_pipelined); else each round's loads, then its
    // multiplies. (ptxas compiles `current = next` into 32 register copies a round of 16,
    // each waiting for its load, so a round ends once its successor's data is in: 116
    // instructions a round, SASS sm_90. Buffers taking turns in a loop unrolled by two
    // have no copies and 84 instructions a round, with two rounds truly in flight, and
    // were 1.7-6.5 % slower at fp32 2561^2-4097^2: docs/PERFORMANCE.md, sixty-ninth session.)
    const auto whole_rounds = [&](index_t k_stop, auto with_tail) {
      if (k >= k_stop) return;
      if constexpr (kPipelined) {
        Loaded current;
        load(k, std::false_type{}, with_tail, current);
        if (k + stride < k_stop) {
          // The first round (with the tail) apart, the rest without.
          Loaded next;
          load(k + stride, std::false_type{}, std::false_type{}, next);
          multiply(k, std::false_type{}, with_tail, current);
          current = next;
          for (k += stride; k + stride < k_stop; k += stride) {
            load(k + stride, std::false_type{}, std::false_type{}, next);
            multiply(k, std::false_type{}, std::false_type{}, current);
            current = next;
          }
          multiply(k, std::false_type{}, std::false_type{}, current);
        } else {
          multiply(k, std::false_type{}, with_tail, current);
        }
        k += stride;
      } else {
        round(std::false_type{}, with_tail);
        for (k += stride; k < k_stop; k += stride) round(std::false_type{}, std::false_type{});
      }
    };
    if (fold_tail) {
      whole_rounds(first + full * stride, std::true_type{});
    } else {
      if constexpr (kPipelined) {
        // The rounds whose vectors all lie before k_end: those from k + i * stride for
        // i * stride <= room.
        const index_t room = kXWords ? k_end - kUnroll - k : k_end - 1 - (kUnroll - 1) * spacing - k;
        whole_rounds(room < 0 ? k : k + (room / stride + 1) * stride, std::false_type{});
      } else if constexpr (kXWords) {
        for (; k + kUnroll <= k_end; k += stride) round(std::false_type{}, std::false_type{});
      } else {
        for (; k + (kUnroll - 1) * spacing < k_end; k += stride) round(std::false_type{}, std::false_type{});
      }
      if (k < k_end) round(std::true_type{}, std::false_type{});
    }

    // Each output's groups added by `groups` consecutive lanes of one warp (16 or 32),
    // by shuffles in a fixed order.
    reduced[group * lanes + lane] = sum;
    __syncthreads();
    const int t = static_cast<int>(threadIdx.x) / groups;  // output
    const int part = static_cast<int>(threadIdx.x) % groups;
    Acc total = reduced[part * lanes + t];
    for (int offset = groups / 2; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
    __syncthreads();
    if (part == 0) reduced[t] = total;
    __syncthreads();
    const int outputs = static_cast<int>(min(static_cast<index_t>(lanes), args.length - tile_first));
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, tile_first, outputs, args.length,
                         [&](int o) { return reduced[o]; });
    __syncthreads();
  }
}

// Axpy form with at most kFewMaxCount stored vectors (tall-skinny column-major A,
// short-wide row-major A^T): no reduction across threads at all. Each thread owns kU
// words of y at a time and reads them from kK stored vectors per round, kU x kK loads
// in flight; the grid strides over y. One round covers every vector of up to kK: a
// call of a few microseconds pays one memory latency for A, not one per vector
// (axpy() in gemv_cuda.cu picks kU and kK).
constexpr index_t kFewMaxCount = 8;

template <typename TA, typename TX, typename TY, typename Acc, bool kAligned, int kU, int kK>
__global__ void __launch_bounds__(kBlockThreads, 2)
    axpy_few_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  allow_later_work();
  constexpr int V = kVector<TA>;
  const index_t words = (args.length + V - 1) / V;
  const index_t threads = static_cast<index_t>(gridDim.x) * blockDim.x;
  const index_t w_first = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (args.prefetch != 0 && blockIdx.z < args.batch) {
    // Launched early: this thread's first round of A into L2 before the wait.
    const TA* A = args.A + blockIdx.z * args.stride_a;
#pragma unroll
    for (int k = 0; k < kK; ++k) {
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const index_t first = (w_first + u * threads) * V;
        if (k < args.count && first < args.length) prefetch_l2(A + k * args.lda + first);
      }
    }
  }
  wait_for_earlier_work();
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TA* limit = A + (args.count - 1) * args.lda + args.length;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    for (index_t w0 = w_first; w0 < words; w0 += threads * kU) {
      Acc sum[kU][V];
#pragma unroll
      for (int u = 0; u < kU; ++u) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum[u][i] = 0;
      }
      for (index_t k0 = 0; k0 < args.count; k0 += kK) {
        // Every load of the round first (a vector past count reads as zeros, times 0).
        Fetched<TA> fetched[kK][kU];
        Acc xk[kK];
#pragma unroll
        for (int k = 0; k < kK; ++k) {
          const bool present = k0 + k < args.count;
          const TA* column = A + (k0 + k) * args.lda;
          xk[k] = present ? to_acc(x[(k0 + k) * args.incx]) : Acc(0);
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            const index_t first = (w0 + u * threads) * V;
            if (present) {
              fetch_outputs<TA, kAligned, false>(column + first, args.length - first, limit, fetched[k][u]);
            } else {
              fetched[k][u].low = make_uint4(0, 0, 0, 0);
              fetched[k][u].shift = 0;
            }
          }
        }
#pragma unroll
        for (int k = 0; k < kK; ++k) {
#pragma unroll
          for (int u = 0; u < kU; ++u) {
            Acc a[V];
            convert_outputs<TA, Acc>(fetched[k][u], a);
#pragma unroll
            for (int i = 0; i < V; ++i) sum[u][i] = fma(a[i], xk[k], sum[u][i]);
          }
        }
      }
      // Contiguous aligned y takes the V outputs of a word in 16-byte stores: scalar
      // stores V elements apart across the warp would touch V times more sectors.
      const bool y_words = args.incy == 1 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
#pragma unroll
      for (int u = 0; u < kU; ++u) {
        const index_t first = (w0 + u * threads) * V;
        if (y_words && first + V <= args.length) {
          store_output_words<TY, Acc, V>(y + first, args.alpha, args.beta, sum[u]);
          continue;
        }
#pragma unroll
        for (int i = 0; i < V; ++i) {
          if (first + i < args.length) {
            store_output(y, first + i, args.incy, args.alpha, args.beta, sum[u][i]);
          }
        }
      }
    }
  }
}

// Axpy form with short stored vectors (at most kAxpyStagedMaxLength elements, lda little
// more; tall-skinny row-major A^T, short-wide column-major A), where a tile of outputs
// per block would leave most of each warp's lanes past the vector's end (fp32 4194304 x
// 4 row T: 0.30x cuBLAS on the TMA kernel, 0.56x on axpy_kernel). A block walks chunks
// of rows_per_block whole vectors, chunk blockIdx.y, blockIdx.y + gridDim.y, ..., each
// one contiguous span of A copied to shared memory (stage_span) with its part of x;
// thread t adds output t % length over vectors t / length, t / length + groups, ...
// (threads side by side read elements side by side). At the end the block's groups add
// up in shared memory and the blocks, the splits of the one tile, through finish_tile,
// or (kSumLater, GemvPolicy::axpy_staged_sum_kernel) each block stores its sums in
// args.partials and axpy_split_sum_kernel, launched after it, adds them. kAsyncCopy
// (GemvPolicy::axpy_staged_async_copy): the chunk copied by stage_span_async.
// kTwoOutputs (GemvPolicy::axpy_staged_two_groups; vectors of 129-256 elements, where
// 256 / length is one group with up to 127 threads idle): two groups of 128 threads,
// thread t adding outputs t % 128 and t % 128 + 128 of every other vector; a warp whose
// lanes have no second output runs the loop without it.
constexpr index_t kStagedMaxXPerThread = 16;  // rows_per_block <= 16 * kBlockThreads

template <typename TA, typename TX, typename TY, typename Acc, bool kSumLater = false, bool kAsyncCopy = false,
          bool kTwoOutputs = false>
__global__ void __launch_bounds__(kBlockThreads)
    axpy_staged_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  extern __shared__ uint4 staged_words[];
  __shared__ Acc reduced[kBlockThreads];
  allow_later_work();
  wait_for_earlier_work();
  const int length = static_cast<int>(args.length);
  constexpr int kHalf = kBlockThreads / 2;
  const int groups = kTwoOutputs ? 2 : kBlockThreads / length;
  const int output = kTwoOutputs ? threadIdx.x % kHalf : threadIdx.x % length;
  // groups and up: no vectors (256 % length threads)
  const int group = kTwoOutputs ? threadIdx.x / kHalf : threadIdx.x / length;
  const bool second = kTwoOutputs && output + kHalf < length;  // length > kHalf
  const bool warp_second = kTwoOutputs && __any_sync(0xffffffffu, second);
  const index_t per_chunk = args.rows_per_block;
  const index_t chunks = (args.count + per_chunk - 1) / per_chunk;
  Acc* xs = reinterpret_cast<Acc*>(reinterpret_cast<char*>(staged_words) +
                                   staged_span_bytes(per_chunk, args.lda, args.length, sizeof(TA)));
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    Acc sum = 0;
    Acc sum2 = 0;  // kTwoOutputs: output + kHalf
    for (index_t chunk = blockIdx.y; chunk < chunks; chunk += gridDim.y) {
      const index_t first = chunk * per_chunk;
      const int rows = static_cast<int>(min(per_chunk, args.count - first));
      // x of the chunk loaded with its span of A in flight, stored after.
      TX xv[kStagedMaxXPerThread];
#pragma unroll
      for (int u = 0; u < kStagedMaxXPerThread; ++u) {
        const int k = threadIdx.x + u * kBlockThreads;
        if (k < rows) xv[u] = x[(first + k) * args.incx];
      }
      const TA* begin = A + first * args.lda;
      const TA* end = begin + (rows - 1) * args.lda + args.length;
      const TA* staged =
          kAsyncCopy ? stage_span_async(begin, end, staged_words) : stage_span(begin, end, staged_words);
#pragma unroll
      for (int u = 0; u < kStagedMaxXPerThread; ++u) {
        const int k = threadIdx.x + u * kBlockThreads;
        if (k < rows) xs[k] = to_acc(xv[u]);
      }
      __syncthreads();
      if constexpr (kTwoOutputs) {
        if (warp_second) {
#pragma unroll 4
          for (int k = group; k < rows; k += 2) {
            const TA* vector = staged + k * args.lda;
            const Acc xk = xs[k];
            sum = fma(to_acc(vector[output]), xk, sum);
            if (second) sum2 = fma(to_acc(vector[output + kHalf]), xk, sum2);
          }
        } else {
#pragma unroll 4
          for (int k = group; k < rows; k += 2) sum = fma(to_acc(staged[k * args.lda + output]), xs[k], sum);
        }
      } else if (group < groups) {
#pragma unroll 4
        for (int k = group; k < rows; k += groups) sum = fma(to_acc(staged[k * args.lda + output]), xs[k], sum);
      }
      __syncthreads();
    }
    if constexpr (kTwoOutputs) {
      // Group 0's sums added to group 1's, in that fixed order.
      if (group == 1) {
        reduced[output] = sum;
        if (second) reduced[output + kHalf] = sum2;
      }
      __syncthreads();
      if (group == 0) {
        reduced[output] = sum + reduced[output];
        if (second) reduced[output + kHalf] = sum2 + reduced[output + kHalf];
      }
      __syncthreads();
    } else {
      // The groups of each output added by a team of lanes of one warp, in a fixed order.
      if (group < groups) reduced[group * length + output] = sum;
      __syncthreads();
      int padded = 1;
      while (padded < length) padded *= 2;
      const int team = min(32, kBlockThreads / padded);
      const int o = threadIdx.x / team;
      const int member = threadIdx.x % team;
      Acc total = 0;
      if (o < length) {
        for (int g = member; g < groups; g += team) total += reduced[g * length + o];
      }
      for (int offset = team / 2; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
      __syncthreads();
      if (o < length && member == 0) reduced[o] = total;
      __syncthreads();
    }
    if constexpr (kSumLater) {
      Acc* mine = args.partials + (b * args.splits + blockIdx.y) * args.length;
      for (int t = threadIdx.x; t < length; t += blockDim.x) mine[t] = reduced[t];
    } else {
      finish_tile<TY, Acc>(args, y, b, blockIdx.x, 0, length, args.length, [&](int t) { return reduced[t]; });
    }
    __syncthreads();
  }
}

// Axpy form with short stored vectors (tall-skinny row-major A^T, short-wide
// column-major A; the dispatcher gives it vectors of 8 to 1024 bytes), read as one flat
// run of granules: kBytes-byte pieces (16, 8, 4 or 2; the largest that A, lda, length
// and stride_a allow). A stored vector is args.lanes granules (lda * sizeof(TA) /
// kBytes); the block's threads form args.groups_k groups of that many, thread t owning
// granule t % lanes of every groups_k-th vector of its split, so that a warp reads
// consecutive granules whatever the vector's length (axpy_kernel's tiles of a power of
// 2 lanes left up to half of them past the vector's end, and its splits, capped by the
// partial sums a tile's last block reads, left 128 blocks for 132 SMs: fp64 1048576 x
// 40 row T at 0.8 TB/s). Granules of lda's padding are not read. kUnroll granules
// (128 bytes, 16 granules of 2 or 4 bytes) in flight per thread; the groups add up in shared memory, the blocks (the
// splits of the one tile) through finish_tile.
template <typename TA, typename TX, typename TY, typename Acc, int kBytes>
__global__ void __launch_bounds__(kBlockThreads)
    axpy_flat_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int P = kGranuleElements<TA, kBytes>;
  constexpr int kUnroll = flat_unroll(kBytes);
  __shared__ Acc reduced[kBlockThreads * P];
  allow_later_work();
  const int per_vector = args.lanes;  // granules of a stored vector, lda included
  const int groups = args.groups_k;   // kBlockThreads / per_vector
  const int granule = static_cast<int>(threadIdx.x) % per_vector;
  const int group = static_cast<int>(threadIdx.x) / per_vector;  // groups and up: idle
  const int first_output = granule * P;
  const bool active = group < groups && first_output < args.length;
  const index_t k_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t k_end = min(args.count, k_begin + args.split_length);

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a + first_output;  // this thread's granule of vector 0
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    if (b == blockIdx.z) {
      // Launched early: the first round into L2 before the wait (gemv_common.cuh).
      if (args.prefetch != 0 && active) {
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t k = k_begin + group + static_cast<index_t>(u) * groups;
          if (k < k_end) prefetch_l2(A + k * args.lda);
        }
      }
      wait_for_earlier_work();
    }
    Acc sum[P];
#pragma unroll
    for (int i = 0; i < P; ++i) sum[i] = 0;
    if (active) {
      index_t k = k_begin + group;
      const index_t step = groups;
      // One round: kUnroll granules in flight; kMasked (the last, partial round):
      // vectors at or past k_end re-read vector k and add nothing.
      const auto round = [&](auto masked) {
        constexpr bool kMasked = decltype(masked)::value;
        decltype(load_granule<TA, kBytes>(A)) raw[kUnroll];
        TX xk[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t at = kMasked && k + u * step >= k_end ? k : k + u * step;
          raw[u] = load_granule<TA, kBytes>(A + at * args.lda);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          const index_t at = kMasked && k + u * step >= k_end ? k : k + u * step;
          xk[u] = x[at * args.incx];
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          if (kMasked && k + u * step >= k_end) continue;
          Acc a[P];
          unpack_granule<TA, Acc, kBytes>(raw[u], a);
          const Acc xu = to_acc(xk[u]);
#pragma unroll
          for (int i = 0; i < P; ++i) sum[i] = fma(a[i], xu, sum[i]);
        }
      };
      for (; k + (kUnroll - 1) * step < k_end; k += kUnroll * step) round(std::false_type{});
      if (k < k_end) round(std::true_type{});
    }
    // The groups of each output added by a team of lanes of one warp, in a fixed order
    // (outputs past `length`, lda's padding, are left out).
    const int per_group = per_vector * P;
    if (group < groups) {
#pragma unroll
      for (int i = 0; i < P; ++i) reduced[group * per_group + first_output + i] = sum[i];
    }
    __syncthreads();
    const int length = static_cast<int>(args.length);
    int team = 1;
    while (team < 32 && team * 2 * length <= kBlockThreads) team *= 2;
    const int teams = kBlockThreads / team;
    const int member = static_cast<int>(threadIdx.x) % team;
    // length <= per_group <= kBlockThreads * P: at most P rounds of outputs a thread.
    const int rounds = (length + teams - 1) / teams;
    Acc totals[P];
#pragma unroll
    for (int r = 0; r < P; ++r) {
      totals[r] = 0;
      if (r < rounds) {  // the same for the whole block: the shuffles see every lane
        const int o = r * teams + static_cast<int>(threadIdx.x) / team;
        if (o < length) {
          for (int g = member; g < groups; g += team) totals[r] += reduced[g * per_group + o];
        }
        for (int offset = team / 2; offset > 0; offset /= 2) {
          totals[r] += __shfl_xor_sync(0xffffffffu, totals[r], offset);
        }
      }
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < P; ++r) {
      const int o = r * teams + static_cast<int>(threadIdx.x) / team;
      if (r < rounds && o < length && member == 0) reduced[o] = totals[r];
    }
    __syncthreads();
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, 0, length, args.length, [&](int t) { return reduced[t]; });
    __syncthreads();
  }
}

// y = beta * y (alpha == 0: A and x are not read); beta == 0 writes zeros.
template <typename TY, typename Acc>
__global__ void __launch_bounds__(kBlockThreads)
    scale_kernel(TY* y, index_t incy, index_t stride_y, index_t length, index_t batch, Acc beta) {
  const index_t total = length * batch;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    TY* out = y + (i / length) * stride_y + (i % length) * incy;
    *out = from_acc<TY>(beta == Acc(0) ? Acc(0) : beta * to_acc(*out));
  }
}

}  // namespace fastmv::gemv_cuda
