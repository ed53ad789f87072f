// CUDA GEMV: picks the kernel variant and launch shape for a canonical problem
// (kernels/gemv_kernels.hpp) and queues it on the context's stream.
#include <algorithm>
#include <cstdint>
#include <mutex>

#include "cuda/gemv/gemv_axpy.cuh"
#include "cuda/gemv/gemv_dot.cuh"
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

constexpr unsigned kMaxGridZ = 65535;

template <typename Kernel, typename Args>
void launch(Kernel kernel, dim3 grid, std::size_t shared_bytes, cudaStream_t stream,
            const Args& args) {
  kernel<<<grid, kBlockThreads, shared_bytes, stream>>>(args);
  fastmv::cuda::check_launch("fastmv::gemv: kernel launch");
}

template <typename TA, typename TX, typename TY, typename Acc>
void dot(GemvArgs<TA, TX, TY, Acc> args, fastmv::detail::CudaState& state) {
  constexpr index_t V = kVector<TA>;
  const GemvPolicy& policy = GemvPolicy::get();
  const index_t batch_z = std::min<index_t>(args.batch, kMaxGridZ);
  const index_t target_threads = state.multiprocessors * policy.target_threads_per_sm;

  if (args.length <= kStagedMaxLength &&
      args.lda <= policy.staged_max_lda_over_length * args.length + V) {
    args.rows_per_block = std::max<index_t>(
        1, kStagedTileBytes / static_cast<index_t>(args.lda * sizeof(TA)));
    const index_t blocks = ceil_div(args.count, args.rows_per_block);
    const std::size_t shared = static_cast<std::size_t>(
        (args.rows_per_block - 1) * args.lda + args.length) * sizeof(TA) + 32;
    launch(dot_staged_kernel<TA, TX, TY, Acc>,
           dim3(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(batch_z)), shared,
           state.stream, args);
    return;
  }

  const index_t words = ceil_div(args.length, V);
  const int lanes = words >= policy.dot_warp_lanes_min_words ? 32 : 8;
  const bool aligned = aligned16(args.A) && args.lda % V == 0 &&
                       (args.batch == 1 || args.stride_a % V == 0) && args.incx == 1 &&
                       aligned16(args.x) &&
                       (args.batch == 1 || (args.stride_x * sizeof(TX)) % 16 == 0);
  const index_t groups = kBlockThreads / lanes;
  constexpr index_t kRowsPerGroup = 4;
  int rows = aligned && ceil_div(args.count, kRowsPerGroup) * lanes * args.batch >= target_threads
                 ? kRowsPerGroup
                 : 1;
  if (aligned && policy.dot_rows != 0) rows = static_cast<int>(policy.dot_rows);

  // Split each row over groups_k groups of a block and `splits` blocks until the GPU
  // is full, keeping kDotMinWordsPerThread words per thread.
  const index_t base_threads = ceil_div(args.count, rows) * lanes * args.batch;
  index_t split = std::max<index_t>(1, ceil_div(target_threads, base_threads));
  split = std::min(split, std::max<index_t>(1, words / (lanes * policy.dot_min_words_per_thread)));
  const index_t groups_k = std::min(pow2_floor(split), groups);
  index_t splits = std::min(ceil_div(split, groups_k), policy.max_splits);
  const index_t partial_bytes = args.batch * args.count * static_cast<index_t>(sizeof(Acc));
  splits = std::max<index_t>(1, std::min(splits, policy.max_workspace_bytes / partial_bytes));
  if (args.batch > static_cast<index_t>(kMaxGridZ)) splits = 1;
  args.split_length = ceil_div(ceil_div(args.length, splits), V) * V;
  splits = ceil_div(args.length, args.split_length);
  args.splits = static_cast<int>(splits);
  args.groups_k = static_cast<int>(groups_k);

  const index_t block_rows = (groups / groups_k) * rows;
  const index_t blocks = ceil_div(args.count, block_rows);

  // Scratch: partial sums, then the shifted copies of x.
  constexpr index_t kCopies = kVector<TX>;
  const bool copies = !aligned && args.batch == 1 &&
                      args.count * args.length * static_cast<index_t>(sizeof(TA)) >=
                          policy.dot_shifted_copies_min_bytes;
  const index_t copies_stride = ceil_div(args.length + kCopies, kCopies) * kCopies;
  const index_t partials_bytes = splits > 1 ? ceil_div(splits * partial_bytes, 256) * 256 : 0;
  const index_t copies_bytes = copies ? kCopies * copies_stride * static_cast<index_t>(sizeof(TX)) : 0;
  if (splits > 1 || copies) {
    const auto workspace = state.workspace(static_cast<std::size_t>(args.batch * blocks),
                                           static_cast<std::size_t>(partials_bytes + copies_bytes));
    args.counters = workspace.counters;
    args.partials = static_cast<Acc*>(workspace.scratch);
    if (copies) {
      TX* x_copies = reinterpret_cast<TX*>(static_cast<char*>(workspace.scratch) + partials_bytes);
      const index_t total = kCopies * args.length;
      const index_t copy_blocks = std::min<index_t>(ceil_div(total, kBlockThreads),
                                                    state.multiprocessors * 8);
      shifted_copies_kernel<TX><<<static_cast<unsigned>(copy_blocks), kBlockThreads, 0,
                                  state.stream>>>(args.x, args.incx, args.length, x_copies,
                                                  copies_stride);
      fastmv::cuda::check_launch("fastmv::gemv: kernel launch");
      args.x_copies = x_copies;
      args.x_copies_stride = copies_stride;
    }
  }
  const dim3 grid(static_cast<unsigned>(blocks), static_cast<unsigned>(splits),
                  static_cast<unsigned>(batch_z));
  if (aligned) {
    if (lanes == 32) {
      rows == 4 ? launch(dot_kernel<TA, TX, TY, Acc, 32, 4, true>, grid, 0, state.stream, args)
                : launch(dot_kernel<TA, TX, TY, Acc, 32, 1, true>, grid, 0, state.stream, args);
    } else {
      rows == 4 ? launch(dot_kernel<TA, TX, TY, Acc, 8, 4, true>, grid, 0, state.stream, args)
                : launch(dot_kernel<TA, TX, TY, Acc, 8, 1, true>, grid, 0, state.stream, args);
    }
  } else {
    lanes == 32 ? launch(dot_kernel<TA, TX, TY, Acc, 32, 1, false>, grid, 0, state.stream, args)
                : launch(dot_kernel<TA, TX, TY, Acc, 8, 1, false>, grid, 0, state.stream, args);
  }
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
    const index_t blocks = std::max<index_t>(
        1, std::min<index_t>(ceil_div(words, kBlockThreads * kFewUnroll),
                             state.multiprocessors * policy.target_threads_per_sm / kBlockThreads));
    const dim3 grid(static_cast<unsigned>(blocks), 1, static_cast<unsigned>(batch_z));
    aligned ? launch(axpy_few_kernel<TA, TX, TY, Acc, true>, grid, 0, state.stream, args)
            : launch(axpy_few_kernel<TA, TX, TY, Acc, false>, grid, 0, state.stream, args);
    return;
  }

  // Lanes along the stored vector: a warp's worth for long vectors, more when there
  // are too few stored vectors to give every group kAxpyMinVectorsPerGroup of them,
  // fewer when the vectors are short.
  index_t lanes = policy.axpy_lanes;
  const index_t groups_wanted =
      std::max<index_t>(1, pow2_floor(args.count / policy.axpy_min_vectors_per_group));
  if (groups_wanted < kBlockThreads / lanes) lanes = kBlockThreads / groups_wanted;
  lanes = std::min(lanes, std::max<index_t>(1, pow2_ceil(words)));
  lanes = std::min<index_t>(lanes, kBlockThreads);
  const index_t groups_k = kBlockThreads / lanes;
  const index_t tile_outputs = lanes * V;
  const index_t tiles = ceil_div(args.length, tile_outputs);

  const index_t target_blocks =
      state.multiprocessors * policy.target_threads_per_sm / kBlockThreads;
  index_t splits = std::max<index_t>(1, ceil_div(target_blocks, tiles * args.batch));
  splits = std::min(splits, std::max<index_t>(
                                1, args.count / (groups_k * policy.axpy_min_vectors_per_group)));
  splits = std::min(splits, std::max<index_t>(1, policy.axpy_max_partial_bytes_per_tile /
                                                     static_cast<index_t>(tile_outputs * sizeof(Acc))));
  splits = std::min(splits, policy.max_splits);
  splits = std::min(splits, std::max<index_t>(1, policy.max_workspace_bytes /
                                                     static_cast<index_t>(args.batch * args.length * sizeof(Acc))));
  if (args.batch > static_cast<index_t>(kMaxGridZ)) splits = 1;
  args.split_length = ceil_div(args.count, splits);
  splits = ceil_div(args.count, args.split_length);
  args.splits = static_cast<int>(splits);
  args.lanes = static_cast<int>(lanes);
  args.groups_k = static_cast<int>(groups_k);
  if (splits > 1) {
    const auto workspace = state.workspace(static_cast<std::size_t>(args.batch * tiles),
                                           static_cast<std::size_t>(args.batch * splits * args.length) * sizeof(Acc));
    args.counters = workspace.counters;
    args.partials = static_cast<Acc*>(workspace.scratch);
  }
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(splits),
                  static_cast<unsigned>(batch_z));
  aligned ? launch(axpy_kernel<TA, TX, TY, Acc, true>, grid, 0, state.stream, args)
          : launch(axpy_kernel<TA, TX, TY, Acc, false>, grid, 0, state.stream, args);
}

template <typename TA, typename TX, typename TY>
void run(const GemvProblem<TA, TX, TY>& problem, fastmv::detail::CudaState& state) {
  using DA = typename DeviceType<TA>::type;
  using DX = typename DeviceType<TX>::type;
  using DY = typename DeviceType<TY>::type;
  using Acc = typename GemvProblem<TA, TX, TY>::Scalar;

  std::lock_guard<std::mutex> lock(state.mutex);
  fastmv::cuda::DeviceGuard device(state.device);
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
