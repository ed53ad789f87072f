// CUDA GEMV: picks the kernel variant and launch shape for a canonical problem
// (kernels/gemv_kernels.hpp) and queues it on the context's stream.
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

#include "cuda/gemv/gemv_axpy.cuh"
#include "cuda/gemv/gemv_axpy_tma.cuh"
#include "cuda/gemv/gemv_dot.cuh"
#include "cuda/gemv/gemv_dot_tma.cuh"
#include "cuda/gemv_cuda_policy.hpp"
#include "cuda/state.hpp"
#include "kernels/gemv_kernels.hpp"

namespace fastmv::kernels::cuda {
namespace {

using namespace fastmv::gemv_cuda;

index_t ceil_div(index_t a, index_t b) { return (a + b - 1) / b; }
index_t pow2_floor(index_t v) {
  index_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}
index_t pow2_ceil(index_t v) {
  index_t p = 1;
  while (p < v) p *= 2;
  return p;
}
bool aligned16(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 16 == 0; }

// A memory system of at least GemvPolicy::fast_memory_min_gbps_per_sm GB/s an SM (an
// H200's, not an H100 SXM's), where the dispatcher's rules "on fast memory" apply.
bool fast_memory(const fastmv::detail::CudaState& state) {
  const index_t least = GemvPolicy::get().fast_memory_min_gbps_per_sm;
  return least > 0 && state.memory_gbps_per_sm() >= static_cast<double>(least);
}

// GemvPolicy::trace: the start of a call's line, its kernel family and canonical shape; the
// caller prints the variant and launch shape after it.
template <typename Args>
void trace_call(const char* family, const Args& args) {
  std::fprintf(stderr, "fastmv gemv %s: %lld x %lld lda %lld batch %lld: ", family,
               static_cast<long long>(args.count), static_cast<long long>(args.length),
               static_cast<long long>(args.lda), static_cast<long long>(args.batch));
}

constexpr unsigned kMaxGridZ = 65535;

// How early a kernel may start (GemvPolicy::early_launch, or early_launch_tma for the
// TMA Axpy kernel) where the device can launch a kernel before the previous one has
// finished (compute capability 9 and up), else 0.
index_t early_launch(const fastmv::detail::CudaState& state, bool tma = false) {
  if (state.compute_major < 9) return 0;
  return tma ? GemvPolicy::get().early_launch_tma : GemvPolicy::get().early_launch;
}

// Launches `threads` threads a block (launch: kBlockThreads) with at least
// `shared_bytes` of dynamic shared memory, more when the
// policy caps the blocks resident per SM (fewer concurrent streams of A per SM), early
// (programmatic dependent launch, see gemv_common.cuh) when `early` > 0: every kernel
// launched here waits for the earlier work before touching memory, and in clusters of
// 1 x cluster_y blocks when cluster_y > 1 (cluster_fits first).
template <typename Kernel, typename... Params>
void launch_sized(Kernel kernel, dim3 grid, unsigned threads, std::size_t shared_bytes,
                  const fastmv::detail::CudaState& state, index_t early, index_t cluster_y,
                  const Params&... params) {
  const index_t cap = GemvPolicy::get().blocks_per_sm;
  if (cap > 0) {
    int per_sm = 0;
    int device = 0;
    fastmv::cuda::check(cudaGetDevice(&device), "fastmv::gemv: cudaGetDevice");
    fastmv::cuda::check(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device),
                        "fastmv::gemv: cudaDeviceGetAttribute");
    cudaFuncAttributes attributes{};
    fastmv::cuda::check(cudaFuncGetAttributes(&attributes, kernel), "fastmv::gemv: cudaFuncGetAttributes");
    const long long padded = static_cast<long long>(per_sm / cap) -
                             static_cast<long long>(attributes.sharedSizeBytes) - 1024;
    if (padded > static_cast<long long>(shared_bytes)) {
      fastmv::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(padded)),
                          "fastmv::gemv: cudaFuncSetAttribute");
      shared_bytes = static_cast<std::size_t>(padded);
    }
  }
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = state.stream;
  cudaLaunchAttribute attributes[2]{};
  unsigned used = 0;
  if (early > 0) {
    attributes[used].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attributes[used].val.programmaticStreamSerializationAllowed = 1;
    ++used;
  }
  if (cluster_y > 1) {
    attributes[used].id = cudaLaunchAttributeClusterDimension;
    attributes[used].val.clusterDim.x = 1;
    attributes[used].val.clusterDim.y = static_cast<unsigned>(cluster_y);
    attributes[used].val.clusterDim.z = 1;
    ++used;
  }
  config.attrs = used > 0 ? attributes : nullptr;
  config.numAttrs = used;
  fastmv::cuda::check(cudaLaunchKernelEx(&config, kernel, params...), "fastmv::gemv: kernel launch");
}
template <typename Kernel, typename... Params>
void launch(Kernel kernel, dim3 grid, std::size_t shared_bytes, const fastmv::detail::CudaState& state,
            index_t early, index_t cluster_y, const Params&... params) {
  launch_sized(kernel, grid, kBlockThreads, shared_bytes, state, early, cluster_y, params...);
}

// Whether `splits` blocks of `kernel` (kBlockThreads threads, no dynamic shared
// memory) sharing a tile can form one thread block cluster: compute capability 9 and
// up, splits within the policy's cluster_max_splits (and kMaxClusterSplits), and CUDA
// able to place such a cluster (asked once per kernel and size; sizes past the
// portable 8 are allowed on the kernel first); and, where the grid's `blocks` fit one
// wave of the `slots` block slots, CUDA able to place all its clusters at once: a
// cluster's blocks share a GPC, so clusters pack the SMs less tightly than blocks, and
// a grid sized to one wave of blocks ran as two waves of clusters (same run, bf16 row
// N 40 x 1048576, 40 clusters of 13: 55.7 us, through global memory 39.3; fp32 100 x
// 1048576 182.3 -> 151.0). Else the split reduction goes through global memory.
template <typename Kernel>
bool cluster_fits(Kernel kernel, index_t splits, index_t blocks, index_t slots,
                  const fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  if (state.compute_major < 9 || splits < 2 || splits > policy.cluster_max_splits ||
      splits > kMaxClusterSplits || policy.blocks_per_sm > 0) {
    return false;
  }
  static std::mutex mutex;
  static std::map<std::pair<const void*, index_t>, int> cache;  // clusters resident at once
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(reinterpret_cast<const void*>(kernel), splits);
  auto found = cache.find(key);
  if (found == cache.end()) {
    int clusters = 0;
    bool allowed = true;
    if (splits > 8) {
      allowed = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
    }
    if (allowed) {
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(1, static_cast<unsigned>(splits), 1);
      config.blockDim = dim3(kBlockThreads);
      config.stream = state.stream;
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = 1;
      attribute.val.clusterDim.y = static_cast<unsigned>(splits);
      attribute.val.clusterDim.z = 1;
      config.attrs = &attribute;
      config.numAttrs = 1;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) clusters = 0;
    }
    cudaGetLastError();  // a refusal above is an answer, not an error of the call
    found = cache.emplace(key, std::max(clusters, 0)).first;
  }
  const index_t resident = found->second;
  if (resident == 0) return false;
  return policy.cluster_one_wave == 0 || blocks > slots || blocks / splits <= resident;
}

// Blocks of `kernel` (`threads` threads, `shared_bytes` of dynamic shared memory)
// resident per SM, asked of CUDA once per kernel and size. A kernel that needs more
// than the default 48 KiB of dynamic shared memory is allowed it here, before the
// first query and so before its first launch.
template <typename Kernel>
index_t resident_blocks(Kernel kernel, std::size_t shared_bytes = 0, int threads = kBlockThreads) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, std::size_t>, int> cache;
  static std::map<const void*, std::size_t> allowed;
  std::lock_guard<std::mutex> lock(mutex);
  const void* function = reinterpret_cast<const void*>(kernel);
  const auto key = std::make_pair(function, shared_bytes);
  auto found = cache.find(key);
  if (found == cache.end()) {
    if (shared_bytes > 48 * 1024 && allowed[function] < shared_bytes) {
      fastmv::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               static_cast<int>(shared_bytes)),
                          "fastmv::gemv: cudaFuncSetAttribute");
      allowed[function] = shared_bytes;
    }
    int blocks = 0;
    fastmv::cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, shared_bytes),
                        "fastmv::gemv: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    found = cache.emplace(key, std::max(blocks, 1)).first;
  }
  return found->second;
}

// The fraction of the GPU's block slots busy on average when `blocks` blocks of
// equal work run in ceil(blocks / slots) waves: a grid of 1.1 waves leaves the GPU
// half idle for its last wave.
double wave_efficiency(index_t blocks, index_t slots) {
  const index_t waves = ceil_div(blocks, slots);
  return static_cast<double>(blocks) / static_cast<double>(waves * slots);
}

// Among the ways to split the reduction of each output over `k` = groups_k * splits
// parts (k <= max_k; groups_k a power of 2 <= max_groups_k), the one whose grid
// fills the block slots best; the least splitting within 3 % of the best, since
// every split adds partial sums and a handshake. Split counts run 1..32, then double,
// and past 32 also take the largest count that fits each whole number of waves up to
// `fill_max_waves` (GemvPolicy::split_fill_waves).
struct SplitChoice {
  index_t groups_k = 1;
  index_t splits = 1;
};
template <typename BlocksFor>
SplitChoice choose_split(BlocksFor&& blocks_for, index_t max_k, index_t min_groups_k,
                         index_t max_groups_k, index_t max_splits, index_t slots, index_t fill_max_waves = 0) {
  // Two passes over the same candidates (no allocation: this runs on every call).
  const auto for_each = [&](auto&& visit) {
    for (index_t groups_k = min_groups_k; groups_k <= max_groups_k; groups_k *= 2) {
      const index_t most = std::min(max_splits, max_k / groups_k);
      for (index_t splits = 1; splits <= most; splits = splits < 32 ? splits + 1 : splits * 2) {
        visit(SplitChoice{groups_k, splits}, wave_efficiency(blocks_for(groups_k, splits), slots));
      }
      // The last split count of each number of waves: 9 tiles (fp32 65536 x 1032) for
      // 528 slots fill one wave at 58 splits, which doubling steps over (64: two waves).
      for (index_t splits = 33; splits <= most; ++splits) {
        const index_t blocks = blocks_for(groups_k, splits);
        const index_t waves = ceil_div(blocks, slots);
        if (waves > fill_max_waves) break;
        if (splits == most || ceil_div(blocks_for(groups_k, splits + 1), slots) > waves) {
          visit(SplitChoice{groups_k, splits}, wave_efficiency(blocks, slots));
        }
      }
    }
  };
  double best = 0;
  for_each([&](SplitChoice, double efficiency) { best = std::max(best, efficiency); });
  SplitChoice chosen{min_groups_k, 1};
  index_t least = -1;
  for_each([&](SplitChoice choice, double efficiency) {
    const index_t k = choice.groups_k * choice.splits;
    if (efficiency >= best - 0.03 && (least < 0 || k < least)) {
      chosen = choice;
      least = k;
    }
  });
  return chosen;
}

// How much faster dot_balanced_kernel should take `count` rows of `words` 16-byte words
// than dot_kernel's grid of `blocks` blocks for `slots` block slots, each of whose
// thread groups takes `round` words of a row a round of loads: the ratio of the
// fractions of the GPU each keeps busy, counting the share of the last wave of
// blocks that has work and the share of the last round of loads of each group that
// has words. The balanced kernel's blocks (`balanced_blocks`, `warps` warps each)
// differ by at most one row, and its warps by nothing; with `spare_per_lane` > 0, a
// warp's words past its last full round, up to that many a lane, take no round of their
// own (balanced_rounds; see dot() for where that counts). The last wave counts only in
// dot_kernel grids of at most 3 waves: with more, its blocks are short and the partial
// last wave cost less than predicted (same run: bf16 12800^2, 12 waves, predicted 1.30x,
// measured 0.97x), so there only the rounds count, and only where one thread group reads
// a whole row (`whole_rows`; GemvPolicy::dot_balanced_many_waves): with a row's words
// split over groups the model took bf16 12800^2 and 12808^2 too, 2-3 % slower.
double dot_balanced_gain(index_t count, index_t words, index_t blocks, index_t slots, index_t round,
                         bool whole_rows, index_t balanced_blocks, index_t warps, int spare_per_lane) {
  const bool many_waves = blocks > 3 * slots;
  if (many_waves && (GemvPolicy::get().dot_balanced_many_waves == 0 || !whole_rows)) return 0;
  const double old_rounds = static_cast<double>(ceil_div(words, round));
  const double old_busy = (many_waves ? 1.0 : wave_efficiency(blocks, slots)) * static_cast<double>(words) /
                          (old_rounds * static_cast<double>(round));
  const index_t most_rows = ceil_div(count, balanced_blocks);
  const index_t piece = ceil_div(most_rows * words, warps);
  const double new_rounds = static_cast<double>(spare_per_lane > 0 ? balanced_rounds(piece, spare_per_lane)
                                                                    : ceil_div(piece, kBalancedRound));
  const double new_busy = static_cast<double>(count) / static_cast<double>(most_rows * balanced_blocks) *
                          static_cast<double>(piece) / (new_rounds * static_cast<double>(kBalancedRound));
  return new_busy / old_busy;
}

// Dot form with x strided or not 16-byte aligned: a compact, aligned copy of x (one
// small launch), so that the kernels read x in 16-byte words.
template <typename TX>
index_t packed_x_stride(index_t length) {
  return ceil_div(length, kVector<TX>) * kVector<TX>;
}
template <typename TA, typename TX, typename TY, typename Acc>
void pack_x(GemvArgs<TA, TX, TY, Acc>& args, void* scratch, fastmv::detail::CudaState& state) {
  const index_t stride = packed_x_stride<TX>(args.length);
  TX* packed = static_cast<TX*>(scratch);
  const index_t total = args.length * args.batch;
  const index_t blocks = std::min<index_t>(ceil_div(total, kBlockThreads), state.multiprocessors * 8);
  pack_x_kernel<TX><<<static_cast<unsigned>(blocks), kBlockThreads, 0, state.stream>>>(
      args.x, args.incx, args.stride_x, args.length, args.batch, packed, stride);
  fastmv::cuda::check_launch("fastmv::gemv: kernel launch");
  args.x = packed;
  args.incx = 1;
  args.stride_x = stride;
}
// pack_x into the context's workspace (the Dot kernels that take one x for every row).
template <typename TA, typename TX, typename TY, typename Acc>
void pack_x_in_workspace(GemvArgs<TA, TX, TY, Acc>& args, fastmv::detail::CudaState& state) {
  const auto workspace = state.workspace(
      0, static_cast<std::size_t>(packed_x_stride<TX>(args.length) * static_cast<index_t>(sizeof(TX))));
  pack_x(args, workspace.scratch, state);
}

// The widest granule of 16, 8, 4 and 2 bytes (no narrower than an element) that divides
// A's address, lda, the stored vector's length and stride_a (the flat kernels: no
// granule reaches past a vector's last element), or 0 where lda spans more than
// kBlockThreads of them or pads the vector more than staged_max_lda_over_length times.
template <typename TA, typename TX, typename TY, typename Acc>
index_t flat_granule(const GemvArgs<TA, TX, TY, Acc>& args) {
  const index_t element = static_cast<index_t>(sizeof(TA));
  if (args.length < 1 || args.lda > GemvPolicy::get().staged_max_lda_over_length * args.length + kVector<TA>) {
    return 0;
  }
  const auto divides = [&](index_t g) {
    return reinterpret_cast<std::uintptr_t>(args.A) % static_cast<std::uintptr_t>(g) == 0 &&
           args.lda * element % g == 0 && args.length * element % g == 0 &&
           (args.batch == 1 || args.stride_a * element % g == 0);
  };
  index_t granule = 16;
  while (granule > element && !divides(granule)) granule /= 2;
  if (granule < element || !divides(granule) || args.lda * element / granule > kBlockThreads) return 0;
  return granule;
}

// Whether the flat kernels' rule refuses rows (or vectors) of `per_row` granules in a
// matrix of `matrix_bytes`: past kBlockThreads / 2 granules a block holds one row group,
// up to half its threads idle, and below `min_bytes` (GemvPolicy::flat_one_group_min_bytes,
// axpy_flat_one_group_min_bytes_2byte) the other kernels are faster.
bool flat_one_group_refused(index_t per_row, index_t matrix_bytes, index_t min_bytes) {
  return per_row > kBlockThreads / 2 && matrix_bytes < min_bytes;
}

// Whether the flat kernels would hold one row (vector) group a block: a granule, and
// more than kBlockThreads / 2 of them a stored vector.
template <typename TA, typename TX, typename TY, typename Acc>
bool flat_one_group(const GemvArgs<TA, TX, TY, Acc>& args) {
  const index_t granule = flat_granule(args);
  return granule != 0 && args.lda * static_cast<index_t>(sizeof(TA)) / granule > kBlockThreads / 2;
}

// go(kernel_for(std::integral_constant<int, G>{})) for a granule G of 16, 8, 4 or 2
// bytes (flat_granule's; none narrower than an element is instantiated), else false.
template <typename TA, typename KernelFor, typename Go>
bool with_granule(index_t granule, KernelFor&& kernel_for, Go&& go) {
  if (granule == 16) return go(kernel_for(std::integral_constant<int, 16>{}));
  if (granule == 8) return go(kernel_for(std::integral_constant<int, 8>{}));
  if constexpr (sizeof(TA) <= 4) {
    if (granule == 4) return go(kernel_for(std::integral_constant<int, 4>{}));
  }
  if constexpr (sizeof(TA) <= 2) {
    if (granule == 2) return go(kernel_for(std::integral_constant<int, 2>{}));
  }
  return false;
}

