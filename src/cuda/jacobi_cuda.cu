// The Cuda backend's Jacobi iteration.
//
// Jacobi's update x' = x + D^-1 (b - A x) is x' = M x + c with the iteration matrix
// M = -D^-1 (A - D) (zero diagonal) and c = D^-1 b. With c stored as one more
// column of M and x extended by a constant 1,
//
//   x'_aug = [M | c] [x; 1],
//
// one matrix-vector product is the whole update: no second kernel, no vector read
// twice. A is copied once and turned into [M | c] chunk by chunk while the next
// chunks are still on their way. Two ways to iterate:
//
// - GEMV: one fastmv GEMV per update, so each iteration costs what one GEMV on an
//   n x (n + 1) matrix costs. For matrices larger than half the L2 cache.
// - Fused: cooperative kernels run a check interval, the blocks meeting at a grid
//   barrier after each update: the measured update in one launch, the rest in a
//   second, with each block's rows in shared memory where they fit. For matrices
//   that stay in L2, where a GEMV costs more in launch and ramp-up (4-6 us on the
//   H100) than in reading A.
//
// A check measures the residual of x without touching A: b - A x = D (x' - x), so one
// pass over x, x' and the diagonal gives ||b - A x||, ||x' - x|| and ||x'||. The pass
// also keeps x, and the three numbers go to the host through pinned memory with an
// event, so the host reads them while the next iterations run.
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/staging.hpp"
#include "cuda/state.hpp"
#include "fastmv/error.hpp"
#include "kernels/gemv_kernels.hpp"
#include "kernels/jacobi_kernels.hpp"

