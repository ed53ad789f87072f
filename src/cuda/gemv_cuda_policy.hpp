// Tuning of the CUDA GEMV kernels, in one place. Values chosen for Hopper (H100,
// 132 SMs, 50 MB L2); docs/PERFORMANCE.md has the measurements behind them.
#pragma once

#include "fastmv/types.hpp"

namespace fastmv::kernels::cuda::policy {

// Threads the dispatcher aims for per SM. Half the hardware maximum: each thread
// keeps 4-8 16-byte loads in flight, which covers the DRAM latency, and longer-lived
// threads amortise the reductions (2048 measured slower on 4096^2, 2026-11-22).
constexpr index_t kTargetThreadsPerSm = 1024;

// Dot form: a thread keeps at least this many 16-byte words of each row to itself
// before the row is split further across groups and blocks (the reduction and the
// split handshake cost about as much as a few words).
constexpr index_t kDotMinWordsPerThread = 8;
// Dot form: 4 rows per thread group (x words shared by 4 rows) once there are enough
// rows to fill the GPU that way; fewer rows get one row per group and more splitting.
constexpr int kDotRowsPerGroup = 4;
// Dot form, unaligned rows: make kVector<TX> shifted copies of x (one extra launch)
// so that x is read in 16-byte words too, once A has at least this many bytes.
constexpr index_t kDotShiftedCopiesMinBytes = index_t(8) << 20;
// Dot form: rows of at least this many 16-byte words get a full warp per row group;
// shorter rows get 8 lanes (a 128-byte row segment per load instruction).
constexpr index_t kDotWarpLanesMinWords = 64;
// Dot form, staged kernel: rows of at most kStagedMaxLength elements (gemv_dot.cuh)
// whose lda wastes at most this factor of the staged bytes.
constexpr index_t kStagedMaxLdaOverLength = 2;

// Axpy form: each thread group handles at least this many stored vectors per split.
constexpr index_t kAxpyMinVectorsPerGroup = 32;
// Axpy form: the last block of a split tile reads every split's partial tile; keep
// that under this many bytes so the tail stays short.
constexpr index_t kAxpyMaxPartialBytesPerTile = 64 * 1024;

// Most blocks that share one output tile: the last one adds all their partial sums.
constexpr index_t kMaxSplits = 256;

// Upper bound of the partial-sum workspace of one call.
constexpr index_t kMaxWorkspaceBytes = index_t(64) << 20;

}  // namespace fastmv::kernels::cuda::policy