// The Dot form's short rows read as one flat run of granules (dot_flat_kernel): queues
// the call and returns true where GemvPolicy::dot_flat allows it and flat_granule finds
// a granule, else false. As many blocks as are resident (dot_flat_blocks_per_sm > 0: at
// most that many an SM), no more than there are rounds.
//
// dot_flat 1 takes rows of 8 to 496 bytes in matrices of at least 1 MiB (2-byte
// types) or 8 MiB, rows of up to 32 elements (the staged kernel's) only for 2-byte
// types and fp32 rows of a part 16-byte word. Same run, two rounds, row N, against the
// kernels before (dot_kernel with 4 or 8 lanes, the staged kernel): bf16 1048576 x 40
// 74.3 -> 34.5 us (cuBLAS 46.4), x 33 (2-byte granules) 127.2 -> 54.6 (47.5), x 100
// 144.4 -> 75.9, x 16 21.9 -> 17.9, 4194304 x 4 29.9 -> 25.8; fp32 1048576 x 33 120.8
// -> 58.2, x 64 107.7 -> 96.1, x 9 20.1 -> 17.6; fp64 1048576 x 40 145.4 -> 114.9.
// Where it lost: rows of 512 bytes (fp32 65536 x 128 13.8 -> 23.7, 1048576 x 128
// 181.6 -> 199.2, fp64 1048576 x 64 185.5 -> 195.3), fp32 and fp64 rows of whole words
// up to 32 elements (fp64 1048576 x 16 48.6 -> 51.7, fp32 1048576 x 4 12.5 -> 14.3),
// fp64 rows of up to 32 elements at all (x 5 21.0 -> 21.8), and fp32 matrices of a few
// MiB (16384 x 100 4.6 -> 5.3). 2 or 4 blocks an SM: 0-50 % slower, up to 6 % faster.
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_flat(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t row_bytes = args.length * static_cast<index_t>(sizeof(TA));
  if (policy.dot_flat == 0) return false;
  if (policy.dot_flat == 1) {
    const index_t min_bytes = sizeof(TA) == 2 ? policy.dot_flat_min_bytes_2byte : policy.dot_flat_min_bytes;
    const bool staged_rows = args.length <= kStagedMaxLength;  // the staged kernel's
    if (row_bytes < policy.dot_flat_min_row_bytes || row_bytes > policy.dot_flat_max_row_bytes ||
        args.count * row_bytes * args.batch < min_bytes ||
        (staged_rows && !(sizeof(TA) == 2 || (sizeof(TA) == 4 && row_bytes % 16 != 0)))) {
      return false;
    }
  }
  const index_t granule = flat_granule(args);
  if (granule == 0) return false;
  const index_t per_row = args.lda * static_cast<index_t>(sizeof(TA)) / granule;
  if (policy.dot_flat == 1 &&
      flat_one_group_refused(per_row, args.count * row_bytes * args.batch, policy.flat_one_group_min_bytes)) {
    return false;
  }
  const index_t groups = kBlockThreads / per_row;
  const index_t unroll = flat_unroll(granule);
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);
  const auto go = [&](auto kernel) {
    index_t per_sm = resident_blocks(kernel);
    if (policy.dot_flat_blocks_per_sm > 0) per_sm = std::min(per_sm, policy.dot_flat_blocks_per_sm);
    const index_t rounds = ceil_div(args.count, groups * unroll);
    const index_t blocks = std::max<index_t>(1, std::min(rounds, per_sm * state.multiprocessors / batch_z));
    args.lanes = static_cast<int>(per_row);
    args.groups_k = static_cast<int>(groups);
    if (policy.trace) {
      trace_call("dot flat", args);
      std::fprintf(stderr, "%lld-byte granules, %lld a row, %lld groups, %lld blocks\n",
                   static_cast<long long>(granule), static_cast<long long>(per_row),
                   static_cast<long long>(groups), static_cast<long long>(blocks * batch_z));
    }
    launch(kernel, dim3(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(batch_z)), 0, state,
           early_launch(state), 0, args);
    return true;
  };
  return with_granule<TA>(
      granule, [](auto bytes_tag) { return dot_flat_kernel<TA, TX, TY, Acc, decltype(bytes_tag)::value>; }, go);
}

template <typename TA, typename TX, typename TY, typename Acc>
bool dot_tma(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state);

// Rows of one offset class a block against x staged in shared memory, shifted by the
// class's offset (dot_shared_x_kernel; GemvPolicy::dot_shared_x): one wave of blocks of
// 512 threads, each block an equal share of its class's rows. `lanes`: what dot_kernel
// would give a row (this kernel reads a row with a whole warp).
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_shared_x(GemvArgs<TA, TX, TY, Acc> args, bool aligned, int lanes, index_t period,
                  fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  constexpr int kThreads = 512;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
  const bool wanted = policy.dot_shared_x == 2 ||
                      (policy.dot_shared_x == 1 && !aligned && sizeof(TA) == 2 &&
                       args.count >= policy.dot_shared_x_min_rows_per_sm * state.multiprocessors &&
                       args.count <= policy.dot_shared_x_max_rows_per_sm * state.multiprocessors &&
                       matrix_bytes <= policy.dot_shared_x_max_bytes);
  const index_t shared_bytes = ceil_div(args.length + V, V) * V * static_cast<index_t>(sizeof(Acc));
  if (!wanted || args.batch != 1 || lanes != 32 || reinterpret_cast<std::uintptr_t>(args.A) % sizeof(TA) != 0 ||
      shared_bytes > policy.dot_shared_x_max_shared_bytes) {
    return false;
  }
  const std::size_t shared = static_cast<std::size_t>(shared_bytes);
  const index_t unroll = policy.dot_shared_x_unroll;
  const auto kernel = unroll == 8 ? dot_shared_x_kernel<TA, TX, TY, Acc, 8, kThreads>
                                  : dot_shared_x_kernel<TA, TX, TY, Acc, 4, kThreads>;
  const index_t per_sm = resident_blocks(kernel, shared, kThreads);
  const index_t shares = std::clamp<index_t>(per_sm * state.multiprocessors / period, 1, ceil_div(args.count, period));
  args.row_period = static_cast<int>(period);
  if (policy.trace) {
    trace_call("dot shared x", args);
    std::fprintf(stderr, "period %lld, unroll %lld, %lld blocks of %d threads (%lld an SM), %lld bytes of x\n",
                 static_cast<long long>(period), static_cast<long long>(unroll),
                 static_cast<long long>(shares * period), kThreads, static_cast<long long>(per_sm),
                 static_cast<long long>(shared_bytes));
  }
  launch_sized(kernel, dim3(static_cast<unsigned>(shares * period)), kThreads, shared, state, early_launch(state), 0,
               args);
  return true;
}

// Sizes and queues a grid of dot_held_x_kernel (`groups` row groups of `warps` warps a
// block): one wave of `per_sm_wanted` blocks an SM (fewer where they do not fit), no more
// blocks than row groups, each block's row shares in at most 48 KiB; where the grid's
// groups do not cover the rows, blocks a multiple of period / gcd(period, groups)
// (`period` > 0: shifted rows, whose row groups must keep one offset class), and x packed
// first where `x_packed`. `trace(blocks, per_sm, row_sums)` prints the choice under
// GemvPolicy::trace. False, nothing queued, where the shares do not fit.
template <typename TA, typename TX, typename TY, typename Acc, typename Trace>
bool launch_held_x(void (*kernel)(const GemvArgs<TA, TX, TY, Acc>), GemvArgs<TA, TX, TY, Acc> args,
                   index_t groups, index_t warps, index_t per_sm_wanted, index_t period, bool x_packed,
                   fastmv::detail::CudaState& state, Trace&& trace) {
  constexpr index_t kMostShared = 48 * 1024;
  const auto shared_for = [&](index_t b) {
    return static_cast<std::size_t>(held_x_slots(args.count, b, groups) * groups * warps *
                                    static_cast<index_t>(sizeof(Acc)));
  };
  index_t blocks = std::min(per_sm_wanted * state.multiprocessors, ceil_div(args.count, groups));
  if (shared_for(blocks) > kMostShared) return false;
  const index_t per_sm = resident_blocks(kernel, shared_for(blocks));
  blocks = std::min(blocks, per_sm * state.multiprocessors);
  if (period > 0 && blocks * groups < args.count) blocks -= blocks % (period / std::gcd(period, groups));
  if (blocks == 0 || shared_for(blocks) > kMostShared) return false;
  if (x_packed) pack_x_in_workspace(args, state);
  if (GemvPolicy::get().trace) trace(blocks, per_sm, held_x_slots(args.count, blocks, groups) * groups);
  launch(kernel, dim3(static_cast<unsigned>(blocks)), shared_for(blocks), state, early_launch(state), 0, args);
  return true;
}

// dot_held_x's narrow rows (aligned rows of at most kHeldXNarrowMaxWords words, 2- and
// 4-byte types): row groups of kL lanes, several a warp (GemvPolicy::dot_held_x_narrow).
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_held_x_narrow(GemvArgs<TA, TX, TY, Acc> args, bool x_packed, fastmv::detail::CudaState& state) {
  if constexpr (sizeof(TA) == 8) {
    return false;
  } else {
    constexpr index_t V = kVector<TA>;
    const GemvPolicy& policy = GemvPolicy::get();
    const index_t words = args.length / V;
    // 2 words a lane and two rows a round up to 64 words, else 4 words and one row; lanes
    // the least power of 2 of at least 8 that take the row in one round.
    const index_t k = words <= 64 ? 2 : 4;
    const index_t lanes = std::max<index_t>(8, pow2_ceil(ceil_div(words, k)));
    const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
    const bool wanted = policy.dot_held_x_narrow == 2 ||
                        (policy.dot_held_x_narrow == 1 && fast_memory(state) &&
                         matrix_bytes >= policy.dot_held_x_narrow_min_bytes &&
                         100 * words >= policy.dot_held_x_narrow_min_fill_percent * lanes * k);
    if (!wanted || args.batch != 1 || words < 1 || lanes > 32 || args.length % V != 0) return false;
    using Kernel = void (*)(const GemvArgs<TA, TX, TY, Acc>);
    const Kernel kernel = k == 4        ? dot_held_x_kernel<TA, TX, TY, Acc, 1, 4, false, 1, 32>
                          : lanes == 8  ? dot_held_x_kernel<TA, TX, TY, Acc, 1, 2, false, 2, 8>
                          : lanes == 16 ? dot_held_x_kernel<TA, TX, TY, Acc, 1, 2, false, 2, 16>
                                        : dot_held_x_kernel<TA, TX, TY, Acc, 1, 2, false, 2, 32>;
    return launch_held_x(kernel, args, /*groups=*/kBlockThreads / lanes, /*warps=*/1,
                         policy.dot_held_x_narrow_blocks_per_sm, /*period=*/0, x_packed, state,
                         [&](index_t blocks, index_t, index_t row_sums) {
                           trace_call("dot held x, narrow rows", args);
                           std::fprintf(stderr,
                                        "%lld lanes x %lld words a lane a row, %d rows a round, %lld blocks, "
                                        "%lld row sums a block, x packed %d\n",
                                        static_cast<long long>(lanes), static_cast<long long>(k), k == 2 ? 2 : 1,
                                        static_cast<long long>(blocks), static_cast<long long>(row_sums),
                                        x_packed ? 1 : 0);
                         });
  }
}

// Aligned rows of 16 to dot_flat_max_row_bytes / 16 words, which dot_flat would take: the
// narrow held-x rows instead up to dot_held_x_narrow_flat_max_bytes (GemvPolicy).
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_held_x_narrow_short(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t words = args.length / V;
  const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
  if (policy.dot_held_x_narrow != 1 || args.batch != 1 || args.length % V != 0 || words < 16 ||
      words * 16 > policy.dot_flat_max_row_bytes || matrix_bytes > policy.dot_held_x_narrow_flat_max_bytes ||
      !aligned16(args.A) || args.lda % V != 0) {
    return false;
  }
  const bool x_packed = !(args.incx == 1 && aligned16(args.x));
  return dot_held_x_narrow(args, x_packed, state);
}

// The Dot form with x held in registers (dot_held_x_kernel; GemvPolicy::dot_held_x):
// 2-byte rows (and fp32 rows off 16-byte boundaries, dot_held_x_4byte_*) of kHeldXMinWords to
// kHeldXMaxWords whole words (narrower rows: dot_held_x_narrow), one matrix, one wave of
// blocks; rows off 16-byte boundaries
// or of a length inside a word (kShifted) with the grid's row groups a multiple of
// `period`, the rows' period of offsets. `aligned`, `x_packed`: as dot() found them.
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_held_x(GemvArgs<TA, TX, TY, Acc> args, bool aligned, bool x_packed, index_t period,
                fastmv::detail::CudaState& state) {
  if constexpr (sizeof(TA) == 8) {
    return false;
  } else {
    constexpr index_t V = kVector<TA>;
    const GemvPolicy& policy = GemvPolicy::get();
    const bool shifted = !aligned || args.length % V != 0;
    // Whole words of a row: length / V (one fewer in some offset classes of shifted rows).
    const index_t words = args.length / V;
    if (!shifted && words <= kHeldXNarrowMaxWords) {
      return dot_held_x_narrow(args, x_packed, state);
    }
    const bool long_rows = words > 4 * 32 * 4;   // 8 warps a row
    const bool short_rows = words <= 4 * 32 * 3;  // 4 warps of 2 or 3 words a lane
    const int k = static_cast<int>(long_rows ? ceil_div(words, 8 * 32) : ceil_div(words, 4 * 32));  // words a lane
    const index_t warps = long_rows ? 8 : 4;  // a row group's
    const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
    const index_t min_bytes = short_rows ? policy.dot_held_x_short_min_bytes
                              : shifted  ? policy.dot_held_x_shifted_min_bytes
                                         : policy.dot_held_x_min_bytes;
    // 4-byte rows: shifted ones of 8 warps of at most dot_held_x_4byte_max_k words a lane
    // (_slow_memory off fast memory), on any memory system (dot_held_x_4byte_any_memory;
    // else on fast memory only), and off fast memory aligned ones of at least
    // dot_held_x_4byte_aligned_min_words words, all with fast memory's blocks an SM and fill
    // floor; short rows on fast memory (the measured cases).
    const bool fast_memory_system = fast_memory(state);
    const bool four_byte_rule =
        sizeof(TA) == 4 && (fast_memory_system || policy.dot_held_x_4byte_any_memory == 1);
    const bool fast_grid = fast_memory_system || four_byte_rule;  // its blocks an SM and fill floor
    const index_t max_k_4byte =
        fast_memory_system ? policy.dot_held_x_4byte_max_k : policy.dot_held_x_4byte_max_k_slow_memory;
    const bool four_byte_ok =
        sizeof(TA) == 2 || (four_byte_rule && shifted && long_rows && k <= max_k_4byte) ||
        (four_byte_rule && !shifted && !fast_memory_system && policy.dot_held_x_4byte_aligned_min_words > 0 &&
         words >= policy.dot_held_x_4byte_aligned_min_words);
    const bool wanted = policy.dot_held_x == 2 ||
                        (policy.dot_held_x == 1 && four_byte_ok &&
                         (!long_rows || policy.dot_held_x_long_rows != 0) &&
                         (!short_rows || (policy.dot_held_x_short_rows != 0 && fast_memory_system)) &&
                         (!shifted || policy.dot_held_x_shifted != 0) && matrix_bytes >= min_bytes &&
                         matrix_bytes <= policy.dot_held_x_max_bytes &&
                         100 * words >= (fast_grid ? policy.dot_held_x_fast_memory_min_fill_percent
                                              : policy.dot_held_x_min_fill_percent) * warps * 32 * k);
    if (!wanted || args.batch != 1 || words < kHeldXMinWords || words > kHeldXMaxWords ||
        (shifted && reinterpret_cast<std::uintptr_t>(args.A) % sizeof(TA) != 0)) {
      return false;
    }
    using Kernel = void (*)(const GemvArgs<TA, TX, TY, Acc>);
    const auto pick = [&](auto shifted_tag) -> Kernel {
      constexpr bool kShifted = decltype(shifted_tag)::value;
      if (!long_rows && k <= policy.dot_held_x_two_rows_max_k) {
        return k == 2 ? dot_held_x_kernel<TA, TX, TY, Acc, 4, 2, kShifted, 2>
                      : dot_held_x_kernel<TA, TX, TY, Acc, 4, 3, kShifted, 2>;
      }
      if (!long_rows) {
        return k == 2   ? dot_held_x_kernel<TA, TX, TY, Acc, 4, 2, kShifted>
               : k == 3 ? dot_held_x_kernel<TA, TX, TY, Acc, 4, 3, kShifted>
                        : dot_held_x_kernel<TA, TX, TY, Acc, 4, 4, kShifted>;
      }
      return k == 3   ? dot_held_x_kernel<TA, TX, TY, Acc, 8, 3, kShifted>
             : k == 4 ? dot_held_x_kernel<TA, TX, TY, Acc, 8, 4, kShifted>
             : k == 5 ? dot_held_x_kernel<TA, TX, TY, Acc, 8, 5, kShifted>
             : k == 6 ? dot_held_x_kernel<TA, TX, TY, Acc, 8, 6, kShifted>
                      : dot_held_x_kernel<TA, TX, TY, Acc, 8, 7, kShifted>;
    };
    const Kernel kernel = shifted ? pick(std::true_type{}) : pick(std::false_type{});
    // One wave of dot_held_x(_fast_memory)_blocks_per_sm blocks an SM; shifted rows: where a
    // row group takes more than one row, the grid's row groups a multiple of the period, so
    // that all of a group's rows share their offset.
    const index_t per_sm_wanted = fast_grid ? policy.dot_held_x_fast_memory_blocks_per_sm : policy.dot_held_x_blocks_per_sm;
    return launch_held_x(kernel, args, /*groups=*/kBlockThreads / 32 / warps, warps, per_sm_wanted,
                         shifted ? period : 0, x_packed, state, [&](index_t blocks, index_t per_sm, index_t row_sums) {
                           trace_call(shifted ? "dot held x, shifted rows" : "dot held x", args);
                           std::fprintf(stderr,
                                        "%lld warps x %d words a lane a row, %lld blocks (%lld an SM fit), "
                                        "%lld row sums a block, x packed %d\n",
                                        static_cast<long long>(warps), k, static_cast<long long>(blocks),
                                        static_cast<long long>(per_sm), static_cast<long long>(row_sums),
                                        x_packed ? 1 : 0);
                         });
  }
}