namespace fastmv::kernels::cuda {
namespace {

constexpr const char* kFunction = "fastmv::jacobi";
constexpr int kMeasureThreads = 1024;
constexpr int kMatrixThreads = 256;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Stored vectors [first, first + count) of A (rows when row-major, columns when
// column-major; vector v starts at matrix + v * ld) turned into M in place:
// M_ij = -a_ij / a_ii off the diagonal, 0 on it.
template <typename T>
__global__ void __launch_bounds__(kMatrixThreads)
    scale_kernel(T* matrix, index_t ld, index_t n, index_t first, index_t count, bool row_major,
                 const T* diagonal) {
  for (index_t v = first + blockIdx.y; v < first + count; v += gridDim.y) {
    T* vector = matrix + v * ld;
    for (index_t e = blockIdx.x * index_t(blockDim.x) + threadIdx.x; e < n;
         e += index_t(gridDim.x) * blockDim.x) {
      const index_t row = row_major ? v : e;
      vector[e] = v == e ? T(0) : -vector[e] / diagonal[row];
    }
  }
}

// Columns [first, first + count) of column-major A (`source`) turned into the same
// columns of row-major M (`matrix`), through 32 x 32 tiles in shared memory so that
// both sides are read and written along their rows.
constexpr int kTile = 32;
constexpr int kTileRows = 8;
template <typename T>
__global__ void __launch_bounds__(kTile * kTileRows)
    transpose_scale_kernel(const T* source, index_t source_ld, T* matrix, index_t ld, index_t n,
                           index_t first, index_t count, const T* diagonal) {
  __shared__ T tile[kTile][kTile + 1];
  const index_t column0 = first + index_t(blockIdx.x) * kTile;
  const index_t row0 = index_t(blockIdx.y) * kTile;
  const index_t end = first + count;
  for (int c = threadIdx.y; c < kTile; c += kTileRows) {
    const index_t column = column0 + c;
    const index_t row = row0 + threadIdx.x;
    if (column < end && row < n) tile[c][threadIdx.x] = source[column * source_ld + row];
  }
  __syncthreads();
  for (int r = threadIdx.y; r < kTile; r += kTileRows) {
    const index_t row = row0 + r;
    const index_t column = column0 + threadIdx.x;
    if (column < end && row < n) {
      matrix[row * ld + column] = row == column ? T(0) : -tile[threadIdx.x][r] / diagonal[row];
    }
  }
}

// c = D^-1 b as column n: element n of each row when row-major, the rest of the row
// up to ld zeroed; column n when column-major.
template <typename T>
__global__ void __launch_bounds__(kMatrixThreads)
    tail_kernel(T* matrix, index_t ld, index_t n, bool row_major, const T* c) {
  for (index_t i = blockIdx.x * index_t(blockDim.x) + threadIdx.x; i < n;
       i += index_t(gridDim.x) * blockDim.x) {
    if (row_major) {
      T* row = matrix + i * ld;
      row[n] = c[i];
      for (index_t padding = n + 1; padding < ld; ++padding) row[padding] = T(0);
    } else {
      matrix[n * ld + i] = c[i];
    }
  }
}

struct Larger {
  __device__ double operator()(double a, double b) const { return fmax(a, b); }
};

// One block: the measurement of x (see kernels::JacobiMeasurement) from x, x' = M x + c
// and the diagonal, r_i = a_ii (x'_i - x_i); and a copy of x into `kept`.
template <typename T>
__global__ void __launch_bounds__(kMeasureThreads)
    measure_kernel(const T* x, const T* x_next, const T* diagonal, index_t n, double scale,
                   T* kept, JacobiMeasurement* measurement) {
  double residual_squared = 0, update_max = 0, x_next_max = 0;
  for (index_t i = threadIdx.x; i < n; i += kMeasureThreads) {
    const double before = static_cast<double>(x[i]);
    const double after = static_cast<double>(x_next[i]);
    const double step = after - before;
    const double residual = static_cast<double>(diagonal[i]) * step * scale;
    residual_squared += residual * residual;
    update_max = fmax(update_max, fabs(step));
    x_next_max = fmax(x_next_max, fabs(after));
    kept[i] = x[i];
  }
  using Reduce = cub::BlockReduce<double, kMeasureThreads>;
  __shared__ typename Reduce::TempStorage storage;
  const double sum = Reduce(storage).Sum(residual_squared);
  __syncthreads();
  const double step = Reduce(storage).Reduce(update_max, Larger{});
  __syncthreads();
  const double largest = Reduce(storage).Reduce(x_next_max, Larger{});
  if (threadIdx.x == 0) *measurement = JacobiMeasurement{sum, step, largest};
}

// The fused iteration: `count` updates x' = [M | c] [x; 1] in one cooperative launch,
// block b taking rows [b R, (b + 1) R) and its warps one row at a time, x in shared
// memory, a grid barrier after each update. With kRowsShared the block's rows are
// read into shared memory once a launch and the updates read nothing but x from
// L2. With `measure`, update 0 also measures x and keeps it, as measure_kernel does:
// each block sums its rows, and block 0 adds up the blocks' sums after the barrier.
// M is row-major with `width` (a multiple of 16 bytes) elements a row,
// x_{parity} the current iterate, x_{1 - parity} the other buffer.
constexpr int kFusedThreads = 512;
constexpr int kFusedWarps = kFusedThreads / 32;

template <typename T>
struct FusedIteration {
  const T* matrix;
  index_t ld;
  index_t n;
  index_t width;
  index_t rows_per_block;
  T* x[2];
  int parity;
  int count;
  bool measure;  // measure update 0
  const T* diagonal;
  double scale;
  T* kept;
  double* partials;  // 3 a block
  JacobiMeasurement* measurement;
};

template <typename T>
struct Vector16;
template <>
struct Vector16<float> {
  using type = float4;
  __device__ static float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
};
template <>
struct Vector16<double> {
  using type = double2;
  __device__ static double dot(double2 a, double2 b) { return a.x * b.x + a.y * b.y; }
};

// Dynamic shared memory of the fused kernel: x, then (kRowsShared) the block's rows.
template <typename T>
std::size_t fused_shared_bytes(index_t width, index_t rows_shared) {
  return sizeof(T) * static_cast<std::size_t>(width) * static_cast<std::size_t>(1 + rows_shared);
}

template <typename T, bool kRowsShared>
__global__ void __launch_bounds__(kFusedThreads) fused_kernel(FusedIteration<T> work) {
  namespace cg = cooperative_groups;
  using V = typename Vector16<T>::type;
  cg::grid_group grid = cg::this_grid();
  extern __shared__ __align__(16) unsigned char shared[];
  V* x_shared = reinterpret_cast<V*>(shared);
  const T* x_elements = reinterpret_cast<const T*>(shared);
  __shared__ double warp_sums[3][kFusedWarps];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  const index_t vectors = work.width / index_t(16 / sizeof(T));
  const index_t first_row = index_t(blockIdx.x) * work.rows_per_block;
  const index_t end_row = min(work.n, first_row + work.rows_per_block);
  const V* rows = reinterpret_cast<const V*>(work.matrix + first_row * work.ld);
  const index_t rows_ld = work.ld / index_t(16 / sizeof(T));
  if (kRowsShared) {
    V* rows_shared = x_shared + vectors;
    const index_t total = (end_row - first_row) * vectors;
    for (index_t i = threadIdx.x; i < total; i += kFusedThreads) {
      const index_t row = i / vectors;
      rows_shared[i] = __ldg(rows + row * rows_ld + (i - row * vectors));
    }
    rows = rows_shared;
  }
  const index_t stride = kRowsShared ? vectors : rows_ld;

  for (int j = 0; j < work.count; ++j) {
    const V* x = reinterpret_cast<const V*>(work.x[(work.parity + j) & 1]);
    T* y = work.x[(work.parity + j + 1) & 1];
    // Other blocks wrote x in the previous update: read it from L2, never from L1.
    for (index_t v = threadIdx.x; v < vectors; v += kFusedThreads) x_shared[v] = __ldcg(x + v);
    __syncthreads();
    const bool measure = work.measure && j == 0;
    double residual_squared = 0, update_max = 0, next_max = 0;
    for (index_t row = first_row + warp; row < end_row; row += kFusedWarps) {
      const V* m = rows + (row - first_row) * stride;
      T sum = 0;
#pragma unroll 4
      for (index_t v = lane; v < vectors; v += 32) {
        sum += Vector16<T>::dot(kRowsShared ? m[v] : __ldg(m + v), x_shared[v]);
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
      if (lane == 0) {
        y[row] = sum;
        if (measure) {
          const double before = static_cast<double>(x_elements[row]);
          const double after = static_cast<double>(sum);
          const double step = after - before;
          const double residual = static_cast<double>(work.diagonal[row]) * step * work.scale;
          residual_squared += residual * residual;
          update_max = fmax(update_max, fabs(step));
          next_max = fmax(next_max, fabs(after));
          work.kept[row] = x_elements[row];
        }
      }
    }
    if (measure) {
      if (lane == 0) {
        warp_sums[0][warp] = residual_squared;
        warp_sums[1][warp] = update_max;
        warp_sums[2][warp] = next_max;
      }
      __syncthreads();
      if (threadIdx.x == 0) {
        double sums[3] = {0, 0, 0};
        for (int w = 0; w < kFusedWarps; ++w) {
          sums[0] += warp_sums[0][w];
          sums[1] = fmax(sums[1], warp_sums[1][w]);
          sums[2] = fmax(sums[2], warp_sums[2][w]);
        }
        for (int q = 0; q < 3; ++q) work.partials[3 * blockIdx.x + q] = sums[q];
      }
    }
    grid.sync();  // x' complete and visible to every block
    if (measure && blockIdx.x == 0 && warp == 0) {
      double sums[3] = {0, 0, 0};
      for (unsigned b = lane; b < gridDim.x; b += 32) {
        sums[0] += __ldcg(work.partials + 3 * b);
        sums[1] = fmax(sums[1], __ldcg(work.partials + 3 * b + 1));
        sums[2] = fmax(sums[2], __ldcg(work.partials + 3 * b + 2));
      }
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) {
        sums[0] += __shfl_xor_sync(0xffffffffu, sums[0], offset);
        sums[1] = fmax(sums[1], __shfl_xor_sync(0xffffffffu, sums[1], offset));
        sums[2] = fmax(sums[2], __shfl_xor_sync(0xffffffffu, sums[2], offset));
      }
      if (lane == 0) *work.measurement = JacobiMeasurement{sums[0], sums[1], sums[2]};
    }
  }
}

// Device memory freed on destruction.
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t count) : count_(count) {
    fastmv::cuda::check(cudaMalloc(&data_, std::max<std::size_t>(count, 1) * sizeof(T)),
                        "fastmv::jacobi: cudaMalloc");
  }
  ~DeviceArray() { cudaFree(data_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  std::size_t count_;
  T* data_ = nullptr;
};

// A solver set (CudaState::SolverSet) taken from the state for the engine's lifetime.
// Given back once the work queued on both streams has finished, also when the
// engine's construction fails half way.
class SolverSetLease {
 public:
  explicit SolverSetLease(fastmv::detail::CudaState& state) : state_(state) {
    std::lock_guard<std::mutex> lock(state_.mutex);
    set_ = state_.take_solver_set();
  }
  ~SolverSetLease() {
    cudaStreamSynchronize(state_.stream);
    cudaStreamSynchronize(set_.side);
    cudaGetLastError();
    std::lock_guard<std::mutex> lock(state_.mutex);
    state_.give_back(set_);
  }
  SolverSetLease(const SolverSetLease&) = delete;
  SolverSetLease& operator=(const SolverSetLease&) = delete;
  const fastmv::detail::CudaState::SolverSet* operator->() const { return &set_; }

 private:
  fastmv::detail::CudaState& state_;
  fastmv::detail::CudaState::SolverSet set_;
};

// Elements of T in 16 bytes: leading dimensions rounded up to it keep every stored
// vector of the iteration matrix on the 16-byte fast paths.
template <typename T>
index_t round_up_to_16_bytes(index_t elements) {
  constexpr index_t per_16 = 16 / sizeof(T);
  return (elements + per_16 - 1) / per_16 * per_16;
}

// Rough time of one GEMV over `bytes` of matrix: the H100's ~3 TB/s.
double gemv_seconds_estimate(double bytes) { return bytes / 3e12; }

enum class Iteration { Gemv, Fused };

template <typename T>
class CudaJacobi final : public JacobiEngine<T> {
 public:
  CudaJacobi(const JacobiProblem<T>& system, fastmv::detail::CudaState& state, int threads)
      : state_(state),
        guard_(state.device),
        n_(system.n),
        input_row_major_(system.layout == Layout::RowMajor),
        // x extended by 1, then zeros up to 16 bytes: a row-major GEMV over rows of
        // n + 1 would take the kernels' unaligned-tail path (measured on the H100 at
        // n = 8192: 1.19x the time of one GEMV on A instead of ~1.05x).
        augmented_(round_up_to_16_bytes<T>(n_ + 1)),
        iteration_(choose_iteration()),
        // The fused kernel reads rows; the GEMV takes A's own layout.
        row_major_(iteration_ == Iteration::Fused || input_row_major_),
        // Row-major: n rows of `augmented_` (c, then zeros); column-major: n + 1
        // columns of n (c last).
        ld_(row_major_ ? augmented_ : round_up_to_16_bytes<T>(n_)),
        scale_(system.residual_scale),
        memory_(place_memory()),
        set_(state) {
    const cudaStream_t stream = state_.stream;
    const cudaStream_t side = set_->side;
    const cudaEvent_t ready = set_->events[2];
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n_);

    // The vectors have one copy of their initial values: x twice (ping-pong), the
    // diagonal, c = D^-1 b. x_0 is extended by the constant 1 and zeros.
    std::vector<unsigned char> initial(initial_bytes_);
    const auto initial_at = [&](std::size_t offset) { return reinterpret_cast<T*>(initial.data() + offset - x_at_[0]); };
    std::copy(system.diagonal, system.diagonal + n_, initial_at(diagonal_at_));
    T* c = initial_at(c_at_);
    for (index_t i = 0; i < n_; ++i) {
      c[i] = static_cast<T>(static_cast<double>(system.b[i]) / static_cast<double>(system.diagonal[i]));
    }
    for (const std::size_t at : x_at_) {
      T* x0 = initial_at(at);
      std::fill(x0, x0 + augmented_, T(0));
      if (system.x0 != nullptr) std::copy(system.x0, system.x0 + n_, x0);
      x0[n_] = T(1);
    }

    // A travels in chunks; behind each chunk's copy, the side stream turns it into
    // its part of M while the next chunks travel. Then c goes in, and the iterations
    // (on the state's stream) wait for the side stream.
    const bool transposed = !input_row_major_ && row_major_;
    T* const destination = transposed ? at<T>(source_at_) : matrix();
    const index_t destination_ld = transposed ? source_ld_ : ld_;
    const auto queued = [&](index_t first, index_t count) {
      check(cudaEventRecord(ready, stream), "cudaEventRecord after a chunk");
      check(cudaStreamWaitEvent(side, ready, 0), "cudaStreamWaitEvent for a chunk");
      if (transposed) {
        const dim3 blocks(static_cast<unsigned>((count + kTile - 1) / kTile),
                          static_cast<unsigned>((n_ + kTile - 1) / kTile));
        transpose_scale_kernel<T><<<blocks, dim3(kTile, kTileRows), 0, side>>>(
            destination, destination_ld, matrix(), ld_, n_, first, count, at<T>(diagonal_at_));
      } else {
        const index_t blocks_x = std::min<index_t>((n_ + kMatrixThreads - 1) / kMatrixThreads, 64);
        const index_t blocks_y = std::min<index_t>(count, 2048);
        scale_kernel<T><<<dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(blocks_y)),
                          kMatrixThreads, 0, side>>>(matrix(), ld_, n_, first, count, row_major_,
                                                     at<T>(diagonal_at_));
      }
      fastmv::cuda::check_launch("fastmv::jacobi: iteration matrix kernel launch");
    };

    const Clock::time_point transfer = Clock::now();
    check(cudaMemcpyAsync(memory_.get() + x_at_[0], initial.data(), initial.size(), cudaMemcpyHostToDevice,
                          stream),
          "cudaMemcpyAsync of the vectors");
    {
      std::lock_guard<std::mutex> lock(state_.mutex);
      fastmv::cuda::upload_vectors(state_, destination, sizeof(T) * destination_ld, system.A,
                                   sizeof(T) * system.lda, bytes, n_, threads, queued);
    }
    const index_t tail_blocks = std::min<index_t>((n_ + kMatrixThreads - 1) / kMatrixThreads, 1024);
    tail_kernel<T><<<static_cast<unsigned>(tail_blocks), kMatrixThreads, 0, side>>>(
        matrix(), ld_, n_, row_major_, at<T>(c_at_));
    fastmv::cuda::check_launch("fastmv::jacobi: iteration matrix kernel launch");
    check(cudaEventRecord(ready, side), "cudaEventRecord after the iteration matrix");
    check(cudaStreamWaitEvent(stream, ready, 0), "cudaStreamWaitEvent for the iteration matrix");
    // The clock stops once A is on the device as [M | c]: building M is part of the
    // transfer, running behind the copies.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the copies");
    transfer_seconds_ = seconds_since(transfer);

    if (iteration_ == Iteration::Gemv) {
      // x' = [M | c] [x; 1] is y = A x for the GEMV: row-major, one dot product per
      // row of `augmented_`; column-major, n + 1 scaled columns of n. y is x' without
      // the 1: the GEMV writes n elements.
      product_.form = row_major_ ? GemvForm::Dot : GemvForm::Axpy;
      product_.count = row_major_ ? n_ : n_ + 1;
      product_.length = row_major_ ? augmented_ : n_;
      product_.alpha = T(1);
      product_.A = matrix();
      product_.lda = ld_;
      product_.incx = 1;
      product_.beta = T(0);
      product_.incy = 1;
    }
  }