template <typename TA, typename TX, typename TY, typename Acc>
void dot(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);

  if (dot_held_x_narrow_short(args, state)) return;
  if (dot_flat(args, state)) return;
  if (dot_tma(args, state)) return;
  if (args.length <= kStagedMaxLength &&
      args.lda <= policy.staged_max_lda_over_length * args.length + V) {
    // Tiles of kStagedTileBytes, smaller when that leaves fewer than
    // staged_blocks_per_sm blocks per SM: a 600 KB matrix (100003 x 3 bf16) made 37
    // blocks of 2730 rows, 11 rows per thread one after the other.
    const index_t row_bytes = args.lda * static_cast<index_t>(sizeof(TA));
    index_t tile_bytes = kStagedTileBytes;
    if (policy.staged_blocks_per_sm > 0) {
      const index_t wanted = policy.staged_blocks_per_sm * state.multiprocessors;
      const index_t least = std::min<index_t>(kBlockThreads * row_bytes / 2, kStagedTileBytes);
      tile_bytes = std::clamp<index_t>(args.count * row_bytes * args.batch / wanted, least,
                                       kStagedTileBytes);
    }
    args.rows_per_block = std::max<index_t>(1, tile_bytes / row_bytes);
    const index_t blocks = ceil_div(args.count, args.rows_per_block);
    const std::size_t shared =
        static_cast<std::size_t>(staged_span_bytes(args.rows_per_block, args.lda, args.length, sizeof(TA)));
    launch(dot_staged_kernel<TA, TX, TY, Acc>,
           dim3(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(batch_z)), shared,
           state, early_launch(state), 0, args);
    return;
  }

  const index_t words = ceil_div(args.length, V);
  // Lanes a row group: 32 for rows of dot_warp_lanes_min_words words and more, 4 for
  // rows of at most dot_quad_lanes_max_words (one round of 4 words a lane: with 8
  // lanes, bf16 1048576 x 128 read 2 words a lane and half its loads were the masked
  // rest of the round), 8 between; and 8 for rows of up to dot_octet_lanes_max_words
  // where there are dot_octet_lanes_min_rows_per_sm rows an SM or more, whose 32
  // lanes would leave a quarter to a half of each round's loads masked (same run:
  // bf16 262144 x 512 151.1 -> 98.9 us, fp32 262144 x 256 135.7 -> 90.3, fp64 262144 x
  // 128 144.6 -> 92.4; small matrices, bound by the latency of each round, lost with
  // it: bf16 768^2 3.9 -> 4.9 us).
  const bool many_rows =
      args.count * args.batch >= policy.dot_octet_lanes_min_rows_per_sm * state.multiprocessors;
  const int lanes = words >= policy.dot_warp_lanes_min_words &&
                            !(many_rows && words <= policy.dot_octet_lanes_max_words)
                        ? 32
                    : words <= policy.dot_quad_lanes_max_words && policy.dot_rows != 4 ? 4
                                                                                       : 8;
  // Rows on 16-byte boundaries; otherwise the kernel realigns them in registers. x
  // must be contiguous and aligned, or is packed so.
  const bool aligned = aligned16(args.A) && args.lda % V == 0 &&
                       (args.batch == 1 || args.stride_a % V == 0);
  const bool x_packed = !(args.incx == 1 && aligned16(args.x) &&
                          (args.batch == 1 || (args.stride_x * sizeof(TX)) % 16 == 0));
  // Rows per thread group: 2 for aligned fp32 (each x word serves two rows; measured
  // +4-8 % over 1 row at 3072^2-12800^2, same run); for the 2-byte types 2 up to
  // dot_two_rows_2byte_max_rows_per_sm rows an SM and for rows of at most
  // dot_two_rows_2byte_max_words words at any count, where x read again for every row
  // weighs most (figures in gemv_cuda_policy.hpp), else 1; 1 for fp64 (but see two_rows_8byte
  // below) and unaligned rows.
  const bool few_rows_2byte =
      sizeof(TA) == 2 &&
      (ceil_div(args.count * args.batch, state.multiprocessors) <= policy.dot_two_rows_2byte_max_rows_per_sm ||
       words <= policy.dot_two_rows_2byte_max_words);
  const int aligned_rows = policy.dot_rows != 0             ? static_cast<int>(policy.dot_rows)
                           : sizeof(TA) == 4 || few_rows_2byte ? 2
                                                              : 1;
  // Threads a block: kBlockThreads, but 128 (four warps) for long aligned fp32 rows in
  // grids of many rows, each warp taking one row with 8 words in flight (cuBLAS's layout
  // at fp32 11776^2): blocks of four rows instead of sixteen, so the last wave is finer
  // (GemvPolicy::dot_threads_128_4byte_min_words). GemvPolicy::dot_threads 128 forces it
  // for every aligned row read by whole warps (tests), 256 never.
  const bool threads_128_4byte =
      sizeof(TA) == 4 && policy.dot_threads == 0 && policy.dot_rows == 0 && lanes == 32 && aligned &&
      args.batch == 1 && policy.dot_threads_128_4byte_min_words > 0 &&
      words >= policy.dot_threads_128_4byte_min_words &&
      args.count >= policy.dot_threads_128_4byte_min_rows_per_sm * state.multiprocessors;
  const int threads =
      threads_128_4byte || (policy.dot_threads == 128 && lanes == 32 && aligned && policy.dot_rows != 4)
          ? 128
          : kBlockThreads;
  const index_t groups = threads / lanes;
  // Rows a period apart lie the same distance past a 16-byte boundary.
  const index_t period = 16 / std::gcd<index_t>(args.lda * static_cast<index_t>(sizeof(TA)) % 16 + 16, 16);
  if (dot_held_x(args, aligned, x_packed, period, state)) return;
  // Unaligned rows, every `period`-th of which lies the same distance past a 16-byte
  // boundary: read unshifted, kRows rows `period` apart a group, x from any element
  // (dot_kernel's kShifted; dot_shifted), where a block has `period` groups of rows or
  // more; else realigned one row a group.
  // By default (dot_shifted 1): 4-byte types up to dot_shifted_4byte_max_rows_per_sm
  // rows an SM, 4 rows a group from dot_shifted_rows4_min_rows_per_sm to
  // dot_shifted_rows4_max_rows_per_sm (else 2, as aligned rows); 2-byte types from
  // dot_shifted_2byte_min_rows_per_sm to dot_shifted_2byte_max_rows_per_sm, 4 rows a
  // group (one row a group reads 8 elements of x a word; 2 did not gain). Same run,
  // three rounds, row N, realigned -> shifted: fp32 2049^2 8.47 -> 7.44 us (2 rows),
  // 2305^2 12.25 -> 11.06 (4), 4353^2 32.94 -> 30.29 (4), 4865^2 39.39 -> 36.98 (4), 8193^2
  // 96.7 -> 92.0 (2); bf16 4353^2 21.70 -> 18.94, 5889^2 30.92 -> 28.36, 6401^2 36.47 ->
  // 32.48, 8193^2 50.98 -> 50.69. Outside: fp32 12801^2 (97 rows an SM) 219.2 -> 221.6,
  // 2049^2 with 4 rows 8.47 -> 9.65, 5889^2 (44.6) with 4 rows 51.9 -> 53.7; bf16 2049^2
  // 5.89 -> 7.32, 3073^2 (23) 10.53 -> 10.95, 3585^2 12.71 -> 13.01 (fewer blocks than
  // SMs), 12801^2 118.6 -> 122.7 (2305^2 and 2561^2 gained 2-13 %; left out).
  // The 2-byte band's upper end is 72 rows an SM since the last wave's tiles are split
  // (dot_tail_split; same run, three rounds, bf16 row N, realigned -> 4 shifted rows a
  // group: 8449^2 62.6 -> 57.3 us, 8705^2 64.6 -> 59.2, 8961^2 67.4 -> 63.2, 9217^2 71.7
  // -> 65.5, 9473^2 73.0 -> 69.5; 9729^2-11009^2 within 1.5 %, 11777^2-12801^2 2-4 %
  // slower).
  // 8-byte types up to dot_shifted_8byte_max_rows_per_sm rows an SM, 2 rows a group
  // (twenty-third session, same run, three rounds, fp64 row N, realigned -> 2 rows:
  // 1025^2 5.84 -> 4.99 us, 2561^2 24.80 -> 21.40, 4097^2 52.15 -> 47.95, 8193^2 187.5
  // -> 183.2, 3073^2 and 6145^2 within 1 %; 4 rows and 1 row slower). The 4-byte limit
  // is 68, not 64: fp32 8449^2 (64.01 rows an SM) 109.4 -> 103.6, 8705^2 113.5 -> 111.3,
  // but 9217^2 118.7 -> 120.3; bf16 from 8449^2 lost 8-22 % with either 2 or 4 rows. On
  // fast memory 4-byte types at any rows an SM (dot_shifted_4byte_fast_memory).
  if (dot_shared_x(args, aligned, lanes, period, state)) return;
  const auto rows_between = [&](index_t least, index_t most) {  // rows an SM
    return args.count * args.batch >= least * state.multiprocessors &&
           args.count * args.batch <= most * state.multiprocessors;
  };
  const bool rows4_band = sizeof(TA) == 2
                              ? rows_between(policy.dot_shifted_2byte_min_rows_per_sm,
                                             policy.dot_shifted_2byte_max_rows_per_sm)
                              : rows_between(policy.dot_shifted_rows4_min_rows_per_sm,
                                             policy.dot_shifted_rows4_max_rows_per_sm);
  const int shifted_rows = policy.dot_shifted_rows != 0 ? static_cast<int>(policy.dot_shifted_rows)
                           : sizeof(TA) == 8            ? 2
                           : rows4_band                 ? 4
                                                        : aligned_rows;
  const bool shifted_wanted =
      policy.dot_shifted == 2 ||
      (policy.dot_shifted == 1 &&
       ((sizeof(TA) == 4 && (rows_between(0, policy.dot_shifted_4byte_max_rows_per_sm) ||
                             (policy.dot_shifted_4byte_fast_memory == 1 && fast_memory(state)))) ||
        (sizeof(TA) == 8 && rows_between(0, policy.dot_shifted_8byte_max_rows_per_sm)) ||
        (sizeof(TA) == 2 && rows4_band)));
  const auto min_groups_k_for = [&](index_t r) {
    return std::min(groups, pow2_ceil(ceil_div(groups, ceil_div(args.count, r))));
  };
  const bool shifted = !aligned && shifted_wanted && lanes != 4 &&
                       reinterpret_cast<std::uintptr_t>(args.A) % sizeof(TA) == 0 && args.count >= period &&
                       min_groups_k_for(shifted_rows) * period <= groups;
  // Aligned 8-byte rows go one a group (8 words in flight), but two a group where that
  // grid would split each row over dot_two_rows_8byte_min_groups_k groups or more at up
  // to dot_two_rows_8byte_max_rows_per_sm rows an SM (the choice below, made for one
  // row: a few words a lane, x read again for every row; GemvPolicy), and where the rows
  // are too few for that grid and at least dot_two_rows_8byte_few_min_rows (split rows).
  const bool two_rows_8byte = [&] {
    if (sizeof(TA) != 8 || !aligned || policy.dot_rows != 0 || lanes != 32 || args.batch != 1 ||
        policy.dot_unroll != 0 || words < 8 * lanes ||
        !rows_between(0, policy.dot_two_rows_8byte_max_rows_per_sm)) {
      return false;
    }
    const index_t one_row_slots = resident_blocks(dot_kernel<TA, TX, TY, Acc, 32, 1, 8, true>) * state.multiprocessors;
    const auto one_row_blocks = [&](index_t groups_k, index_t) { return ceil_div(args.count, groups / groups_k); };
    const index_t least_k = min_groups_k_for(1);
    if (one_row_blocks(least_k, 1) < one_row_slots / 2) {  // few rows, each split over blocks
      return policy.dot_two_rows_8byte_few_min_rows > 0 && args.count >= policy.dot_two_rows_8byte_few_min_rows;
    }
    if (policy.dot_two_rows_8byte_min_groups_k <= 0) return false;
    const index_t most_k = std::max<index_t>(1, words / (lanes * policy.dot_min_words_per_thread));
    return choose_split(one_row_blocks, std::max(most_k, least_k), least_k, groups, 1, one_row_slots).groups_k >=
           policy.dot_two_rows_8byte_min_groups_k;
  }();
  // Aligned fp32 rows go two a group, but one (8 words in flight) where they are long
  // (dot_one_row_4byte_min_words) and the two-row grid is one wave of blocks that fills 90
  // % of the slots or more: the one-row grid has twice the blocks, half the rows each,
  // in two waves, so that the SMs whose blocks finish first take more of the second
  // (GemvPolicy::dot_one_row_4byte_min_words).
  const bool one_row_4byte = [&] {
    if (sizeof(TA) != 4 || !aligned || policy.dot_rows != 0 || lanes != 32 || args.batch != 1 ||
        threads != kBlockThreads || policy.dot_one_row_4byte_min_words <= 0 ||
        words < policy.dot_one_row_4byte_min_words) {
      return false;
    }
    const index_t two_row_slots = resident_blocks(dot_kernel<TA, TX, TY, Acc, 32, 2, 4, true>) * state.multiprocessors;
    const index_t two_row_blocks = ceil_div(args.count, 2 * groups);  // groups_k 1: a wave at most
    return 10 * two_row_blocks >= 9 * two_row_slots && two_row_blocks <= two_row_slots;
  }();
  const int rows = shifted                              ? shifted_rows
                   : !aligned                           ? 1
                   : two_rows_8byte                     ? 2
                   : one_row_4byte || threads_128_4byte ? 1
                                                        : aligned_rows;
  // 8 words in flight per thread for aligned 4- and 8-byte types (fp32 8192^2:
  // 2991 against 2842 GB/s with 4); 4 for 2-byte types and unaligned rows, where 8
  // measured slower (bf16 12800^2: 2449 against 2489; fp32 2049^2: 1108 against 1364);
  // and 4 for rows shorter than one round of 8 (fp64 1048576 x 128 row N, 64 words a
  // row for rounds of 256, ran at a third of cuBLAS's speed).
  const bool deep = !shifted && (policy.dot_unroll == 0 ? aligned && sizeof(TA) >= 4 && words >= 8 * lanes
                                                        : policy.dot_unroll == 8);

  // The variant: lanes (32, 8 or 4) x rows and words in flight per row (4 x 2, 1 x 4,
  // 1 x 8) x aligned.
  using Kernel = void (*)(const GemvArgs<TA, TX, TY, Acc>);
  const auto pick = [&](auto lanes_tag) -> Kernel {
    constexpr int L = decltype(lanes_tag)::value;
    if constexpr (L == 4) {  // rows of at most 16 words: one round of 4 words a lane
      if (aligned && rows == 2) return dot_kernel<TA, TX, TY, Acc, L, 2, 4, true>;
      return aligned ? dot_kernel<TA, TX, TY, Acc, L, 1, 4, true> : dot_kernel<TA, TX, TY, Acc, L, 1, 4, false>;
    }
    if (shifted) {
      if (rows == 4) return dot_kernel<TA, TX, TY, Acc, L, 4, 2, true, true>;
      if (rows == 2) return dot_kernel<TA, TX, TY, Acc, L, 2, 4, true, true>;
      return dot_kernel<TA, TX, TY, Acc, L, 1, 4, true, true>;
    }
    if constexpr (L == 32) {
      if (threads == 128 && aligned && rows == 2) return dot_kernel<TA, TX, TY, Acc, L, 2, 4, true, false, 128>;
      if (threads == 128 && aligned && rows == 1) {
        return deep ? dot_kernel<TA, TX, TY, Acc, L, 1, 8, true, false, 128>
                    : dot_kernel<TA, TX, TY, Acc, L, 1, 4, true, false, 128>;
      }
    }
    if (aligned && rows == 4) return dot_kernel<TA, TX, TY, Acc, L, 4, 2, true>;
    if (aligned && rows == 2) return dot_kernel<TA, TX, TY, Acc, L, 2, 4, true>;
    if (aligned) {
      return deep ? dot_kernel<TA, TX, TY, Acc, L, 1, 8, true> : dot_kernel<TA, TX, TY, Acc, L, 1, 4, true>;
    }
    return deep ? dot_kernel<TA, TX, TY, Acc, L, 1, 8, false> : dot_kernel<TA, TX, TY, Acc, L, 1, 4, false>;
  };
  const int unroll = lanes == 4 ? 4 : rows == 4 ? 2 : rows == 2 ? 4 : (deep ? 8 : 4);  // words in flight
  const Kernel kernel = lanes == 32  ? pick(std::integral_constant<int, 32>{})
                        : lanes == 8 ? pick(std::integral_constant<int, 8>{})
                                     : pick(std::integral_constant<int, 4>{});

  const index_t slots = resident_blocks(kernel, 0, threads) * state.multiprocessors;
  const index_t partial_bytes = args.batch * args.count * static_cast<index_t>(sizeof(Acc));
  const index_t min_words =
      rows == 2 ? policy.dot_min_words_per_thread_2rows : policy.dot_min_words_per_thread;
  const index_t max_k = std::max<index_t>(1, words / (lanes * min_words));
  index_t max_splits = std::min(policy.max_splits, policy.max_workspace_bytes / partial_bytes);
  if (args.batch > static_cast<index_t>(kMaxGridZ)) max_splits = 1;
  // Split each row over groups_k groups of a block (a shared-memory reduction, nearly
  // free) until the grid fills the GPU's block slots, keeping dot_min_words_per_thread
  // words per thread (dot_min_words_per_thread_2rows with two rows a group); over
  // `splits` blocks (partial sums through memory and a handshake, measured 10-20 %
  // slower than one block per row at 2048^2-12800^2) only
  // when there are too few rows for that. Enough groups per row that no group of a
  // block is left without one.
  const auto blocks_for = [&](index_t groups_k) {
    return ceil_div(args.count, (groups / groups_k) * rows) * args.batch;
  };
  const index_t min_groups_k = min_groups_k_for(rows);
  const index_t max_groups_k = shifted ? groups / period : groups;  // shifted: period groups of rows
  SplitChoice split;
  split.groups_k = min_groups_k;
  if (blocks_for(min_groups_k) >= slots / 2) {
    // Enough rows: the groups_k that best fills the waves of block slots (a grid of
    // 1.03 waves, 4352^2 fp32, ran at 58 % of the read ceiling).
    split = choose_split([&](index_t groups_k, index_t) { return blocks_for(groups_k); },
                         std::max(max_k, min_groups_k), min_groups_k, max_groups_k, 1, slots);
  } else {
    // Too few rows: more groups per row, then more blocks, down to
    // dot_split_min_words_per_thread words per thread (one round of loads).
    // Rounded up, so that no thread is left a few words over one round: 3 x 100003
    // bf16 made 12 splits of 8334 elements for rounds of 8192, two rounds (two
    // memory latencies) a thread.
    const index_t few_max_k = std::max<index_t>(1, ceil_div(words, lanes * policy.dot_split_min_words_per_thread));
    while (split.groups_k < max_groups_k && blocks_for(split.groups_k) < slots / 2 &&
           2 * split.groups_k <= few_max_k) {
      split.groups_k *= 2;
    }
    // Splits where the blocks fill less than half the slots; for rows of at most two
    // rounds of loads a thread, only below dot_split_short_rows_max_slots_percent: there
    // a split's handshake (a cluster's barriers or partial sums through memory) costs
    // more than the round of loads it saves (same run, two rounds, fp32 row N 1025^2, 257
    // blocks for 528 slots, 4 words a thread: 2 splits 6.14 us, 1 split 4.43; 1032^2 5.19
    // -> 3.88; col T alike), where longer rows gain from it (fp32 256 x 262144 91.9 us
    // split, 98.4 not; fp64 128 x 1048576 364 against 389).
    const bool short_rows =
        ceil_div(words, lanes * split.groups_k) <= 2 * policy.dot_split_min_words_per_thread;
    const index_t max_percent = short_rows ? policy.dot_split_short_rows_max_slots_percent : 50;
    if (100 * blocks_for(split.groups_k) < max_percent * slots) {
      // Splits that fill one wave of block slots, not one block past it, from
      // dot_split_one_wave_min_bytes: 40 rows of bf16 made 14 splits, 560 blocks for 528
      // slots, two waves. Same run, with the clusters of cluster_one_wave, row N: bf16
      // 40 x 1048576 51.4 -> 39.5 us (cuBLAS 40.7), 128 x 1048576 138.4 -> 114.1, fp32 100
      // x 1048576 171.2 -> 151.8, fp64 16 x 1048576 65.5 -> 51.3, bf16 32 x 262144 17.1
      // -> 11.6; fp32 513^2 (1 MiB) 3.8 -> 4.5, hence the threshold.
      const bool one_wave = policy.dot_split_one_wave != 0 &&
                            args.count * args.length * static_cast<index_t>(sizeof(TA)) * args.batch >=
                                policy.dot_split_one_wave_min_bytes;
      const index_t wave_splits = one_wave ? std::max<index_t>(1, slots / blocks_for(split.groups_k))
                                           : ceil_div(slots, blocks_for(split.groups_k));
      split.splits = std::min({wave_splits,
                               std::max<index_t>(1, ceil_div(few_max_k, split.groups_k)),
                               std::max<index_t>(1, max_splits)});
    }
  }
  index_t splits = split.splits;
  // Segments of whole dot_split_align_bytes (at least a word; GemvPolicy).
  const index_t split_unit = std::max<index_t>(V, policy.dot_split_align_bytes / static_cast<index_t>(sizeof(TA)));
  args.split_length = ceil_div(ceil_div(args.length, splits), split_unit) * split_unit;
  splits = ceil_div(args.length, args.split_length);
  args.splits = static_cast<int>(splits);
  args.groups_k = static_cast<int>(split.groups_k);
  args.row_period = static_cast<int>(period);

  const index_t block_rows = (groups / split.groups_k) * rows;
  const index_t blocks = ceil_div(args.count, block_rows);

  // Rows balanced over the warps instead (dot_balanced_kernel) where that is predicted
  // to be dot_balanced_min_gain_percent faster (dot_balanced_gain).
  double balanced_gain = 0;  // predicted (traced)
  if (aligned && args.batch == 1 && args.length % V == 0 && words >= kBalancedMinWords &&
      (policy.dot_balanced == 2 || (policy.dot_balanced == 1 && sizeof(TA) <= 4))) {
    const int threads = static_cast<int>(policy.dot_balanced_threads);
    const Kernel balanced = threads == 256   ? dot_balanced_kernel<TA, TX, TY, Acc, 256>
                            : threads == 512 ? dot_balanced_kernel<TA, TX, TY, Acc, 512>
                                             : dot_balanced_kernel<TA, TX, TY, Acc, 1024>;
    const index_t balanced_blocks = resident_blocks(balanced, 0, threads) * state.multiprocessors;
    // The gain with the pieces' spare words counted (as many a lane as the kernel reads)
    // must reach dot_balanced_spare_min_gain_percent (against one row a group:
    // dot_balanced_one_row_spare_min_gain_percent), that without them
    // dot_balanced_min_gain_percent.
    const int spare_per_lane =
        std::min(static_cast<int>(policy.dot_balanced_spare_per_lane_2byte), kBalancedSparePerLane<TA>);
    const index_t round = split.groups_k * splits * lanes * unroll;  // words a group's round of loads takes
    const auto gain = [&](int per_lane) {
      return dot_balanced_gain(args.count, words, blocks * splits, slots, round,
                               split.groups_k * splits == 1, balanced_blocks, threads / 32, per_lane);
    };
    const bool fits = args.count >= balanced_blocks;
    if (fits) balanced_gain = gain(spare_per_lane);
    // A fast memory system (fast_memory) takes it for every grid of more than 3 waves
    // under dot_balanced_fast_memory_max_bytes; any GPU for grids of more than 3 waves whose
    // thread groups read whole rows in at most dot_balanced_many_waves_max_rounds rounds
    // of loads (short blocks, each a memory latency or two: the model's rounds miss them).
    const bool short_rows_waves = blocks * splits > 3 * slots && split.groups_k * splits == 1 &&
                                  ceil_div(words, round) <= policy.dot_balanced_many_waves_max_rounds;
    const bool fast_memory_waves =
        fast_memory(state) && blocks * splits > 3 * slots &&
        args.count * args.length * static_cast<index_t>(sizeof(TA)) < policy.dot_balanced_fast_memory_max_bytes;
    const bool model_takes =
        fits && (gain(0) >= 1 + policy.dot_balanced_min_gain_percent / 100.0 ||
                 balanced_gain >= 1 + (rows == 1 ? policy.dot_balanced_one_row_spare_min_gain_percent
                                                  : policy.dot_balanced_spare_min_gain_percent) /
                                           100.0);
    if (fits && (policy.dot_balanced == 2 || fast_memory_waves || short_rows_waves || model_takes)) {
      if (x_packed) pack_x_in_workspace(args, state);
      if (policy.trace) {
        trace_call("dot", args);
        std::fprintf(stderr, "balanced, %d threads, %lld blocks, x packed %d, predicted gain %.3f%s\n", threads,
                     static_cast<long long>(balanced_blocks), x_packed ? 1 : 0, balanced_gain,
                     fast_memory_waves                  ? ", fast memory and many waves"
                     : short_rows_waves && !model_takes ? ", short rows and many waves"
                                                        : "");
      }
      args.piece_align = static_cast<int>(policy.dot_balanced_align);
      args.spare_per_lane = spare_per_lane;
      launch_sized(balanced, dim3(static_cast<unsigned>(balanced_blocks)), static_cast<unsigned>(threads), 0,
                   state, early_launch(state), 0, args);
      return;
    }
  }

  // The splits of a row tile added through a cluster's shared memory where they fit
  // one (same run, against the handshake through global memory: bf16 row N 3 x 100003
  // 6.76 -> 6.02 us, 8 x 65536 5.99 -> 5.14, fp32 col T 1025^2 7.52 -> 5.90), else
  // partial sums in the scratch, followed by the packed x.
  args.cluster =
      cluster_fits(kernel, splits, blocks * splits * batch_z, slots, state) && args.batch <= static_cast<index_t>(kMaxGridZ) ? 1 : 0;
  // A grid of a wave and a few blocks more ends with those blocks alone on the GPU, each
  // reading at the speed of one block (Nsight Compute, bf16 row N 8449^2, 4 shifted rows
  // a group: 265 blocks for 264 slots, SMs active 101 K cycles on average against 136 K
  // elapsed; 8448^2, 528 blocks of 2 rows, 99 K of 109 K). So where a grid of shifted
  // rows of more than one and at most dot_tail_split_max_waves waves has a last wave of
  // at most dot_tail_split_max_percent of the slots, that wave's tiles are split over the
  // slots (each split at least one round of loads a thread), partial sums through memory
  // (dot_tail_split 1; 2: every shifted grid's last wave, wherever a tile's row has two
  // rounds, for the tests). bf16 row N, 4 shifted rows a group, two runs of three rounds,
  // without -> with: 8449^2 68.6 -> 57.3 us (16 splits of the one tile over), 8705^2
  // 74.7 -> 59.2, 9217^2 83.3 -> 65.5. Grids of 4 waves and more lost 1-7 % with it in
  // one run (their blocks are short; bf16 8960^2, 4480 blocks of one row, 256 tiles split
  // 2 ways: 59.3 -> 63.7), hence the waves. Shifted rows only: in the other variants the
  // code cost registers and 3-13 % (dot_kernel), and none of their grids measured faster.
  const index_t tail_tiles = blocks % slots != 0 ? blocks % slots : std::min(blocks, slots);
  const index_t tail_most_splits = std::min(policy.dot_tail_max_splits, words / (lanes * unroll * split.groups_k));
  if (splits == 1 && args.batch == 1 && tail_most_splits >= 2 && shifted &&
      ((policy.dot_tail_split == 1 && blocks > slots && blocks <= policy.dot_tail_split_max_waves * slots &&
        blocks % slots != 0 && 100 * tail_tiles <= policy.dot_tail_split_max_percent * slots) ||
       policy.dot_tail_split == 2)) {
    index_t tail_splits = std::max<index_t>(2, std::min(slots / tail_tiles, tail_most_splits));
    args.tail_split_length = ceil_div(ceil_div(args.length, tail_splits), V) * V;
    tail_splits = ceil_div(args.length, args.tail_split_length);
    if (tail_splits >= 2) {
      args.tail_splits = static_cast<int>(tail_splits);
      args.tail_first = blocks - tail_tiles;
    }
  }
  const index_t grid_x = args.tail_splits > 1 ? args.tail_first + tail_tiles * args.tail_splits : blocks;
  const bool global_splits = (splits > 1 && args.cluster == 0) || args.tail_splits > 1;
  const index_t partials_bytes =
      global_splits ? ceil_div(std::max<index_t>(splits, args.tail_splits) * partial_bytes, 256) * 256 : 0;
  if (global_splits || x_packed) {
    const index_t packed_bytes =
        x_packed ? args.batch * packed_x_stride<TX>(args.length) * static_cast<index_t>(sizeof(TX)) : 0;
    const auto workspace = state.workspace(static_cast<std::size_t>(args.batch * blocks),
                                           static_cast<std::size_t>(partials_bytes + packed_bytes));
    args.counters = workspace.counters;
    args.partials = static_cast<Acc*>(workspace.scratch);
    if (x_packed) pack_x(args, static_cast<char*>(workspace.scratch) + partials_bytes, state);
  }
  if (policy.trace) {
    trace_call("dot", args);
    std::fprintf(stderr,
                 "lanes %d rows %d%s unroll %d threads %d %s, groups_k %lld splits %lld%s, %lld blocks (%lld slots), "
                 "tail %lld tiles x %d splits, x packed %d, balanced kernel's predicted gain %.3f\n",
                 lanes, rows,
                 one_row_4byte       ? " (long rows, a wave of two-row blocks)"
                 : threads_128_4byte ? " (long rows, many of them)"
                                     : "",
                 unroll, threads,
                 aligned ? "aligned" : shifted ? "shifted" : "unaligned",
                 static_cast<long long>(split.groups_k), static_cast<long long>(splits),
                 args.cluster != 0 ? " (a cluster)" : "", static_cast<long long>(grid_x * splits * batch_z),
                 static_cast<long long>(slots), static_cast<long long>(args.tail_splits > 1 ? tail_tiles : 0),
                 args.tail_splits, x_packed ? 1 : 0, balanced_gain);
  }
  launch_sized(kernel, dim3(static_cast<unsigned>(grid_x), static_cast<unsigned>(splits),
                           static_cast<unsigned>(batch_z)),
               static_cast<unsigned>(threads), 0, state, early_launch(state), args.cluster != 0 ? splits : 0,
               args);
}

// The realigned kernel's copy held to 3 blocks per SM: 4 in flight, held or 2-byte.
template <typename TA>
constexpr bool axpy_held_realigned(AxpyLoads loads, index_t unroll, bool held) {
  return loads == AxpyLoads::kRealigned && unroll == 4 && (held || sizeof(TA) == 2);
}

// The Axpy kernel for a way of reading the outputs (AxpyLoads) and a number of vectors
// in flight (4 or 8); `held`: the realigned kernel with 4 in flight held to 3 blocks per
// SM (see axpy_kernel and axpy_realigned_held_min_bytes), the aligned fp16 one to 4
// (axpy_aligned_fp16_held). `select`: with 8 in flight for types up to 4 bytes, the
// masked round waiting for every load (kMaskedSelect; masked_select_pays below).
// `sum_later`: the held realigned kernel storing its split's partial sums for
// axpy_split_sum_kernel (kSumLater; GemvPolicy::axpy_sum_kernel); no other variant has
// that copy, so the caller asks for it only where axpy_held_realigned says so.
template <typename TA, typename TX, typename TY, typename Acc>
auto axpy_variant(AxpyLoads loads, index_t unroll, bool held, bool select = false, bool sum_later = false) {
  const auto with_unroll = [&](auto kernel_for) {
    return unroll == 8 ? kernel_for(std::integral_constant<int, 8>{}) : kernel_for(std::integral_constant<int, 4>{});
  };
  return with_unroll([&](auto u) {
    constexpr int kUnroll = decltype(u)::value;
    if constexpr (kUnroll == 8 && sizeof(TA) <= 4) {
      if (select) {
        switch (loads) {
          case AxpyLoads::kAligned:
            return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kAligned, 8, 0, true>;
          case AxpyLoads::kRealigned:
            return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kRealigned, 8, 0, true>;
          case AxpyLoads::kInterleaved:
            break;
        }
        return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kInterleaved, 8, 0, true>;
      }
    }
    switch (loads) {
      case AxpyLoads::kAligned:
        if constexpr (std::is_same_v<TA, __half> && kUnroll == 4) {
          if (held) return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kAligned, 4, 4>;
        }
        return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kAligned, kUnroll>;
      case AxpyLoads::kRealigned:
        // 2-byte types take the held copy even where not held: unasked, bf16's took 74
        // registers (3 blocks per SM all the same) and ptxas had issued half of a round's
        // loads after the first vector's multiplies, which wait for its data (SASS).
        if (axpy_held_realigned<TA>(AxpyLoads::kRealigned, kUnroll, held)) {
          if (sum_later) return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kRealigned, 4, 3, false, true>;
          return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kRealigned, 4, 3>;
        }
        return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kRealigned, kUnroll>;
      case AxpyLoads::kInterleaved:
        break;
    }
    return axpy_kernel<TA, TX, TY, Acc, AxpyLoads::kInterleaved, kUnroll>;
  });
}
const char* axpy_loads_name(AxpyLoads loads) {
  switch (loads) {
    case AxpyLoads::kAligned:
      return "aligned";
    case AxpyLoads::kRealigned:
      return "realigned";
    case AxpyLoads::kInterleaved:
      break;
  }
  return "interleaved";
}

// The counters and partial sums of an Axpy reduction split `splits` ways over `tiles`
// output tiles per matrix (finish_tile in gemv_common.cuh).
template <typename TA, typename TX, typename TY, typename Acc>
void attach_axpy_partials(GemvArgs<TA, TX, TY, Acc>& args, index_t tiles, index_t splits,
                          fastmv::detail::CudaState& state) {
  const auto workspace = state.workspace(static_cast<std::size_t>(args.batch * tiles),
                                         static_cast<std::size_t>(args.batch * splits * args.length) * sizeof(Acc));
  args.counters = workspace.counters;
  args.partials = static_cast<Acc*>(workspace.scratch);
}

// The split tiles' partial sums that a kSumLater grid left in args.partials, added and
// finished by axpy_split_sum_kernel, launched early behind that grid (32 outputs a block).
template <typename TA, typename TX, typename TY, typename Acc>
void launch_split_sums(const GemvArgs<TA, TX, TY, Acc>& args, fastmv::detail::CudaState& state) {
  launch(axpy_split_sum_kernel<TY, Acc, GemvArgs<TA, TX, TY, Acc>>,
         dim3(static_cast<unsigned>(ceil_div(args.length, index_t(32))), 1, static_cast<unsigned>(args.batch)), 0,
         state, early_launch(state), 0, args);
}

// --- The Axpy form through the TMA unit (gemv_axpy_tma.cuh).

// cuTensorMapEncodeTiled, found at run time (libfastmv does not link libcuda); null
// where the driver lacks it.
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
EncodeTiled tensor_map_encoder() {
  static const EncodeTiled encode =
      reinterpret_cast<EncodeTiled>(fastmv::cuda::driver_function("cuTensorMapEncodeTiled"));
  return encode;
}