  void iterate(index_t count, int slot) override {
    if (iteration_ == Iteration::Fused) {
      // The measured update on its own (its check goes to the host while the rest
      // run), then the rest of the interval in launches of at most 2^30 updates.
      launch_fused(fused_, 1, true, slot);
      record_check(slot);
      for (index_t done = 1; done < count;) {
        const index_t now = std::min<index_t>(count - done, index_t(1) << 30);
        launch_fused(fused_rows_shared_.blocks > 0 ? fused_rows_shared_ : fused_, static_cast<int>(now), false,
                     slot);
        done += now;
      }
      return;
    }
    for (index_t k = 0; k < count; ++k) {
      T* x = at<T>(x_at_[current_]);
      T* next = at<T>(x_at_[1 - current_]);
      product_.x = x;
      product_.y = next;
      gemv(product_, state_);
      if (k == 0) {
        measure_kernel<T><<<1, kMeasureThreads, 0, state_.stream>>>(
            x, next, at<T>(diagonal_at_), n_, scale_, at<T>(kept_at_[slot]), measurement_on_device(slot));
        fastmv::cuda::check_launch("fastmv::jacobi: measure kernel launch");
        record_check(slot);
      }
      current_ = 1 - current_;
    }
  }

  JacobiMeasurement measurement(int slot) override {
    check(cudaEventSynchronize(set_->events[slot]), "cudaEventSynchronize of a check");
    return measured_on_host()[slot];
  }