template <typename T>
CUtensorMapDataType tensor_map_type() {
  if constexpr (std::is_same_v<T, float>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  if constexpr (std::is_same_v<T, double>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  if constexpr (std::is_same_v<T, __half>) return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}

// A tiled tensor map of `rank` dimensions (sizes and byte strides of dimensions 1..),
// zeros outside it. False where the driver refuses it.
template <typename T>
bool encode_map(CUtensorMap& map, const void* base, cuuint32_t rank, const cuuint64_t* sizes,
                const cuuint64_t* strides, const cuuint32_t* box) {
  const EncodeTiled encode = tensor_map_encoder();
  if (encode == nullptr) return false;
  const cuuint32_t unit[3] = {1, 1, 1};
  return encode(&map, tensor_map_type<T>(), rank, const_cast<void*>(base), sizes, strides, box, unit,
                CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Whether `tiles` TMA tiles (over all the batch's matrices) of a matrix of
// `matrix_bytes` are few enough to split the reduction as a tall matrix with few outputs:
// under axpy_tma_split_max_tiles_percent of the SMs, from axpy_tma_split_min_bytes
// (GemvPolicy). axpy_tma counts them at 8 words to choose that width, axpy_tma_with at
// the width chosen to split.
bool tma_tiles_few(index_t tiles, index_t matrix_bytes, const fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  return policy.axpy_tma_split_min_bytes > 0 && matrix_bytes >= policy.axpy_tma_split_min_bytes &&
         100 * tiles < policy.axpy_tma_split_max_tiles_percent * state.multiprocessors;
}

// The ring of an unsplit grid of `blocks` TMA tiles in one matrix (6 or 5
// stages by the share of the SMs it occupies), or 0 where the rule does not apply
// (GemvPolicy::axpy_tma_mid_ring_min_blocks_percent); `widened`: for tiles that the rule
// widens from 4 words or tiles of 16 words, which fast memory takes only at
// axpy_tma_mid_ring_fast_memory 2.
index_t axpy_tma_mid_ring(index_t blocks, bool widened, const fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t percent = 100 * blocks;
  const index_t sms = state.multiprocessors;
  if (policy.axpy_tma_mid_ring5_max_blocks_percent == 0 || percent < policy.axpy_tma_mid_ring_min_blocks_percent * sms ||
      (fast_memory(state) && policy.axpy_tma_mid_ring_fast_memory < (widened ? 2 : 1))) {
    return 0;
  }
  if (percent <= policy.axpy_tma_mid_ring6_max_blocks_percent * sms) return 6;
  if (percent <= policy.axpy_tma_mid_ring5_max_blocks_percent * sms) return 5;
  return 0;
}

template <typename TA, typename TX, typename TY, typename Acc, int kWords, bool kRealigned, bool kSumLater = false>
auto axpy_tma_variant() {
  return axpy_tma_kernel<TA, TX, TY, Acc, kWords, kRealigned, kSumLater>;
}

// Queues the call on the TMA kernel with tiles of kWords words and returns true, or
// returns false (nothing queued) where the driver refuses the tensor maps (axpy_tma
// and axpy have checked the rest: alignment, contiguous x, 32-bit coordinates).
template <typename TA, typename TX, typename TY, typename Acc, int kWords, bool kRealigned>
bool axpy_tma_with(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  constexpr index_t kTile = kWords * V;
  constexpr index_t kColumns = kTmaColumns<kWords>;
  const GemvPolicy& policy = GemvPolicy::get();
  index_t stages_in_ring = policy.axpy_tma_stages;
  std::size_t shared = axpy_tma_shared_bytes<TA, TX, kWords, kRealigned>(static_cast<int>(stages_in_ring));
  const auto kernel = axpy_tma_variant<TA, TX, TY, Acc, kWords, kRealigned>();

  AxpyTmaMaps maps;
  const index_t a_bytes = static_cast<index_t>(sizeof(TA));
  const index_t x_bytes = static_cast<index_t>(sizeof(TX));
  const auto round16 = [](index_t bytes) { return (bytes + 15) / 16 * 16; };
  // The classes of vectors (gemv_axpy_tma.cuh): every `classes`-th vector starts at
  // the same offset from a 16-byte boundary. A batch's matrices must keep those offsets.
  int classes = 1;
  while (classes < kTmaMaxClasses && classes * args.lda * a_bytes % 16 != 0) classes *= 2;
  if (classes * args.lda * a_bytes % 16 != 0 || (args.batch > 1 && args.stride_a * a_bytes % 16 != 0) ||
      args.count < classes || kRealigned != (classes > 1 || !aligned16(args.A))) {
    return false;
  }
  maps.classes = classes;
  maps.log_classes = classes == 8 ? 3 : classes == 4 ? 2 : classes == 2 ? 1 : 0;
  for (int c = 0; c < classes; ++c) {
    const auto first = reinterpret_cast<std::uintptr_t>(args.A + c * args.lda);
    const auto base = first / 16 * 16;
    maps.shift[c] = static_cast<int>((first - base) / static_cast<std::uintptr_t>(a_bytes));
    const cuuint64_t a_sizes[3] = {static_cast<cuuint64_t>(args.length + maps.shift[c]),
                                   static_cast<cuuint64_t>(ceil_div(args.count - c, static_cast<index_t>(classes))),
                                   static_cast<cuuint64_t>(args.batch)};
    const cuuint64_t a_strides[2] = {
        static_cast<cuuint64_t>(classes * args.lda * a_bytes),
        static_cast<cuuint64_t>(args.batch > 1 ? args.stride_a * a_bytes : a_sizes[1] * classes * args.lda * a_bytes)};
    const cuuint32_t a_box[3] = {static_cast<cuuint32_t>(kTile + (kRealigned ? V : 0)),
                                 static_cast<cuuint32_t>(kColumns / classes), 1};
    if (!encode_map<TA>(maps.a[c], reinterpret_cast<const void*>(base), 3, a_sizes, a_strides, a_box)) {
      return false;
    }
  }
  const cuuint64_t x_sizes[2] = {static_cast<cuuint64_t>(args.count), static_cast<cuuint64_t>(args.batch)};
  const cuuint64_t x_strides[1] = {
      static_cast<cuuint64_t>(args.batch > 1 ? args.stride_x * x_bytes : round16(args.count * x_bytes))};
  const cuuint32_t x_box[2] = {static_cast<cuuint32_t>(kColumns), 1};
  if (!encode_map<TX>(maps.x, args.x, 2, x_sizes, x_strides, x_box)) return false;

  // Splits of the reduction only where the tiles leave most SMs idle (tall-skinny A),
  // then enough to fill the block slots: their partial sums and handshake cost about
  // 2 us, a third of a small call (bf16 2048^2, 64 tiles: 8.2 us with 2 splits, 5.9
  // without), but 100000 x 256 row T makes 8 tiles. Each split keeps at least
  // axpy_tma_min_stages_per_split stages. From axpy_tma_split_min_bytes also where the
  // tiles number under axpy_tma_split_max_tiles_percent of the SMs (GemvPolicy), and
  // there one block an SM instead (axpy_tma_split_wide; forced splits of squares of
  // 92-128 tiles, 2-5 ways, were 10-25 % slower: bf16 5888^2 26.5 -> 29.2-32.9 us).
  const index_t slots = resident_blocks(kernel, shared) * state.multiprocessors;  // allows `shared`, too
  const index_t tiles = ceil_div(args.length, kTile) * args.batch;
  const index_t stages = ceil_div(args.count, kColumns);
  const bool large_few_tiles = tma_tiles_few(tiles, args.count * args.length * a_bytes, state);
  const index_t most_splits = stages / std::max<index_t>(1, policy.axpy_tma_min_stages_per_split);
  index_t splits = 1;
  if (large_few_tiles && policy.axpy_tma_split_wide == 1 && args.batch == 1) {
    // axpy_tma_split_blocks_per_sm blocks an SM (GemvPolicy::axpy_tma_split_wide).
    splits = std::max<index_t>(
        1, std::min(policy.axpy_tma_split_blocks_per_sm * state.multiprocessors / tiles, most_splits));
  } else if ((4 * tiles < state.multiprocessors || large_few_tiles) && args.batch == 1) {
    splits = std::max<index_t>(1, std::min(ceil_div(slots, tiles), most_splits));
  }
  if (policy.axpy_tma_splits > 0 && args.batch == 1) splits = std::min(policy.axpy_tma_splits, stages);
  splits = std::min(splits, policy.max_splits);
  args.split_length = ceil_div(stages, splits) * kColumns;
  splits = ceil_div(args.count, args.split_length);
  args.splits = static_cast<int>(splits);
  // Grids of few blocks, in 2-byte types unsplit grids of short blocks, and grids of at
  // most one block an SM over the most bytes of A, whose blocks have more stages than the
  // ring holds keep a deeper ring each (GemvPolicy::axpy_tma_deep_ring_max_blocks_percent,
  // axpy_tma_deep_ring_2byte_max_stages, axpy_tma_deep_ring_min_bytes).
  const index_t blocks = tiles * splits;
  const index_t block_stages = args.split_length / kColumns;
  const bool few_blocks = 100 * blocks <= policy.axpy_tma_deep_ring_max_blocks_percent * state.multiprocessors;
  const bool short_blocks =
      sizeof(TA) == 2 && splits == 1 && block_stages <= policy.axpy_tma_deep_ring_2byte_max_stages &&
      blocks <= state.multiprocessors &&
      (kWords >= 8 || 100 * blocks <= policy.axpy_tma_deep_ring_4word_max_blocks_percent * state.multiprocessors);
  const bool huge = policy.axpy_tma_deep_ring_min_bytes > 0 && blocks <= state.multiprocessors &&
                    args.count * args.length * a_bytes * args.batch >= policy.axpy_tma_deep_ring_min_bytes;
  if ((few_blocks || short_blocks || huge) && policy.axpy_tma_deep_ring_stages > stages_in_ring &&
      block_stages > stages_in_ring) {
    stages_in_ring = policy.axpy_tma_deep_ring_stages;
  } else if (((sizeof(TA) == 2 && kWords >= 8) || (sizeof(TA) == 4 && kWords == 16)) && !kRealigned && splits == 1 &&
             args.batch == 1) {
    // Unsplit grids of 8-word (2-byte) or 16-word (2- and 4-byte) tiles over about half
    // the SMs, 5-6 stages (GemvPolicy::axpy_tma_mid_ring_min_blocks_percent; axpy_tma, the width).
    const index_t ring = axpy_tma_mid_ring(blocks, /*widened=*/kWords == 16, state);
    if (ring > stages_in_ring && block_stages > stages_in_ring) stages_in_ring = ring;
  }
  if (stages_in_ring != policy.axpy_tma_stages) {
    shared = axpy_tma_shared_bytes<TA, TX, kWords, kRealigned>(static_cast<int>(stages_in_ring));
    resident_blocks(kernel, shared);  // allows `shared`
  }
  const index_t tiles_per_batch = ceil_div(args.length, kTile);
  if (splits > 1) attach_axpy_partials(args, tiles_per_batch, splits, state);
  // The split tiles' partial sums added by a second kernel (GemvPolicy::axpy_tma_sum_kernel).
  const bool sum_later = !kRealigned && splits > 1 &&
                         (policy.axpy_tma_sum_kernel == 2 ||
                          (policy.axpy_tma_sum_kernel == 1 && large_few_tiles &&
                           splits >= policy.axpy_tma_sum_min_splits && splits <= policy.axpy_tma_sum_max_splits &&
                           args.count * args.length * a_bytes < policy.axpy_tma_sum_max_bytes));
  if (policy.trace) {
    trace_call("axpy tma", args);
    std::fprintf(stderr, "tile %lld x %lld, %d classes, stages %lld, splits %lld%s, %lld blocks (%lld slots)\n",
                 static_cast<long long>(kTile), static_cast<long long>(kColumns), classes,
                 static_cast<long long>(stages_in_ring), static_cast<long long>(splits),
                 sum_later ? " (summed by a second kernel)" : "", static_cast<long long>(blocks),
                 static_cast<long long>(slots));
  }
  // Early launch slowed split grids of the narrowest tiles where they are many blocks
  // (GemvPolicy::early_launch_tma_narrow_max_blocks).
  const index_t early = kWords == 4 && splits > 1 && blocks > policy.early_launch_tma_narrow_max_blocks
                            ? 0
                            : early_launch(state, /*tma=*/true);
  args.prefetch = early == 2 ? 1 : 0;
  args.next_at = static_cast<int>(splits > 1 ? policy.early_launch_tma_next_split : policy.early_launch_tma_next);
  const dim3 grid(static_cast<unsigned>(tiles_per_batch), static_cast<unsigned>(splits),
                  static_cast<unsigned>(args.batch));
  if constexpr (!kRealigned) {
    if (sum_later) {  // the split tiles' sums in a second kernel
      const auto split_kernel = axpy_tma_variant<TA, TX, TY, Acc, kWords, false, true>();
      resident_blocks(split_kernel, shared);  // allows `shared`
      launch(split_kernel, grid, shared, state, early, 0, args, maps, static_cast<int>(stages_in_ring));
      launch_split_sums(args, state);
      return true;
    }
  }
  launch(kernel, grid, shared, state, early, 0, args, maps, static_cast<int>(stages_in_ring));
  return true;
}

// The TMA kernel's tile width, 4, 8 or 16 words of each vector: the widest whose tiles
// still occupy half the SMs (16 words: more than half), else 4, and 8 words at least for
// vectors 16 bytes into a 32-byte sector (figures at GemvPolicy::axpy_tma_wide_tiles_percent).
// Narrow tiles (64 bytes of each vector) spread small matrices over more SMs (bf16
// 1024^2: 3.8 us against 5.1 with 128-byte tiles), wide ones read DRAM better once every
// SM has a tile (bf16 6400^2, 100 tiles of 128 bytes: 31.1 us against 36.8 with 200 of 64;
// fp32 4360^2, 69 tiles of 256 bytes: 27.7 against 30.9).
//
// Above axpy_tma_max_bytes(_2byte) (`large`), only where that tiling gives each SM at
// most about one tile (axpy_tma_large_max_tiles_percent of the SM count) of at least 8
// words; else false, and the register kernel reads it. Same run, two rounds each,
// against the register kernel: half precision with lda 8 past a multiple of 256 (each
// vector's 512-byte pieces 16 bytes past a 32-byte sector, 17 sectors for 16) 7-16 %
// faster (bf16 8200^2, 129 tiles, 53.9 -> 49.2 us; 11016^2 98.1 -> 84.4; fp16 11016^2
// 102.1 -> 84.4), the multiples of 256 from 4 % slower (fp16 8448^2) to 1 % faster;
// fp32 7168^2-8456^2 2-4 % faster (8456^2, 133 tiles, 100.4 -> 98.7). But fp32 8712^2
// (137 tiles) 107.1 -> 114.9, 9216^2 (144) 115.5 -> 120.2, 12296^2 (193: 61 SMs read
// two) 205.8 -> 252.3, and bf16 128256 x 4096 row T (128 tiles of 4 words) 346 -> 376.
// (32-word tiles for fp32 from 8448 on: 1-5 % faster with lda 8 past a multiple of 256,
// 1-6 % slower on the multiples; not kept.)
template <typename TA, typename TX, typename TY, typename Acc>
bool axpy_tma(const GemvArgs<TA, TX, TY, Acc>& args, bool large, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t x_bytes = static_cast<index_t>(sizeof(TX));
  // The box coordinates are 32-bit, up to a stage (<= 256 vectors) past the last vector.
  const bool fits = state.compute_major >= 9 && args.incx == 1 && aligned16(args.x) &&
                    (args.batch == 1 || args.stride_x * x_bytes % 16 == 0) && args.length < (index_t(1) << 31) &&
                    args.count + 4 * kBlockThreads < (index_t(1) << 31) && args.batch <= static_cast<index_t>(kMaxGridZ);
  if (!fits) return false;
  // Tiles of `w` words over the batch's matrices, and that count as a percentage.
  const auto tiles_at = [&](index_t w) { return ceil_div(args.length, w * V) * args.batch; };
  const auto tiles_percent = [&](index_t w) { return 100 * tiles_at(w); };
  index_t words = policy.axpy_tma_words;
  if (words == 0) {
    const index_t sms = state.multiprocessors;
    // Each vector on 32-byte sectors, or 16 bytes past one (its pieces straddle sectors).
    const index_t lda_bytes = args.lda * static_cast<index_t>(sizeof(TA));
    const bool on_sector = lda_bytes % 32 == 0;
    const bool straddled = lda_bytes % 32 == 16;
    words = tiles_percent(16) >= policy.axpy_tma_widest_tiles_percent * sms ? 16
            : tiles_percent(8) >= policy.axpy_tma_wide_tiles_percent * sms  ? 8
                                                                              : 4;
    // 2-byte vectors on sectors whose 8-word tiles fill about half the SMs: 8 words, in a
    // ring of 5-6 stages (axpy_tma_mid_ring; GemvPolicy::axpy_tma_mid_ring_min_blocks_percent),
    // up to axpy_tma_max_bytes_2byte and where the blocks are too long for the deep ring.
    if (sizeof(TA) == 2 && words == 4 && !large && on_sector && args.batch == 1 && aligned16(args.A) &&
        ceil_div(args.count, index_t(kTmaColumns<8>)) > policy.axpy_tma_deep_ring_2byte_max_stages &&
        axpy_tma_mid_ring(tiles_at(8), /*widened=*/true, state) > 0) {
      words = 8;
    }
    const index_t straddle_words = policy.axpy_tma_straddle_min_words;
    if (straddled && straddle_words > words &&
        tiles_percent(straddle_words) >= policy.axpy_tma_straddle_min_tiles_percent * sms) {
      words = straddle_words;
    }
    // Tall matrices split one block an SM (axpy_tma_with's large_few_tiles) read tiles
    // of 8 words, where there are few tiles of the chosen width or the vectors straddle
    // sectors (GemvPolicy::axpy_tma_split_wide).
    const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
    const auto few_at = [&](index_t w) {
      return tma_tiles_few(tiles_at(w), matrix_bytes, state);
    };
    if (policy.axpy_tma_split_wide == 1 && words < 8 && args.batch == 1 && few_at(8) && (few_at(words) || straddled)) {
      words = 8;
    }
    // ... on fast memory 16 words in 2-byte types where there are few of those too, but at
    // least axpy_tma_split_16word_min_tiles, and not where the 16-word rule below would
    // send them to the register kernel (GemvPolicy::axpy_tma_split_16word_fast_memory).
    if (sizeof(TA) == 2 && words == 8 && args.batch == 1 && policy.axpy_tma_split_wide == 1 &&
        policy.axpy_tma_split_16word_fast_memory == 1 && few_at(8) && few_at(16) &&
        tiles_at(16) >= policy.axpy_tma_split_16word_min_tiles &&
        !(large && on_sector) && fast_memory(state)) {
      words = 16;
    }
    // Above axpy_tma_max_bytes_2byte, half-precision matrices with few outputs, whose
    // tiles of 4 words the rule below would leave to the register kernel: tiles of 16
    // words split one block an SM (GemvPolicy::axpy_tma_large_split_2byte).
    if (large && sizeof(TA) == 2 && policy.axpy_tma_large_split_2byte == 1 && words < 8 && args.batch == 1 &&
        few_at(16)) {
      words = 16;
    }
    // On fast memory, above axpy_tma_max_bytes_2byte, half-precision vectors on 32-byte
    // sectors that this chose 16-word tiles for are the register kernel's
    // (GemvPolicy::axpy_tma_large_16word_fast_memory).
    if (large && sizeof(TA) == 2 && words == 16 &&
        on_sector && policy.axpy_tma_large_16word_fast_memory == 1 &&
        fast_memory(state)) {
      return false;
    }
    // ... and below it, from axpy_tma_fast_memory_register_min_bytes, such vectors in
    // unsplit tiles of 8 or 16 words (at least axpy_tma_wide_tiles_percent of the SMs).
    if (!large && sizeof(TA) == 2 && words >= 8 && args.batch == 1 &&
        on_sector && policy.axpy_tma_fast_memory_register_min_bytes > 0 &&
        matrix_bytes >= policy.axpy_tma_fast_memory_register_min_bytes &&
        tiles_percent(words) >= policy.axpy_tma_wide_tiles_percent * sms && fast_memory(state)) {
      return false;
    }
    // ... and at any size from axpy_tma_fast_memory_register_4byte_min_bytes, 4-byte vectors
    // on sectors in unsplit tiles of 8 or 16 words that nearly fill the SMs
    // (GemvPolicy::axpy_tma_fast_memory_register_4byte_min_tiles_percent).
    if (sizeof(TA) == 4 && words >= 8 && args.batch == 1 && aligned16(args.A) &&
        on_sector &&
        policy.axpy_tma_fast_memory_register_4byte_min_tiles_percent > 0 &&
        policy.axpy_tma_fast_memory_register_4byte_min_bytes > 0 &&
        matrix_bytes >= policy.axpy_tma_fast_memory_register_4byte_min_bytes && !few_at(words) &&
        tiles_percent(words) >= policy.axpy_tma_fast_memory_register_4byte_min_tiles_percent * sms &&
        fast_memory(state)) {
      return false;
    }
  }
  // A stage's box spans 4 * 256 / words vectors: fewer vectors than that would have
  // the TMA unit fill mostly zeros (1048576 x 16 column-major: 506 us against 27).
  if (args.count < 4 * kBlockThreads / words) return false;
  // 4-byte types with more tiles than that share of the SMs (few long vectors, only
  // short-wide matrices have them) in matrices from axpy_tma_4byte_max_tiles_min_bytes
  // are the register kernel's (GemvPolicy::axpy_tma_4byte_max_tiles_percent); above
  // axpy_tma_max_bytes the rule below decides (fp32 8449^2-8456^2, 133 tiles, stay on TMA).
  if (sizeof(TA) == 4 && !large && policy.axpy_tma_4byte_max_tiles_percent > 0 &&
      args.count * args.length * static_cast<index_t>(sizeof(TA)) * args.batch >=
          policy.axpy_tma_4byte_max_tiles_min_bytes &&
      tiles_percent(words) > policy.axpy_tma_4byte_max_tiles_percent * state.multiprocessors) {
    return false;
  }
  // (4-byte types of few vectors up to more tiles: GemvPolicy::axpy_tma_large_4byte_few_vectors.)
  const index_t large_max_tiles_percent =
      sizeof(TA) == 4 && args.count <= policy.axpy_tma_large_4byte_few_vectors
          ? std::max(policy.axpy_tma_large_max_tiles_percent, policy.axpy_tma_large_4byte_few_vectors_max_tiles_percent)
          : policy.axpy_tma_large_max_tiles_percent;
  if (large && (words < 8 || tiles_percent(words) > large_max_tiles_percent * state.multiprocessors)) {
    return false;
  }
  const bool realigned = !aligned16(args.A) || args.lda * static_cast<index_t>(sizeof(TA)) % 16 != 0;
  // On fast memory, realigned 4-byte vectors (classes) only where the tiles number
  // axpy_tma_unaligned_fast_memory_min_tiles_percent to ..._max_tiles_percent of the SMs.
  if (realigned && sizeof(TA) == 4 && policy.axpy_tma_unaligned_fast_memory_min_tiles_percent > 0 &&
      fast_memory(state) &&
      (tiles_percent(words) < policy.axpy_tma_unaligned_fast_memory_min_tiles_percent * state.multiprocessors ||
       tiles_percent(words) > policy.axpy_tma_unaligned_fast_memory_max_tiles_percent * state.multiprocessors)) {
    return false;
  }
  const auto with = [&](auto realigned_tag) {
    constexpr bool kRealigned = decltype(realigned_tag)::value;
    if (words == 16) return axpy_tma_with<TA, TX, TY, Acc, 16, kRealigned>(args, state);
    if (words == 8) return axpy_tma_with<TA, TX, TY, Acc, 8, kRealigned>(args, state);
    return axpy_tma_with<TA, TX, TY, Acc, 4, kRealigned>(args, state);
  };
  return realigned ? with(std::true_type{}) : with(std::false_type{});
}

// --- The Dot form through the TMA unit (gemv_dot_tma.cuh).

// Queues the call on dot_tma_kernel with kWords words a row a stage; false (nothing
// queued) where the driver refuses the tensor maps.
template <typename TA, typename TX, typename TY, typename Acc, int kWords>
bool dot_tma_with(GemvArgs<TA, TX, TY, Acc> args, index_t rows, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  constexpr index_t kBoxWords = kDotTmaBoxWords<TA, kWords>;
  const GemvPolicy& policy = GemvPolicy::get();
  const auto round128 = [](index_t bytes) { return (bytes + 127) / 128 * 128; };
  DotTmaPlan plan;
  plan.rows = static_cast<int>(rows);
  plan.stages = static_cast<int>(ceil_div(ceil_div(args.length, V), kWords));
  plan.a_box_bytes = static_cast<int>(round128(rows * kBoxWords * 16));
  plan.stage_bytes = static_cast<int>((kWords / kBoxWords) * plan.a_box_bytes +
                                      kWords * V * static_cast<index_t>(sizeof(TX)));
  const cuuint64_t a_sizes[2] = {static_cast<cuuint64_t>(args.length), static_cast<cuuint64_t>(args.count)};
  const cuuint64_t a_strides[1] = {static_cast<cuuint64_t>(args.lda * static_cast<index_t>(sizeof(TA)))};
  const cuuint32_t a_box[2] = {static_cast<cuuint32_t>(kBoxWords * V), static_cast<cuuint32_t>(rows)};
  if (!encode_map<TA>(plan.a, args.A, 2, a_sizes, a_strides, a_box)) return false;
  const cuuint64_t x_sizes[2] = {static_cast<cuuint64_t>(args.length), 1};
  const cuuint64_t x_strides[1] = {
      static_cast<cuuint64_t>((args.length * static_cast<index_t>(sizeof(TX)) + 15) / 16 * 16)};
  const cuuint32_t x_box[2] = {static_cast<cuuint32_t>(kBoxWords * V), 1};
  if (!encode_map<TX>(plan.x, args.x, 2, x_sizes, x_strides, x_box)) return false;

  // The ring, as deep as dot_tma_stages and the SM's shared memory allow.
  constexpr std::size_t kMostShared = 227 * 1024;
  int stages_in_ring = static_cast<int>(policy.dot_tma_stages);
  while (stages_in_ring > 2 && dot_tma_shared_bytes(plan, stages_in_ring) > kMostShared) --stages_in_ring;
  const std::size_t shared = dot_tma_shared_bytes(plan, stages_in_ring);
  if (shared > kMostShared) return false;
  const auto kernel = dot_tma_kernel<TA, TX, TY, Acc, kWords>;
  resident_blocks(kernel, shared);  // allows `shared`
  const index_t early = early_launch(state, /*tma=*/true);
  args.prefetch = early == 2 ? 1 : 0;
  const index_t blocks = ceil_div(args.count, rows);
  if (policy.trace) {
    trace_call("dot tma", args);
    std::fprintf(stderr, "bands of %lld rows, stages of %d words a row (%d stages), ring %d, %lld blocks\n",
                 static_cast<long long>(rows), kWords, plan.stages, stages_in_ring, static_cast<long long>(blocks));
  }
  launch(kernel, dim3(static_cast<unsigned>(blocks)), shared, state, early, 0, args, plan, stages_in_ring);
  return true;
}

// Queues the call on dot_tma_kernel and returns true where the policy takes it
// (GemvPolicy::dot_tma) and it fits: compute capability 9, one matrix, aligned rows,
// a contiguous aligned x, a band the kernel holds, 32-bit coordinates, and a driver
// that encodes the tensor maps; else false, nothing queued.
//
// The bands: rows / (SMs * dot_tma_blocks_per_sm) rounded up, so one block an SM reads
// every row of the band (bf16 8704^2: 66 rows, 132 blocks). A stage: the widest of 128,
// 64 and 32 words of each row of the band that the kernel's sums hold
// (kDotTmaBandRows; GemvPolicy::dot_tma_words fixes it). Wider is faster, the grid
// reading longer runs of each row at a time (H100, row N, three rounds a run): bf16
// 5888^2 in 33.0 us with stages of 23 words a row (a first version, 16 KiB stages) and
// 27.7 with 64 words, in two runs where dot_kernel took 26.7-26.8; bf16 2048^2 10.4 us
// with 32 words and 8.3 with 64 in one run, 8.9 with 64 and 6.2 with 128 in the next.
template <typename TA, typename TX, typename TY, typename Acc>
bool dot_tma(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  if (policy.dot_tma == 0 || state.compute_major < 9 || args.batch != 1 || args.incx != 1 ||
      !aligned16(args.x) || !aligned16(args.A) || args.lda % V != 0 || args.count < 1 || args.length < 1 ||
      args.length + 256 * V >= (index_t(1) << 31) || args.count >= (index_t(1) << 31)) {
    return false;
  }
  const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA));
  const index_t bands = policy.dot_tma_blocks_per_sm * state.multiprocessors;
  const index_t rows = ceil_div(args.count, bands);
  const index_t words = policy.dot_tma_words != 0          ? policy.dot_tma_words
                        : rows <= kDotTmaBandRows<128> ? 128
                        : rows <= kDotTmaBandRows<64>  ? 64
                                                       : 32;
  if (rows > (words == 128 ? kDotTmaBandRows<128> : words == 64 ? kDotTmaBandRows<64> : kDotTmaBandRows<32>)) {
    return false;
  }
  const bool sector_rows = args.lda * static_cast<index_t>(sizeof(TA)) % 32 == 0;
  if (policy.dot_tma == 1 && (sizeof(TA) != 2 || !sector_rows || matrix_bytes < policy.dot_tma_min_bytes ||
                              rows < policy.dot_tma_2byte_min_band_rows || rows > policy.dot_tma_2byte_max_band_rows)) {
    return false;
  }
  if (words == 128) return dot_tma_with<TA, TX, TY, Acc, 128>(args, rows, state);
  return words == 64 ? dot_tma_with<TA, TX, TY, Acc, 64>(args, rows, state)
                     : dot_tma_with<TA, TX, TY, Acc, 32>(args, rows, state);
}

// The Axpy form's short vectors read as one flat run of granules (axpy_flat_kernel):
// queues the call and returns true where GemvPolicy::axpy_flat allows it and
// flat_granule finds a granule, else false. Blocks: axpy_flat_blocks_per_sm per SM
// (the last adds their partial sums, finish_tile), fewer where a block would get less
// than one round of loads.
//
// axpy_flat 1 takes vectors of 8 to 1024 bytes in matrices of at least 1 MiB. Same
// run, two rounds, row T, against the kernels before (staged <= 32 bytes, else
// axpy_kernel or the TMA kernel): fp64 1048576 x 40 424.8 -> 119.9 us (cuBLAS 126.9),
// x 64 338.8 -> 185.9 (181.4), x 9 96.5 -> 36.7; bf16 1048576 x 100 (8-byte granules)
// 220.8 -> 82.1 (102.1), x 40 66.5 -> 37.3 (49.2), x 16 25.6 -> 19.2, 4194304 x 4 26.4
// -> 21.9; fp32 1048576 x 40 99.2 -> 64.9, x 128 207.0 -> 186.3, 2097152 x 8 37.3 ->
// 31.2. Losses: fp32 33554432 x 2 145.1 -> 153.4 (8-byte vectors), bf16 65536 x 41
// (2-byte granules, 16 bytes in flight a thread) 9.2 -> 10.9, fp64 16384 x 100 12.1 ->
// 13.7, fp32 and bf16 1048576 x 64 2 % slower; vectors of 2 KiB 6-13 % slower (bf16
// 262144 x 1024 180.5 -> 205.1), under 1 MiB mixed (fp64 1000 x 40 4.4 -> 6.0, bf16
// 4096 x 4 5.5 -> 3.6), 4 blocks an SM 0-20 % slower, 1 up to 12 %. axpy_flat 2: every
// vector it can (tests).
template <typename TA, typename TX, typename TY, typename Acc>
bool axpy_flat(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t element = static_cast<index_t>(sizeof(TA));
  const index_t vector_bytes = args.length * element;
  if (policy.axpy_flat == 0) return false;
  if (policy.axpy_flat == 1 &&
      (vector_bytes < policy.axpy_flat_min_vector_bytes || vector_bytes > policy.axpy_flat_max_vector_bytes ||
       args.count * vector_bytes * args.batch < policy.axpy_flat_min_bytes)) {
    return false;
  }
  const index_t granule = flat_granule(args);
  if (granule == 0) return false;
  const index_t per_vector = args.lda * element / granule;
  const index_t one_group_min_bytes =
      sizeof(TA) == 2 ? policy.axpy_flat_one_group_min_bytes_2byte : policy.flat_one_group_min_bytes;
  if (policy.axpy_flat == 1 &&
      flat_one_group_refused(per_vector, args.count * vector_bytes * args.batch, one_group_min_bytes)) {
    return false;
  }
  const index_t groups = kBlockThreads / per_vector;
  const index_t unroll = flat_unroll(granule);
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);

  const auto kernel_for = [&](auto bytes_tag) {
    return axpy_flat_kernel<TA, TX, TY, Acc, decltype(bytes_tag)::value>;
  };
  const auto go = [&](auto kernel) {
    const index_t per_sm = std::min(policy.axpy_flat_blocks_per_sm, resident_blocks(kernel));
    index_t splits = std::max<index_t>(1, std::min(per_sm * state.multiprocessors / batch_z,
                                                   ceil_div(args.count, groups * unroll)));
    splits = std::min(splits, std::max<index_t>(1, policy.max_workspace_bytes /
                                                       (args.batch * args.length * static_cast<index_t>(sizeof(Acc)))));
    if (args.batch > static_cast<index_t>(kMaxGridZ)) splits = 1;
    args.split_length = ceil_div(args.count, splits);
    splits = ceil_div(args.count, args.split_length);
    args.splits = static_cast<int>(splits);
    args.lanes = static_cast<int>(per_vector);
    args.groups_k = static_cast<int>(groups);
    if (splits > 1) attach_axpy_partials(args, 1, splits, state);
    if (policy.trace) {
      trace_call("axpy flat", args);
      std::fprintf(stderr, "%lld-byte granules, %lld a vector, %lld groups, %lld blocks\n",
                   static_cast<long long>(granule), static_cast<long long>(per_vector),
                   static_cast<long long>(groups), static_cast<long long>(splits * batch_z));
    }
    launch(kernel, dim3(1, static_cast<unsigned>(splits), static_cast<unsigned>(batch_z)), 0, state,
           early_launch(state), 0, args);
    return true;
  };
  return with_granule<TA>(granule, kernel_for, go);
}

// The Axpy form through the narrow kernel (axpy_narrow_kernel, GemvPolicy::axpy_narrow):
// tiles of 16 or 32 outputs, one a thread, each block walking all of its split of the
// vectors. Queues the call and returns true where the policy takes it, else false.
//
// It is the layout of cuBLAS's gemvx kernel at these sizes (Nsight Compute, fp32 col N
// 3585^2: 113 blocks of 32 x 16 threads, 128 registers, no split; 1537^2: 97 blocks of 16
// x 32), which beat the interleaved register kernel from 1.5 to 64 MiB with odd lda.
// There, 522 short blocks (18 splits of 200 vectors per 128-output tile, 2 rounds of
// loads each) ended far apart: SMs active 40.8 K of 51.3 K cycles, against cuBLAS's
// working SMs 37.4 K of 46.0 K. Same run, three rounds, col N, the register kernel
// (interleaved, or TMA where aligned) -> narrow (cuBLAS): fp32 1281^2 10.14 -> 6.32 us
// (16.89), 1537^2 9.10 -> 7.11 (7.65), 2049^2 11.22 -> 9.73 (10.62), 2561^2 14.10 -> 13.20
// (13.53), 3585^2 22.94 -> 20.43 (20.94), 4097^2 28.11 -> 25.99 (26.68); aligned 2048^2 9.33
// -> 8.83 (9.97), 3584^2 20.73 -> 19.55 (20.52), 3848^2 24.93 -> 23.53 (23.14) (since the
// sixty-third session the TMA kernel beats it there:
// GemvPolicy::axpy_narrow_aligned_4byte_max_bytes); bf16 1281^2 7.00 -> 5.81 (7.33),
// 1537^2 7.87 -> 6.28 (6.84), 1100 x 2001 10.03 -> 6.50 (8.29); fp64 2048^2 14.83 -> 12.74,
// 2049^2 16.08 -> 14.90. Not taken, from the same runs: tiles that
// leave SMs idle in large matrices (fp32 1031 x 16001, 65 tiles, 27.97 -> 31.07; 1031 x 8003
// 16.57 -> 16.88), hence the fill rule; more tiles than SMs (fp32 4609^2, 145 tiles of 32,
// 34.2 -> 42.0: two waves); the narrow kernel's own splits (1031 x 4099 10.37 -> 12.20 with
// 2, 2049^2 9.68 -> 11.04 with tiles of 32 and 2 splits); tiles of 32 for 2-byte and
// 8-byte types (bf16 3073^2 11.90 -> 12.90 with 32 in flight, fp64 3073^2 29.42 -> 29.93);
// aligned 2-byte vectors (TMA, bf16 2056^2 7.36 -> 8.01, before x was read as words and
// tiles of 16 skipped the L2 prefetch: since then they won where rows miss 128-byte lines,
// until the TMA kernel's later rules: GemvPolicy::axpy_narrow_aligned_2byte); 8 or 32
// vectors in flight, or 256 threads a block (fp32 3585^2 20.5 -> 23.3, 23.0, 22.4).
// The vectors past a split's last whole round, where at most one a group, read with the
// groups' first round (GemvArgs::fold_tail, sixtieth session; H100, same binary, three
// passes, their own round -> folded, cuBLAS): fp32 col N 2305^2 12.03 -> 11.80 us (12.46),
// 2561^2 13.72 -> 13.45 (13.37), 3841^2 24.13 -> 24.06 (23.46), 4097^2 27.02 -> 26.90
// (26.42), 4104^2 26.98 -> 26.58 (26.92), fp32 odd and +8 0.981-0.997x in all, aligned
// within 0.3 %; bf16 1537^2 5.58 -> 5.26, 2049^2 7.08 -> 6.76; fp64 1025^2 6.30 -> 5.91.
// Up to 16 a group, so that any tail folds: 2-60 % slower, even at aligned orders with no
// tail (fp32 4096^2 24.9 -> 26.7; bf16 1281^2 4.81 -> 7.72, whose 257 vectors past 2
// rounds of 512 now take 9 a group): not kept.
template <typename TA, typename TX, typename TY, typename Acc>
bool axpy_narrow(GemvArgs<TA, TX, TY, Acc> args, bool aligned, fastmv::detail::CudaState& state) {
  const GemvPolicy& policy = GemvPolicy::get();
  if (policy.axpy_narrow == 0) return false;
  const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA)) * args.batch;
  // Aligned 2-byte vectors where GemvPolicy::axpy_narrow_aligned_2byte takes them (else TMA).
  const bool aligned_2byte = aligned && sizeof(TA) == 2;
  const bool aligned_2byte_taken =
      policy.axpy_narrow_aligned_2byte == 2 ||
      (policy.axpy_narrow_aligned_2byte == 1 && args.lda * static_cast<index_t>(sizeof(TA)) % 128 != 0 &&
       matrix_bytes <= policy.axpy_narrow_aligned_2byte_max_bytes);
  // Aligned 4-byte vectors only up to GemvPolicy::axpy_narrow_aligned_4byte_max_bytes (by
  // default none: the TMA kernel reads them faster).
  const bool aligned_4byte_left =
      aligned && sizeof(TA) == 4 && matrix_bytes > policy.axpy_narrow_aligned_4byte_max_bytes;
  // Unaligned vectors of types up to 4 bytes whose tiles are short (below) are taken from
  // axpy_narrow_short_min_bytes, under axpy_narrow_min_bytes and the fill floors too.
  const bool short_tiles_allowed = !aligned && sizeof(TA) <= 4 && policy.axpy_narrow_short_max_tile_bytes > 0;
  const index_t min_bytes = short_tiles_allowed
                                ? std::min(policy.axpy_narrow_min_bytes, policy.axpy_narrow_short_min_bytes)
                                : policy.axpy_narrow_min_bytes;
  if (policy.axpy_narrow == 1 &&
      ((aligned_2byte && !aligned_2byte_taken) || aligned_4byte_left || matrix_bytes < min_bytes ||
       matrix_bytes >= policy.axpy_narrow_max_bytes)) {
    return false;
  }
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);
  const index_t threads = policy.axpy_narrow_threads;
  const index_t unroll = policy.axpy_narrow_unroll;
  // Rounds of 16 pipelined through two register buffers (GemvPolicy::axpy_narrow_pipelined;
  // rule 1 takes 4-byte types in tiles of 32, decided once the tile is, below; the slots
  // are counted on the unpipelined kernel, which like it runs one 512-thread block an SM).
  bool pipelined = false;
  const auto variant = [&](bool x_words) {
    const auto pick = [&](auto words_tag) {
      constexpr bool kWords = decltype(words_tag)::value;
      return unroll == 8    ? axpy_narrow_kernel<TA, TX, TY, Acc, 8, kWords>
             : unroll == 32 ? axpy_narrow_kernel<TA, TX, TY, Acc, 32, kWords>
             : pipelined    ? axpy_narrow_kernel<TA, TX, TY, Acc, 16, kWords, true>
                            : axpy_narrow_kernel<TA, TX, TY, Acc, 16, kWords>;
    };
    return x_words ? pick(std::true_type{}) : pick(std::false_type{});
  };
  const index_t slots = resident_blocks(variant(false), 0, static_cast<int>(threads)) * state.multiprocessors;
  const auto tiles_for = [&](index_t l) { return ceil_div(args.length, l) * args.batch; };
  index_t lanes = policy.axpy_narrow_lanes;
  if (lanes == 0) lanes = tiles_for(16) <= slots || sizeof(TA) != 4 ? 16 : 32;
  const index_t tiles = ceil_div(args.length, lanes);
  pipelined = unroll == 16 && (policy.axpy_narrow_pipelined == 2 ||
                               (policy.axpy_narrow_pipelined == 1 && sizeof(TA) == 4 && lanes == 32));
  const index_t floor_fill = (!aligned || aligned_2byte) && matrix_bytes <= policy.axpy_narrow_low_fill_max_bytes
                                 ? policy.axpy_narrow_low_fill_percent
                                 : policy.axpy_narrow_min_fill_percent;
  const index_t min_fill =
      sizeof(TA) == 8 ? std::min(floor_fill, policy.axpy_narrow_8byte_min_fill_percent) : floor_fill;
  // Short tiles (GemvPolicy::axpy_narrow_short_max_tile_bytes): a block reads at most that
  // much of its tile, so that the few SMs the tiles fill finish about as soon as a kernel
  // spread over all of them would; but not on fewer SMs than axpy_narrow_short_min_fill_percent.
  const bool short_tiles =
      short_tiles_allowed &&
      args.count * lanes * static_cast<index_t>(sizeof(TA)) <= policy.axpy_narrow_short_max_tile_bytes &&
      100 * tiles_for(lanes) >= policy.axpy_narrow_short_min_fill_percent * slots;
  if (policy.axpy_narrow == 1 &&
      (tiles_for(lanes) > slots ||
       (!short_tiles && (100 * tiles_for(lanes) < min_fill * slots || matrix_bytes < policy.axpy_narrow_min_bytes)))) {
    return false;
  }
  const index_t groups = threads / lanes;
  index_t splits = policy.axpy_narrow_splits;
  if (splits == 0) {
    splits = std::max<index_t>(1, slots / tiles_for(lanes));
    splits = std::min(splits, std::max<index_t>(1, args.count / (groups * unroll)));
  }
  splits = std::min({splits, policy.max_splits, std::max<index_t>(1, args.count),
                     std::max<index_t>(1, policy.max_workspace_bytes /
                                              static_cast<index_t>(args.batch * args.length * sizeof(Acc)))});
  if (args.batch > static_cast<index_t>(kMaxGridZ)) splits = 1;
  args.split_length = ceil_div(args.count, splits);
  // x read as 16-byte words, each group taking `unroll` consecutive vectors a round
  // (axpy_narrow_kernel's kXWords): every group's first vector must sit on a word.
  const index_t x_element = static_cast<index_t>(sizeof(TX));
  if (policy.axpy_narrow_x_words != 0) args.split_length = ceil_div(args.split_length, unroll) * unroll;
  splits = ceil_div(args.count, args.split_length);
  const bool x_words = policy.axpy_narrow_x_words != 0 && args.incx == 1 && aligned16(args.x) &&
                       (args.batch == 1 || args.stride_x * x_element % 16 == 0);
  const auto kernel = variant(x_words);
  args.splits = static_cast<int>(splits);
  args.lanes = static_cast<int>(lanes);
  args.groups_k = static_cast<int>(groups);
  args.fold_tail = static_cast<int>(policy.axpy_narrow_fold_tail);
  if (splits > 1) attach_axpy_partials(args, tiles, splits, state);
  if (policy.trace) {
    trace_call("axpy narrow", args);
    std::fprintf(stderr, "lanes %lld, %lld threads, unroll %lld%s, splits %lld, x %s, %lld blocks (%lld slots)\n",
                 static_cast<long long>(lanes), static_cast<long long>(threads), static_cast<long long>(unroll),
                 pipelined ? " pipelined" : "",
                 static_cast<long long>(splits), x_words ? "words" : "elements",
                 static_cast<long long>(tiles * splits * batch_z), static_cast<long long>(slots));
  }
  // Tiles of 16 outputs, and tiles of 32 over unaligned vectors, without the L2 prefetch
  // (GemvPolicy::early_launch_narrow16, early_launch_narrow32_unaligned).
  const index_t early = lanes == 16 ? std::min(early_launch(state), policy.early_launch_narrow16)
                        : !aligned  ? std::min(early_launch(state), policy.early_launch_narrow32_unaligned)
                                    : early_launch(state);
  args.prefetch = early == 2 ? 1 : 0;
  launch_sized(kernel, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits), static_cast<unsigned>(batch_z)),
               static_cast<unsigned>(threads), 0, state, early, 0, args);
  return true;
}

template <typename TA, typename TX, typename TY, typename Acc>
void axpy(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);
  const index_t words = ceil_div(args.length, V);
  const bool aligned = aligned16(args.A) && args.lda % V == 0 &&
                       (args.batch == 1 || args.stride_a % V == 0);

  if (args.count <= kFewMaxCount) {
    // ku words of y per thread, kk vectors a round (axpy_few_kernel): every vector in
    // one round, 4 to 8 words in flight per thread (3 vectors: kk 4 with the fourth
    // masked, ku 2). axpy_few_columns_per_round 1: one vector a round, 4 words (the
    // kernel before, for comparisons).
    const bool one_a_round = policy.axpy_few_columns_per_round == 1;
    const index_t kk = one_a_round ? 1 : std::min<index_t>(pow2_ceil(args.count), kFewMaxCount);
    const index_t ku = kk == 1 ? 4 : kk == 8 ? 1 : 2;
    // ku words per thread, but no fewer than 2 blocks per SM while there is a word for
    // every thread (3 x 100003 bf16 made 13 blocks).
    const index_t slots = state.multiprocessors * policy.target_threads_per_sm / kBlockThreads;
    const index_t blocks = std::max<index_t>(
        1, std::min(std::max(ceil_div(words, kBlockThreads * ku),
                             std::min<index_t>(ceil_div(words, kBlockThreads), 2 * state.multiprocessors)),
                    slots));
    const dim3 grid(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(batch_z));
    const auto few = [&](auto aligned_tag, auto u_tag, auto k_tag) {
      launch(axpy_few_kernel<TA, TX, TY, Acc, decltype(aligned_tag)::value, decltype(u_tag)::value,
                             decltype(k_tag)::value>,
             grid, 0, state, early_launch(state), 0, args);
    };
    const auto few_aligned = [&](auto aligned_tag) {
      if (kk == 1) return few(aligned_tag, std::integral_constant<int, 4>{}, std::integral_constant<int, 1>{});
      if (kk == 2) return few(aligned_tag, std::integral_constant<int, 2>{}, std::integral_constant<int, 2>{});
      if (kk == 4) return few(aligned_tag, std::integral_constant<int, 2>{}, std::integral_constant<int, 4>{});
      return few(aligned_tag, std::integral_constant<int, 1>{}, std::integral_constant<int, 8>{});
    };
    if (policy.trace) {
      trace_call("axpy few", args);
      std::fprintf(stderr, "%lld words x %lld vectors a round, %s, %lld blocks\n", static_cast<long long>(ku),
                   static_cast<long long>(kk), aligned ? "aligned" : "unaligned",
                   static_cast<long long>(blocks * batch_z));
    }
    aligned ? few_aligned(std::true_type{}) : few_aligned(std::false_type{});
    return;
  }
  const index_t matrix_bytes = args.count * args.length * static_cast<index_t>(sizeof(TA)) * args.batch;
  const index_t tma_max_bytes = sizeof(TA) == 2 ? policy.axpy_tma_max_bytes_2byte : policy.axpy_tma_max_bytes;
  // Aligned vectors longer than axpy_flat_large_max_vector_bytes in one matrix of at least
  // axpy_tma_split_min_bytes: the TMA kernel split one block an SM before the flat kernel
  // (GemvPolicy::axpy_flat_large_max_vector_bytes), but on fast memory vectors of at most
  // 256 bytes from axpy_flat_fast_memory_256_min_bytes stay on the flat kernel.
  const index_t vector_bytes = args.length * static_cast<index_t>(sizeof(TA));
  const bool flat_256 = policy.axpy_flat_fast_memory_256_min_bytes > 0 && vector_bytes <= 256 &&
                        matrix_bytes >= policy.axpy_flat_fast_memory_256_min_bytes && fast_memory(state);
  if (aligned && args.batch == 1 && policy.axpy_flat == 1 && policy.axpy_tma_split_wide == 1 &&
      policy.axpy_tma_min_bytes > 0 && policy.axpy_tma_split_min_bytes > 0 &&
      matrix_bytes >= policy.axpy_tma_split_min_bytes && vector_bytes > policy.axpy_flat_large_max_vector_bytes &&
      vector_bytes <= policy.axpy_flat_max_vector_bytes && !flat_256 &&
      axpy_tma(args, matrix_bytes >= tma_max_bytes, state)) {
    return;
  }
  // Vectors of 129-256 elements that the flat kernel would read one a block, 2-byte from
  // axpy_staged_one_group_min_bytes_2byte, 4-byte from _4byte: the staged kernel (below)
  // instead, in chunks of axpy_staged_one_group_chunk_bytes with the split sums by a
  // second kernel (axpy_staged_sum_kernel 2). Seventy-fourth session, same run, three
  // rounds, 2-byte from 32 MiB in 16 KiB chunks, flat -> staged (cuBLAS): bf16 row T
  // 262145 x 151 114.8 -> 75.8 us (105.6), 1048577 x 201 433.8 -> 269.7 (297), 4194305
  // x 129 1654 -> 754 (642); fp32 1.4-4.6x slower. Seventy-fifth session, same run, three
  // rounds, the rule then -> 64 KiB chunks and the second kernel's sums (cuBLAS): bf16
  // 32001 x 255 (16 MB) 26.3 -> 16.7 (11.8), 65537 x 151 39.1 -> 21.3 (18.1), 131073 x
  // 129 49.2 -> 37.1 (41.1), 262145 x 255 98.2 -> 67.3 (97.5), 1048577 x 201 269.7 ->
  // 206.8 (297.0), 4194305 x 129 754 -> 573 (642); and from 8 MiB, where the other
  // kernels slow down, 17001 x 255 (8.3 MiB) 16.3 -> 14.1, 36001 x 129 27.6 -> 18.5; but
  // 16001 x 255 (7.8 MiB) 10.8 -> 12.3 and 8001 x 151 8.9 -> 13.4. fp32: 524289 x 201
  // (402 MiB) 195.0 -> 163.9 (cuBLAS 167), 1048577 x 201 446.7 -> 309.1 (331), 2097153 x
  // 255 1179 -> 722 (771), 4194305 x 129 1716 -> 787 (934); below 384 MiB wins and
  // losses (393217 x 255 176.9 -> 150.2, but 524289 x 129 104.1 -> 116.4, 65537 x 151
  // 22.1 -> 26.1; tuning log). The flat kernel's own one-group threshold for 2-byte
  // vectors (16 MiB) is thus above this rule's by default. (Never under the staged
  // kernel's own minimum, axpy_staged_min_bytes: it would then decline what the flat
  // kernel was refused.)
  const index_t one_group_min_bytes = sizeof(TA) == 2   ? policy.axpy_staged_one_group_min_bytes_2byte
                                      : sizeof(TA) == 4 ? policy.axpy_staged_one_group_min_bytes_4byte
                                                        : 0;
  const bool staged_one_group = policy.axpy_flat != 2 && one_group_min_bytes > 0 &&
                                matrix_bytes >= one_group_min_bytes && matrix_bytes >= policy.axpy_staged_min_bytes &&
                                args.length <= kAxpyStagedMaxLength && flat_one_group(args);
  if (!staged_one_group && axpy_flat(args, state)) return;

  // Smaller matrices only where the TMA kernel would take them (aligned, from
  // axpy_tma_min_bytes): its boxes of short vectors are mostly zeros. Same run, three
  // rounds, row T: bf16 65536 x 8 (1 MiB) 9.05 -> 7.22 us, 32768 x 16 8.21 -> 7.10, fp32
  // 65536 x 4 8.72 -> 6.73, 32768 x 8 7.87 -> 6.87; where the register kernel takes them
  // it is faster (bf16 131072 x 4, 0.5 MiB: 6.26 against 7.07 staged).
  const bool staged_size = matrix_bytes >= policy.axpy_staged_min_bytes ||
                           (aligned && policy.axpy_tma_min_bytes > 0 && matrix_bytes >= policy.axpy_tma_min_bytes);
  if (args.length <= kAxpyStagedMaxLength &&
      (args.length * static_cast<index_t>(sizeof(TA)) <= policy.axpy_staged_max_vector_bytes || staged_one_group) &&
      args.lda <= policy.staged_max_lda_over_length * args.length + V && staged_size) {
    // Short vectors the flat kernel left (axpy_staged_kernel): chunks of whole vectors of at most
    // axpy_staged_chunk_bytes (and kStagedMaxXPerThread x per thread), as many blocks as are
    // resident at once (each walks its chunks; fewer when there are fewer chunks), the
    // blocks' partial sums added by the last (finish_tile). Same run, three rounds,
    // against the kernels below: fp32 row T 33554432 x 2 453 -> 145 us (cuBLAS 231),
    // 4194304 x 4 126.4 -> 37.8 (44.9), 1000000 x 7 39.7 -> 22.4 (22.5), 2097152 x 8
    // 40.5 -> 37.1; bf16 2097152 x 8 68.6 -> 25.2 (66.2), 1048576 x 16 27.2 -> 25.8. But
    // vectors of 64 bytes slower (fp32 1048576 x 16 32.0 -> 38.8, 262144 x 32 19.4 ->
    // 26.8), and small matrices (fp32 100003 x 3 5.9 -> 7.3: one chunk a block, then the
    // split handshake).
    const index_t row_bytes = args.lda * static_cast<index_t>(sizeof(TA));
    const index_t chunk_bytes = staged_one_group ? policy.axpy_staged_one_group_chunk_bytes : policy.axpy_staged_chunk_bytes;
    args.rows_per_block = std::max<index_t>(
        1, std::min({chunk_bytes / row_bytes, kStagedMaxXPerThread * kBlockThreads, args.count}));
    const std::size_t shared = static_cast<std::size_t>(
        staged_span_bytes(args.rows_per_block, args.lda, args.length, sizeof(TA)) +
        args.rows_per_block * static_cast<index_t>(sizeof(Acc)));
    // The chunk copied through cp.async (axpy_staged_async_copy), and vectors of 129-256
    // elements in two groups of threads (axpy_staged_two_groups): off by default, not yet
    // measured (a 64 KiB chunk takes stage_span 4 round trips; one group leaves up to 127
    // threads idle).
    const bool async_copy =
        policy.axpy_staged_async_copy == 2 || (policy.axpy_staged_async_copy == 1 && staged_one_group);
    const bool two_outputs = policy.axpy_staged_two_groups != 0 && args.length > kBlockThreads / 2;
    const auto kernel_for = [&](auto sum_later_tag) {
      constexpr bool kSumLater = decltype(sum_later_tag)::value;
      if (async_copy) {
        return two_outputs ? axpy_staged_kernel<TA, TX, TY, Acc, kSumLater, true, true>
                           : axpy_staged_kernel<TA, TX, TY, Acc, kSumLater, true, false>;
      }
      return two_outputs ? axpy_staged_kernel<TA, TX, TY, Acc, kSumLater, false, true>
                         : axpy_staged_kernel<TA, TX, TY, Acc, kSumLater, false, false>;
    };
    const auto finishing = kernel_for(std::false_type{});
    const auto summed_later = kernel_for(std::true_type{});
    const index_t slots = resident_blocks(finishing, shared) * state.multiprocessors;
    index_t splits = std::min(ceil_div(args.count, args.rows_per_block), std::max<index_t>(1, slots / batch_z));
    if (args.batch > static_cast<index_t>(kMaxGridZ)) splits = 1;
    args.splits = static_cast<int>(splits);
    args.split_length = args.rows_per_block;
    if (splits > 1) attach_axpy_partials(args, 1, splits, state);
    const bool sum_later =
        splits > 1 && (policy.axpy_staged_sum_kernel == 1 || (policy.axpy_staged_sum_kernel == 2 && staged_one_group));
    const auto kernel = sum_later ? summed_later : finishing;
    if (sum_later) resident_blocks(kernel, shared);  // allows `shared`
    if (policy.trace) {
      trace_call("axpy staged", args);
      std::fprintf(stderr, "%lld vectors a chunk, %lld blocks (%lld slots)%s%s%s\n",
                   static_cast<long long>(args.rows_per_block), static_cast<long long>(splits * batch_z),
                   static_cast<long long>(slots), sum_later ? ", sums by a second kernel" : "",
                   async_copy ? ", chunks by cp.async" : "", two_outputs ? ", two groups" : "");
    }
    launch(kernel, dim3(1, static_cast<unsigned>(splits), static_cast<unsigned>(batch_z)), shared, state,
           early_launch(state), 0, args);
    if (sum_later) launch_split_sums(args, state);
    return;
  }
  if (axpy_narrow(args, aligned, state)) return;
  // Unaligned vectors of 4- and 8-byte types from axpy_tma_unaligned_min_bytes too,
  // realigned in shared memory (classes of vectors, gemv_axpy_tma.cuh). Same run, three
  // rounds, fp32 row T against the register kernel's interleaved layout: 5121^2 42.3 ->
  // 40.1 us, 5889^2 52.4 -> 49.8, 6145^2 58.0 -> 53.9, 7681^2 85.8 -> 83.0, 8193^2 97.5 ->
  // 92.8, 8449^2 104.5 -> 99.8; but 4609^2 (81 MiB, 73 tiles for 132 SMs) 34.2 -> 36.3,
  // 4865^2 (90 MiB) even, 2305^2 12.3 -> 13.0, 4099 x 1031 11.3 -> 13.9, 2817^2-4097^2
  // within 2 %; fp64 col N 3585^2 39.8 -> 38.3, 4097^2 50.2 -> 48.4 (3073^2, 72 MiB, 31.6
  // -> 29.5; 2817^2 and 4609^2 even); bf16 (8 classes, 8 boxes a stage) slower at every
  // order measured, 2305^2-12801^2 (5121^2 24.0 -> 33.6 us). More stages (6, 8) slower.
  // fp64 from 56 MiB (twenty-first session, the TMA kernel launched early; same run, three
  // rounds, col N, from 16 MiB against 96): 2817^2 (60 MiB) 26.2 -> 25.2 us, 3073^2 31.6 ->
  // 29.0; but 2049^2 (32 MiB) 16.1 -> 18.7, 2305^2 (41 MiB) 19.2 -> 19.5. fp32 gained nowhere
  // under 90 MiB (2049^2-4609^2 1-20 % slower, 4865^2 38.3 -> 37.8).
  const index_t unaligned_min_bytes =
      sizeof(TA) == 8 ? std::min(policy.axpy_tma_unaligned_min_bytes, policy.axpy_tma_unaligned_min_bytes_8byte)
                      : policy.axpy_tma_unaligned_min_bytes;
  const bool tma_unaligned =
      !aligned && matrix_bytes >= unaligned_min_bytes &&
      (policy.axpy_tma_unaligned == 2 || (policy.axpy_tma_unaligned == 1 && sizeof(TA) >= 4));
  if ((aligned || tma_unaligned) && policy.axpy_tma_min_bytes > 0 && matrix_bytes >= policy.axpy_tma_min_bytes &&
      axpy_tma(args, matrix_bytes >= tma_max_bytes, state)) {
    return;
  }
  const bool small = matrix_bytes < policy.axpy_small_matrix_bytes;
  // Unaligned vectors: one element a load, interleaved over the lanes, or two aligned
  // words realigned (axpy_interleave_unaligned; see axpy_kernel), the former only with
  // axpy_interleave_min_lanes lanes or more: fewer would read runs of 8-64 bytes a load.
  const bool interleave = !aligned && (policy.axpy_interleave_unaligned == 2 ||
                                       (policy.axpy_interleave_unaligned == 1 && sizeof(TA) >= 4));
  const auto loads_for = [&](index_t l) {
    if (aligned) return AxpyLoads::kAligned;
    if (interleave && l >= policy.axpy_interleave_min_lanes) return AxpyLoads::kInterleaved;
    return AxpyLoads::kRealigned;
  };
  // Realigned vectors with 4 in flight held to 3 blocks per SM (axpy_kernel): from
  // axpy_realigned_held_min_bytes, and for tiles of more than 32 lanes (few long
  // vectors); 2-byte types at every size (axpy_variant). Measured when the kernel took
  // 122-124 registers unasked (2 blocks per SM) and held 80 (3), each with a check and an
  // element-by-element fallback on every vector: same run, two rounds, 2-byte row T, held
  // at every size against 2 blocks per SM: bf16 12801^2 131.3 -> 122.1 us, 6145^2 35.5 ->
  // 32.4, 8193^2 53.2 -> 52.4, 4097^2 18.0 -> 17.8, 24 x 400009 (19 MiB, 128 lanes) 12.9
  // -> 10.7, 72 x 400009 31.4 -> 28.9; but 3073^2 12.0 -> 12.9, 2049^2 8.5 -> 9.1, 1793^2
  // 9.2 -> 10.1 and 1025^2 5.2 -> 5.7 (fp16 alike). Without them (sixty-second session,
  // the held copy of 80 registers against main's two kernels, same run, three passes):
  // bf16 col N 4097^2 16.5 -> 15.7 us, 8193^2 50.0 -> 48.6, 12801^2 117.2 -> 115.6,
  // 2561^2 and 3073^2 level, 1025^2 5.20 -> 5.37 (docs/PERFORMANCE.md).
  // Aligned fp16 vectors with 4 in flight held to 4 blocks per SM
  // (axpy_aligned_fp16_held).
  const auto held_for = [&](index_t l) {
    if (aligned) return std::is_same_v<TA, __half> && policy.axpy_aligned_fp16_held != 0;
    return matrix_bytes >= policy.axpy_realigned_held_min_bytes || l > 32;
  };
  index_t lanes = 0;
  index_t splits = 1;
  index_t unroll = 4;
  if (small) {
    // Small matrices are latency-bound. Lanes along the vector are halved from
    // axpy_lanes down to 4 (64 bytes of each vector) while the tiles alone give fewer
    // than axpy_blocks_per_sm blocks per SM: blocks that own their outputs need no
    // partial sums, whose handshake costs about 2 us. Each group keeps
    // axpy_small_min_vectors_per_group vectors (one round of loads) before the
    // reduction is split over blocks for what is still missing; 8 words in flight
    // (axpy_unroll) when a group has more than 4 vectors, the last round masked
    // (256^2 fp32: 2.8 us against 8.9 with the large-matrix choice, which left 2
    // blocks walking 32 columns each).
    lanes = std::min<index_t>(policy.axpy_lanes, kBlockThreads / V);
    lanes = std::min(lanes, std::max<index_t>(4, pow2_ceil(words)));
    const index_t wanted = policy.axpy_blocks_per_sm * state.multiprocessors;
    while (lanes > 4 && 10 * ceil_div(args.length, lanes * V) * args.batch < 9 * wanted) lanes /= 2;
    const index_t most = aligned            ? policy.axpy_unroll
                         : sizeof(TA) >= 4 ? policy.axpy_small_unaligned_unroll
                                           : policy.axpy_small_unaligned_unroll_2byte;
    // The splits and the vectors per group that `l` lanes give.
    const auto plan = [&](index_t l) {
      const index_t tiles = ceil_div(args.length, l * V) * args.batch;
      const index_t groups_k = kBlockThreads / l;
      index_t max_splits = std::max<index_t>(1, args.count / (groups_k * policy.axpy_small_min_vectors_per_group));
      max_splits = std::min(max_splits, policy.max_splits);
      if (args.batch > static_cast<index_t>(kMaxGridZ)) max_splits = 1;
      const index_t s = std::max<index_t>(1, std::min(max_splits, ceil_div(wanted, tiles)));
      return std::make_pair(s, ceil_div(ceil_div(args.count, s), groups_k));
    };
    // Two lanes (32 bytes of each vector a group: whole sectors still, twice the
    // groups) where four leave more rounds of loads, a split handshake counted as two.
    // Device time, same run: bf16 513^2 4.11 -> 2.90 us, 1025^2 (three rounds and a
    // split before) 6.12 -> 5.36, 1537^2 8.38 -> 7.61; 520^2 unchanged (its 32-byte
    // pieces straddle sectors). Two lanes keep tiles of at least 8 outputs (the
    // reduction's shuffles stay in a warp).
    if (lanes == 4 && V >= 4) {
      const auto cost = [&](std::pair<index_t, index_t> p) {
        return ceil_div(p.second, most) + (p.first > 1 ? 2 : 0);
      };
      if (cost(plan(2)) < cost(plan(4))) lanes = 2;
    }
    const auto [chosen_splits, per_group] = plan(lanes);
    splits = chosen_splits;
    args.split_length = ceil_div(args.count, splits);
    while (unroll < most && unroll < per_group) unroll *= 2;
  } else {
    // Lanes along the stored vector: axpy_lanes for long vectors, more when there are
    // too few stored vectors to give every group axpy_min_vectors_per_group(_2byte) of them,
    // fewer when the vectors are short; the reduction split over blocks for the split
    // that fills CUDA's resident block slots best. (Blocks owning their outputs with
    // 8 lanes, as for small matrices, measured 10-40 % slower from 8 MiB up in the
    // acceptance sweep, unaligned vectors worst.)
    lanes = policy.axpy_lanes;
    const bool long_splits = sizeof(TA) == 2 && matrix_bytes >= policy.axpy_long_splits_min_bytes;
    const bool short_splits = !aligned && matrix_bytes < policy.axpy_long_splits_min_bytes;
    const index_t min_vectors = long_splits    ? policy.axpy_min_vectors_per_group_2byte
                                : short_splits ? policy.axpy_min_vectors_per_group_unaligned_short
                                               : policy.axpy_min_vectors_per_group;
    const index_t groups_wanted = std::max<index_t>(1, pow2_floor(args.count / min_vectors));
    if (groups_wanted < kBlockThreads / lanes) lanes = kBlockThreads / groups_wanted;
    lanes = std::min(lanes, std::max<index_t>(4, pow2_ceil(words)));
    lanes = std::min<index_t>(lanes, kBlockThreads);
    const index_t groups_k = kBlockThreads / lanes;
    const index_t tile_outputs = lanes * V;
    const index_t tiles = ceil_div(args.length, tile_outputs);
    unroll = aligned ? policy.axpy_large_unroll : policy.axpy_large_unaligned_unroll;
    if (aligned && sizeof(TA) == 8 && policy.axpy_large_unroll_8byte_min_bytes > 0 &&
        matrix_bytes >= policy.axpy_large_unroll_8byte_min_bytes) {
      unroll = 8;  // GemvPolicy::axpy_large_unroll_8byte_min_bytes
    }
    // The caps on splits: the partial sums a tile's last block reads and the workspace
    // (max_splits_by_bytes), and min_vectors vectors a group (max_splits).
    const index_t max_splits_by_bytes = std::min(
        {std::max<index_t>(1, policy.axpy_max_partial_bytes_per_tile / static_cast<index_t>(tile_outputs * sizeof(Acc))),
         policy.max_splits,
         std::max<index_t>(1, policy.max_workspace_bytes / static_cast<index_t>(args.batch * args.length * sizeof(Acc)))});
    const auto blocks_for = [&](index_t s) { return tiles * s * args.batch; };
    // The grid for `u` words in flight: its block slots (the kernel variant's), splits
    // and rounds of loads a group.
    struct Plan {
      index_t slots, splits, blocks, rounds;
    };
    const auto plan_for = [&](index_t u) {
      const index_t slots =
          resident_blocks(axpy_variant<TA, TX, TY, Acc>(loads_for(lanes), u, held_for(lanes))) * state.multiprocessors;
      index_t max_splits = std::min(std::max<index_t>(1, args.count / (groups_k * min_vectors)), max_splits_by_bytes);
      if (args.batch > static_cast<index_t>(kMaxGridZ)) max_splits = 1;
      // On fast memory: one wave where one fills at least axpy_<loads>_one_wave_min_fill_percent
      // of the slots (over 100: never), else at most axpy_<loads>_max_waves waves (0: any),
      // for the realigned, interleaved and aligned layouts; interleaved vectors on any
      // memory system in matrices of at most axpy_interleaved_one_wave_any_memory_max_bytes
      // (GemvPolicy).
      const AxpyLoads wave_loads = loads_for(lanes);
      const index_t max_waves = wave_loads == AxpyLoads::kRealigned      ? policy.axpy_realigned_max_waves
                                : wave_loads == AxpyLoads::kInterleaved ? policy.axpy_interleaved_max_waves
                                                                         : policy.axpy_aligned_max_waves;
      const index_t one_wave_fill = wave_loads == AxpyLoads::kRealigned ? policy.axpy_realigned_one_wave_min_fill_percent
                                    : wave_loads == AxpyLoads::kInterleaved
                                        ? policy.axpy_interleaved_one_wave_min_fill_percent
                                        : policy.axpy_aligned_one_wave_min_fill_percent;
      if (fast_memory(state) ||
          (wave_loads == AxpyLoads::kInterleaved &&
           matrix_bytes <= policy.axpy_interleaved_one_wave_any_memory_max_bytes)) {
        const index_t one_wave_splits = slots / blocks_for(1);
        const bool one_wave = one_wave_splits >= 1 && 100 * blocks_for(one_wave_splits) >= one_wave_fill * slots;
        const index_t waves = one_wave ? 1 : max_waves;
        if (waves > 0) max_splits = std::max<index_t>(1, std::min(max_splits, waves * slots / blocks_for(1)));
      }
      // Split counts past 32 that fill whole waves too, but not for realigned vectors, and
      // on fast memory only up to split_fill_waves_fast_memory_max_waves waves
      // (GemvPolicy::split_fill_waves).
      const index_t fill_max_waves =
          policy.split_fill_waves == 0 || loads_for(lanes) == AxpyLoads::kRealigned ? 0
          : fast_memory(state) && policy.split_fill_waves_fast_memory_max_waves > 0
              ? policy.split_fill_waves_fast_memory_max_waves
              : std::numeric_limits<index_t>::max();
      const SplitChoice split = choose_split([&](index_t, index_t s) { return blocks_for(s); }, max_splits, 1,
                                             1, max_splits, slots, fill_max_waves);
      // Then whole rounds: more splits, as long as the grid takes no more waves of block
      // slots, where that leaves each group fewer rounds of `u` vectors (a round of one
      // vector waits a memory latency as a full one does), down to one round a group and
      // within max_splits_by_bytes (not min_vectors): fp32 1537^2 took 23 splits of 67
      // vectors, 9 a group, 3 rounds of 4; 25 splits leave 2.
      const auto rounds_for = [&](index_t s) { return ceil_div(ceil_div(ceil_div(args.count, s), groups_k), u); };
      index_t chosen = split.splits;
      if (policy.axpy_whole_rounds != 0 && args.batch <= static_cast<index_t>(kMaxGridZ)) {
        const index_t waves = ceil_div(blocks_for(chosen), slots);
        const index_t round_max_splits =
            std::min({max_splits_by_bytes, std::max<index_t>(1, args.count / (groups_k * u))});
        for (index_t s = chosen + 1; s <= round_max_splits && ceil_div(blocks_for(s), slots) <= waves; ++s) {
          if (rounds_for(s) < rounds_for(chosen)) chosen = s;
        }
      }
      return Plan{slots, chosen, blocks_for(chosen), rounds_for(chosen)};
    };
    Plan plan = plan_for(unroll);
    // Aligned vectors of 2-byte types (4-byte ones under axpy_one_wave_unroll8_4byte) on
    // fast memory: 8 words in flight where that grid is one wave of its own block slots,
    // filled to axpy_one_wave_unroll8_min_fill_percent, in at most
    // axpy_one_wave_unroll8_max_rounds rounds of loads a group and no more than 4 words
    // take in all their waves (GemvPolicy).
    if (aligned && unroll == 4 && (sizeof(TA) == 2 || (sizeof(TA) == 4 && policy.axpy_one_wave_unroll8_4byte != 0)) &&
        policy.axpy_one_wave_unroll8_max_rounds > 0 && fast_memory(state)) {
      const Plan deep = plan_for(8);
      if (deep.blocks <= deep.slots && 100 * deep.blocks >= policy.axpy_one_wave_unroll8_min_fill_percent * deep.slots &&
          deep.rounds <= policy.axpy_one_wave_unroll8_max_rounds &&
          deep.rounds <= ceil_div(plan.blocks, plan.slots) * plan.rounds) {
        unroll = 8;
        plan = deep;
      }
    }
    args.split_length = ceil_div(args.count, plan.splits);
  }
  splits = ceil_div(args.count, args.split_length);
  const index_t groups_k = kBlockThreads / lanes;
  const index_t tiles = ceil_div(args.length, lanes * V);
  args.splits = static_cast<int>(splits);
  args.lanes = static_cast<int>(lanes);
  args.groups_k = static_cast<int>(groups_k);
  const AxpyLoads loads = loads_for(lanes);
  const bool held = !small && held_for(lanes);
  // GemvPolicy::axpy_masked_select: the kernel whose masked round waits for every load
  // only where some group has such a round (a split's vectors not a multiple of a round
  // of 8 for every group), and where it keeps the other kernel's blocks per SM (ptxas
  // gives aligned bf16 with fp32 x 110 registers in it against 78: 3 blocks -> 2), for
  // which large matrices' grids were sized; small matrices' grids, mostly short, where it
  // takes no more waves of its own slots (bf16 520^2 4.63 -> 3.93 us).
  const auto masked_select_pays = [&] {
    if (policy.axpy_masked_select == 0 || unroll != 8 || sizeof(TA) > 4) return false;
    if (policy.axpy_masked_select == 2) return true;  // every grid with 8 in flight (tests)
    const index_t round = 8 * groups_k;
    const index_t last = args.count - (splits - 1) * args.split_length;
    if (args.split_length % round == 0 && last % round == 0) return false;
    const index_t select_per_sm = resident_blocks(axpy_variant<TA, TX, TY, Acc>(loads, unroll, held, true));
    const index_t other_per_sm = resident_blocks(axpy_variant<TA, TX, TY, Acc>(loads, unroll, held, false));
    if (select_per_sm >= other_per_sm) return true;
    const index_t blocks = tiles * splits * batch_z;
    return small && ceil_div(blocks, select_per_sm * state.multiprocessors) <=
                        ceil_div(blocks, other_per_sm * state.multiprocessors);
  };
  // GemvPolicy::axpy_sum_kernel: a split grid of the held realigned kernel leaves its
  // tiles' partial sums to axpy_split_sum_kernel, launched early after it, rather than to
  // each tile's last block (a store, an atomic and the splits' partials: about 2 us), where
  // the grid is one wave that leaves room for the second kernel's blocks beside it (the
  // held kernel's three blocks fill an SM's registers: the second kernel's blocks wait in
  // the SMs that hold two, or start only as the first kernel's retire).
  const auto sum_later_pays = [&] {
    if (policy.axpy_sum_kernel == 2) return true;
    if (policy.axpy_sum_kernel != 1 || small || splits < policy.axpy_sum_min_splits ||
        matrix_bytes >= policy.axpy_sum_max_bytes) {
      return false;
    }
    const index_t slots = resident_blocks(axpy_variant<TA, TX, TY, Acc>(loads, unroll, held)) * state.multiprocessors;
    return 100 * tiles * splits * batch_z <= policy.axpy_sum_max_fill_percent * slots;
  };
  const bool sum_later = splits > 1 && args.batch <= static_cast<index_t>(kMaxGridZ) &&
                         axpy_held_realigned<TA>(loads, unroll, held) && sum_later_pays();
  const auto kernel = axpy_variant<TA, TX, TY, Acc>(loads, unroll, held, masked_select_pays(), sum_later);
  // (No clusters here: the splits of this kernel in clusters measured slower, bf16
  // 1537^2 8.1 -> 11.9 us, fp32 8192^2 91 -> 104 us; see docs/PERFORMANCE.md.)
  if (splits > 1) attach_axpy_partials(args, tiles, splits, state);
  if (policy.trace) {
    trace_call("axpy", args);
    std::fprintf(stderr, "lanes %lld %s, unroll %lld, splits %lld%s, %lld blocks (%lld slots)\n",
                 static_cast<long long>(lanes), axpy_loads_name(loads),
                 static_cast<long long>(unroll), static_cast<long long>(splits),
                 sum_later ? " (summed by a second kernel)" : "", static_cast<long long>(tiles * splits * batch_z),
                 static_cast<long long>(resident_blocks(kernel) * state.multiprocessors));
  }
  // Grids from axpy_small_matrix_bytes let the next early-launched grid start once
  // their wait is over (GemvPolicy::early_launch_next_register).
  args.next_at = small ? 0 : static_cast<int>(policy.early_launch_next_register);
  launch(kernel, dim3(static_cast<unsigned>(tiles), static_cast<unsigned>(splits),
                      static_cast<unsigned>(batch_z)),
         0, state, early_launch(state), 0, args);
  if (sum_later) launch_split_sums(args, state);
}