  void read_iterate(int slot, T* x) override {
    // On the side stream, so that it does not wait for iterations queued after the check.
    check(cudaStreamWaitEvent(set_->side, set_->events[slot], 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(x, at<T>(kept_at_[slot]), sizeof(T) * static_cast<std::size_t>(n_),
                          cudaMemcpyDeviceToHost, set_->side),
          "cudaMemcpyAsync of x");
    check(cudaStreamSynchronize(set_->side), "cudaStreamSynchronize after the copy of x");
  }

  // Fused: every interval is one launch (~20-40 us of work at the default interval),
  // so the next one is queued before the host waits for a check, or the device would
  // wait for the host. GEMV: the rest of an interval after its check keeps the
  // device busy while the host reads the check once it lasts >= 150 us (the host
  // answers in well under that); queueing further ahead would only add iterations
  // run past convergence.
  bool queue_ahead(index_t check_every) const override {
    if (iteration_ == Iteration::Fused) return true;
    return static_cast<double>(check_every - 1) * gemv_seconds_estimate(matrix_bytes()) < 150e-6;
  }

  // Fused: a check costs a launch of its own (the measured update, whose check then
  // travels while the rest of the interval runs in a second launch); 16 iterations an
  // interval keep the host's launches ahead of the device while the iterations run
  // past convergence stay few. GEMV: a check costs ~5 us of device time (measure
  // kernel, 24-byte copy), so one check per ~250 us of iterations, at least every
  // 2nd iteration and at most every 32nd: every 3rd at n = 8192 in float.
  index_t default_check_every() const override {
    if (iteration_ == Iteration::Fused) return 16;
    const double every = std::ceil(250e-6 / gemv_seconds_estimate(matrix_bytes()));
    return static_cast<index_t>(std::clamp(every, 2.0, 32.0));
  }

  double transfer_seconds() const override { return transfer_seconds_; }

 private:
  static void check(cudaError_t status, const char* what) {
    fastmv::cuda::check(status, (std::string(kFunction) + ": " + what).c_str());
  }

  double matrix_bytes() const {
    return static_cast<double>(sizeof(T)) * static_cast<double>(n_) * static_cast<double>(augmented_);
  }

  // A launch configuration of the fused kernel: `blocks` (0: it cannot run) of
  // `rows` rows each, `shared` bytes of dynamic shared memory.
  struct FusedLaunch {
    index_t blocks = 0;
    index_t rows = 0;
    std::size_t shared = 0;
    bool rows_shared = false;
  };

  // The largest grid that is resident at once (a cooperative launch needs that), at
  // most one block per 16 rows; with `rows_shared`, the rows must fit in shared memory.
  FusedLaunch fused_launch(bool rows_shared) const {
    FusedLaunch launch;
    launch.rows_shared = rows_shared;
    const index_t most_blocks = (n_ + kFusedWarps - 1) / kFusedWarps;
    int optin = 0;
    fastmv::cuda::check(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, state_.device),
                        "fastmv::jacobi: cudaDeviceGetAttribute");
    // The rows of a block when the grid has one block per multiprocessor: the most
    // shared memory a block may ask for decides whether they fit.
    const index_t blocks_wanted = std::min<index_t>(state_.multiprocessors, most_blocks);
    const index_t rows = (n_ + blocks_wanted - 1) / blocks_wanted;
    const std::size_t shared = fused_shared_bytes<T>(augmented_, rows_shared ? rows : 0);
    const auto kernel = rows_shared ? fused_kernel<T, true> : fused_kernel<T, false>;
    cudaFuncAttributes attributes{};
    fastmv::cuda::check(cudaFuncGetAttributes(&attributes, kernel), "fastmv::jacobi: cudaFuncGetAttributes");
    const int dynamic_limit = optin - static_cast<int>(attributes.sharedSizeBytes);
    if (shared > static_cast<std::size_t>(std::max(dynamic_limit, 0))) return launch;
    // The limit is the kernel's, for every thread: always the device's most, never
    // this solve's need, which would fail the launches of a larger solve running at
    // the same time.
    fastmv::cuda::check(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic_limit),
                        "fastmv::jacobi: cudaFuncSetAttribute");
    int per_multiprocessor = 0;
    fastmv::cuda::check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel,
                                                                      kFusedThreads, shared),
                        "fastmv::jacobi: cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (per_multiprocessor < 1) return launch;
    // One block a multiprocessor: more would only make each barrier costlier.
    launch.blocks = (n_ + rows - 1) / rows;
    launch.rows = rows;
    launch.shared = shared;
    return launch;
  }

  void launch_fused(const FusedLaunch& launch, int count, bool measure, int slot) {
    FusedIteration<T> work{matrix(),
                           ld_,
                           n_,
                           augmented_,
                           launch.rows,
                           {at<T>(x_at_[0]), at<T>(x_at_[1])},
                           current_,
                           count,
                           measure,
                           at<T>(diagonal_at_),
                           scale_,
                           at<T>(kept_at_[slot]),
                           at<double>(partials_at_),
                           measurement_on_device(slot)};
    void* arguments[] = {&work};
    const auto kernel = launch.rows_shared ? fused_kernel<T, true> : fused_kernel<T, false>;
    check(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(static_cast<unsigned>(launch.blocks)),
                                      dim3(kFusedThreads), arguments, launch.shared, state_.stream),
          "cudaLaunchCooperativeKernel of the fused iteration");
    current_ = (current_ + count) & 1;
  }

  // Fused when [M | c] takes at most 3/4 of the L2 cache and the grid can be
  // resident at once (measured on the H100: at n = 3072 in float, 38 MB, an update
  // took 10.9 us fused against 13.6 us as a GEMV; at 4096, 67 MB, 32.7 against
  // 25.3). FASTMV_JACOBI_ITERATION=gemv|fused overrides that, for measurements.
  Iteration choose_iteration() {
    fused_ = fused_launch(false);
    if (fused_.blocks > 0) fused_rows_shared_ = fused_launch(true);
    const bool fused_possible = fused_.blocks > 0;
    const char* forced = std::getenv("FASTMV_JACOBI_ITERATION");
    if (forced != nullptr && *forced != '\0') {
      if (std::strcmp(forced, "gemv") == 0) return Iteration::Gemv;
      if (std::strcmp(forced, "fused") != 0) {
        throw InvalidArgument(kFunction, "FASTMV_JACOBI_ITERATION", forced, "must be gemv or fused (or unset)");
      }
      if (!fused_possible) {
        throw InvalidArgument(kFunction, "FASTMV_JACOBI_ITERATION", forced,
                              "asks for the fused iteration, which needs x (" +
                                  std::to_string(sizeof(T) * static_cast<std::size_t>(augmented_)) +
                                  " bytes) in one block's shared memory");
      }
      return Iteration::Fused;
    }
    return fused_possible && matrix_bytes() <= 0.75 * static_cast<double>(state_.l2_bytes) ? Iteration::Fused
                                                                                           : Iteration::Gemv;
  }

  // Places the matrix, column-major A on its way to a row-major M (fused only) and
  // the vectors in one allocation, each 256-byte aligned, and allocates it.
  DeviceArray<unsigned char> place_memory() {
    std::size_t total = 0;
    const auto place = [&](std::size_t bytes) {
      const std::size_t at = total;
      total += (bytes + 255) / 256 * 256;
      return at;
    };
    const std::size_t element = sizeof(T);
    const std::size_t n = static_cast<std::size_t>(n_);
    matrix_at_ = place(element * static_cast<std::size_t>(ld_) * (row_major_ ? n : n + 1));
    if (!input_row_major_ && row_major_) {
      source_ld_ = round_up_to_16_bytes<T>(n_);
      source_at_ = place(element * static_cast<std::size_t>(source_ld_) * n);
    }
    // Copied from the host in one piece, from x_at_[0] to c_at_ + n.
    for (auto& at : x_at_) at = place(element * static_cast<std::size_t>(augmented_));
    diagonal_at_ = place(element * n);
    c_at_ = place(element * n);
    initial_bytes_ = c_at_ + element * n - x_at_[0];
    for (auto& at : kept_at_) at = place(element * n);
    measured_at_ = place(2 * sizeof(JacobiMeasurement));
    partials_at_ = place(3 * sizeof(double) *
                         static_cast<std::size_t>(std::max<index_t>({fused_.blocks, fused_rows_shared_.blocks, 1})));
    return DeviceArray<unsigned char>(total);
  }
  template <typename U>
  U* at(std::size_t offset) const {
    return reinterpret_cast<U*>(memory_.get() + offset);
  }
  T* matrix() const { return at<T>(matrix_at_); }
  JacobiMeasurement* measurement_on_device(int slot) const { return at<JacobiMeasurement>(measured_at_) + slot; }
  JacobiMeasurement* measured_on_host() const { return static_cast<JacobiMeasurement*>(set_->pinned); }

  // The measurement of slot `slot`, just queued on the state's stream, to pinned
  // memory on the side stream (so that the iterations queued next need not wait for
  // the copy), and the slot's event behind it. Nothing queued before the driver has
  // read the slot writes to it again.
  void record_check(int slot) {
    check(cudaEventRecord(set_->events[2], state_.stream), "cudaEventRecord after a measurement");
    check(cudaStreamWaitEvent(set_->side, set_->events[2], 0), "cudaStreamWaitEvent for a measurement");
    check(cudaMemcpyAsync(measured_on_host() + slot, measurement_on_device(slot), sizeof(JacobiMeasurement),
                          cudaMemcpyDeviceToHost, set_->side),
          "cudaMemcpyAsync of a check");
    check(cudaEventRecord(set_->events[slot], set_->side), "cudaEventRecord of a check");
  }

  fastmv::detail::CudaState& state_;
  fastmv::cuda::DeviceGuard guard_;
  index_t n_;
  bool input_row_major_;
  index_t augmented_;
  FusedLaunch fused_;              // the rows read from L2 (set by choose_iteration())
  FusedLaunch fused_rows_shared_;  // the rows in shared memory, where they fit
  Iteration iteration_;
  bool row_major_;
  index_t ld_;
  double scale_;
  // Offsets in memory_ (place_memory() sets them).
  std::size_t matrix_at_ = 0;
  std::size_t source_at_ = 0;
  index_t source_ld_ = 0;
  std::array<std::size_t, 2> x_at_{};
  std::size_t diagonal_at_ = 0;
  std::size_t c_at_ = 0;
  std::size_t initial_bytes_ = 0;
  std::array<std::size_t, 2> kept_at_{};
  std::size_t measured_at_ = 0;
  std::size_t partials_at_ = 0;
  DeviceArray<unsigned char> memory_;
  // Declared after the memory: given back (after waiting for both streams) before
  // the memory is freed.
  SolverSetLease set_;
  GemvProblem<T> product_{};
  int current_ = 0;
  double transfer_seconds_ = 0;
};

}  // namespace

std::unique_ptr<JacobiEngine<float>> make_jacobi_engine(const JacobiProblem<float>& system,
                                                        fastmv::detail::CudaState& state, int threads) {
  return std::make_unique<CudaJacobi<float>>(system, state, threads);
}
std::unique_ptr<JacobiEngine<double>> make_jacobi_engine(const JacobiProblem<double>& system,
                                                         fastmv::detail::CudaState& state, int threads) {
  return std::make_unique<CudaJacobi<double>>(system, state, threads);
}

}  // namespace fastmv::kernels::cuda