// What the dispatcher knows of the device (GemvPolicy::trace), once a process: the
// first context's.
void trace_device(const fastmv::detail::CudaState& state) {
  static std::once_flag traced;
  std::call_once(traced, [&] {
    std::fprintf(stderr, "fastmv gemv device: %d SMs, L2 %.0f MiB, memory %.0f GB/s (%.1f an SM)\n",
                 state.multiprocessors, static_cast<double>(state.l2_bytes) / (1 << 20),
                 state.memory_bytes_per_second / 1e9, state.memory_gbps_per_sm());
  });
}

template <typename TA, typename TX, typename TY>
void run(const GemvProblem<TA, TX, TY>& problem, fastmv::detail::CudaState& state) {
  using DA = typename DeviceType<TA>::type;
  using DX = typename DeviceType<TX>::type;
  using DY = typename DeviceType<TY>::type;
  using Acc = typename GemvProblem<TA, TX, TY>::Scalar;

  std::lock_guard<std::mutex> lock(state.mutex);
  fastmv::cuda::DeviceGuard device(state.device);
  const GemvPolicy::Pin pin;  // one policy for the whole call (GemvPolicy::set)
  if (GemvPolicy::get().trace) trace_device(state);
  DY* y = reinterpret_cast<DY*>(problem.y);
  if (problem.alpha == Acc(0)) {
    const index_t total = problem.y_size() * problem.batch;
    const index_t blocks = std::min<index_t>(ceil_div(total, kBlockThreads),
                                             state.multiprocessors * 8);
    scale_kernel<DY, Acc><<<static_cast<unsigned>(blocks), kBlockThreads, 0, state.stream>>>(
        y, problem.incy, problem.stride_y, problem.y_size(), problem.batch, problem.beta);
    fastmv::cuda::check_launch("fastmv::gemv: kernel launch");
    return;
  }
  GemvArgs<DA, DX, DY, Acc> args{};
  args.A = reinterpret_cast<const DA*>(problem.A);
  args.lda = problem.lda;
  args.stride_a = problem.stride_a;
  args.x = reinterpret_cast<const DX*>(problem.x);
  args.incx = problem.incx;
  args.stride_x = problem.stride_x;
  args.y = y;
  args.incy = problem.incy;
  args.stride_y = problem.stride_y;
  args.count = problem.count;
  args.length = problem.length;
  args.batch = problem.batch;
  args.alpha = problem.alpha;
  args.beta = problem.beta;
  args.splits = 1;
  args.lanes = 32;
  args.groups_k = 1;
  args.prefetch = early_launch(state) == 2 ? 1 : 0;
  // One-element stored vectors laid side by side (lda == 1) are one stored vector of
  // the other form: y[r] = A[r] * x[0] is an Axpy with one vector, sum_r A[r] * x[r] a
  // Dot with one row. The other form streams them with 16-byte loads.
  GemvForm form = problem.form;
  if (problem.length == 1 && problem.lda == 1 && problem.count > 1) {
    form = form == GemvForm::Dot ? GemvForm::Axpy : GemvForm::Dot;
    args.length = problem.count;
    args.count = 1;
    args.lda = problem.count;
  }
  args.split_length = form == GemvForm::Dot ? args.length : args.count;
  if (form == GemvForm::Dot) {
    dot(args, state);
  } else {
    axpy(args, state);
  }
}

}  // namespace

void gemv(const GemvProblem<float>& problem, fastmv::detail::CudaState& state) { run(problem, state); }
void gemv(const GemvProblem<double>& problem, fastmv::detail::CudaState& state) { run(problem, state); }
void gemv(const GemvProblem<half, float>& problem, fastmv::detail::CudaState& state) { run(problem, state); }
void gemv(const GemvProblem<half>& problem, fastmv::detail::CudaState& state) { run(problem, state); }
void gemv(const GemvProblem<bfloat16, float>& problem, fastmv::detail::CudaState& state) { run(problem, state); }
void gemv(const GemvProblem<bfloat16>& problem, fastmv::detail::CudaState& state) { run(problem, state); }

}  // namespace fastmv::kernels::cuda
