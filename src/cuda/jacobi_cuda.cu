// The Cuda backend's Jacobi iteration: one GEMV per update.
//
// Jacobi's update x' = x + D^-1 (b - A x) is x' = M x + c with the iteration matrix
// M = -D^-1 (A - D) (zero diagonal) and c = D^-1 b. With c stored as one more
// column of M and x extended by a constant 1,
//
//   x'_aug = [M | c] [x; 1],
//
// one fastmv GEMV (beta = 0) is the whole update: no second kernel, no vector read
// twice, and each iteration costs what one GEMV on an n x (n + 1) matrix costs. A is
// copied once into the padded matrix and turned into [M | c] in place.
//
// A check measures the residual of x without touching A: b - A x = D (x' - x), so one
// pass over x, x' and the diagonal gives ||b - A x||, ||x' - x|| and ||x'||. The pass
// also keeps x, and the three numbers go to the host through pinned memory with an
// event, so the host reads them while the next iterations run.
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/staging.hpp"
#include "cuda/state.hpp"
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

// [M | c] from A in place: M_ij = -a_ij / a_ii off the diagonal, 0 on it, and c_i
// = b_i / a_ii in element n of row i (row-major; the rest of the row up to ld is
// zeroed) or of column n (column-major). Stored vector v (a row when row-major, a
// column when column-major) starts at matrix + v * ld.
template <typename T>
__global__ void __launch_bounds__(kMatrixThreads)
    iteration_matrix_kernel(T* matrix, index_t ld, index_t n, bool row_major, const T* diagonal,
                            const T* c) {
  for (index_t v = blockIdx.y; v < n; v += gridDim.y) {
    T* vector = matrix + v * ld;
    for (index_t e = blockIdx.x * index_t(blockDim.x) + threadIdx.x; e < n;
         e += index_t(gridDim.x) * blockDim.x) {
      const index_t row = row_major ? v : e;
      vector[e] = v == e ? T(0) : -vector[e] / diagonal[row];
    }
  }
  if (blockIdx.y == 0) {
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

// Pinned host memory freed on destruction.
template <typename T>
class PinnedArray {
 public:
  explicit PinnedArray(std::size_t count) {
    fastmv::cuda::check(cudaMallocHost(&data_, count * sizeof(T)), "fastmv::jacobi: cudaMallocHost");
  }
  ~PinnedArray() { cudaFreeHost(data_); }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
};

class Event {
 public:
  Event() {
    fastmv::cuda::check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming),
                        "fastmv::jacobi: cudaEventCreate");
  }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

class Stream {
 public:
  Stream() {
    fastmv::cuda::check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                        "fastmv::jacobi: cudaStreamCreate");
  }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Elements of T in 16 bytes: leading dimensions rounded up to it keep every stored
// vector of the iteration matrix on the GEMV's 16-byte fast paths.
template <typename T>
index_t round_up_to_16_bytes(index_t elements) {
  constexpr index_t per_16 = 16 / sizeof(T);
  return (elements + per_16 - 1) / per_16 * per_16;
}

template <typename T>
class CudaJacobi final : public JacobiEngine<T> {
 public:
  CudaJacobi(const JacobiProblem<T>& system, fastmv::detail::CudaState& state, int threads)
      : state_(state),
        guard_(state.device),
        n_(system.n),
        row_major_(system.layout == Layout::RowMajor),
        // x extended by 1, then zeros up to 16 bytes: a row-major GEMV over rows of
        // n + 1 would take the kernels' unaligned-tail path (measured on the H100 at
        // n = 8192: 1.19x the time of one GEMV on A instead of ~1.05x).
        augmented_(round_up_to_16_bytes<T>(n_ + 1)),
        // Row-major: n rows of `augmented_` (c, then zeros); column-major: n + 1
        // columns of n (c last).
        ld_(row_major_ ? augmented_ : round_up_to_16_bytes<T>(n_)),
        scale_(system.residual_scale),
        matrix_(static_cast<std::size_t>((row_major_ ? n_ : n_ + 1) * ld_)),
        vectors_(vector_bytes()),
        measured_host_(2) {
    const cudaStream_t stream = state_.stream;
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n_);

    // The vectors live in one allocation (one cudaMalloc, one copy of their initial
    // values): x twice (ping-pong), the diagonal, c = D^-1 b, the two kept iterates
    // and the two measurements. x_0 is extended by the constant 1 and zeros.
    std::vector<unsigned char> initial(vectors_.size());
    std::copy(system.diagonal, system.diagonal + n_, reinterpret_cast<T*>(initial.data() + diagonal_at_));
    T* c = reinterpret_cast<T*>(initial.data() + c_at_);
    for (index_t i = 0; i < n_; ++i) {
      c[i] = static_cast<T>(static_cast<double>(system.b[i]) / static_cast<double>(system.diagonal[i]));
    }
    for (const std::size_t at : x_at_) {
      T* x0 = reinterpret_cast<T*>(initial.data() + at);
      std::fill(x0, x0 + augmented_, T(0));
      if (system.x0 != nullptr) std::copy(system.x0, system.x0 + n_, x0);
      x0[n_] = T(1);
    }

    const Clock::time_point transfer = Clock::now();
    {
      std::lock_guard<std::mutex> lock(state_.mutex);
      fastmv::cuda::upload_vectors(state_, matrix_.get(), sizeof(T) * ld_, system.A,
                                   sizeof(T) * system.lda, bytes, n_, threads);
    }
    check(cudaMemcpyAsync(vectors_.get(), initial.data(), initial.size(), cudaMemcpyHostToDevice, stream),
          "cudaMemcpyAsync of the vectors");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the copies");
    transfer_seconds_ = seconds_since(transfer);

    const index_t blocks_x = std::min<index_t>((n_ + kMatrixThreads - 1) / kMatrixThreads, 64);
    const index_t blocks_y = std::min<index_t>(n_, 2048);
    iteration_matrix_kernel<T><<<dim3(static_cast<unsigned>(blocks_x), static_cast<unsigned>(blocks_y)),
                                 kMatrixThreads, 0, stream>>>(matrix_.get(), ld_, n_, row_major_,
                                                              vector(diagonal_at_), vector(c_at_));
    fastmv::cuda::check_launch("fastmv::jacobi: iteration matrix kernel launch");
    // Finished before the iterations' clock starts: it is setup.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize after the iteration matrix");

    // x' = [M | c] [x; 1] is y = A x for the GEMV: row-major, one dot product per row
    // of `augmented_`; column-major, n + 1 scaled columns of n. y is x' without the
    // 1: the GEMV writes n elements.
    product_.form = row_major_ ? GemvForm::Dot : GemvForm::Axpy;
    product_.count = row_major_ ? n_ : n_ + 1;
    product_.length = row_major_ ? augmented_ : n_;
    product_.alpha = T(1);
    product_.A = matrix_.get();
    product_.lda = ld_;
    product_.incx = 1;
    product_.beta = T(0);
    product_.incy = 1;
  }

  ~CudaJacobi() override {
    // Iterations queued past the last check may still run on these buffers.
    cudaStreamSynchronize(state_.stream);
    cudaGetLastError();
  }

  void iterate(index_t count, int slot) override {
    for (index_t k = 0; k < count; ++k) {
      T* x = vector(x_at_[current_]);
      T* next = vector(x_at_[1 - current_]);
      product_.x = x;
      product_.y = next;
      gemv(product_, state_);
      if (k == 0) {
        measure_kernel<T><<<1, kMeasureThreads, 0, state_.stream>>>(
            x, next, vector(diagonal_at_), n_, scale_, vector(kept_at_[slot]), measurement(slot, vectors_));
        fastmv::cuda::check_launch("fastmv::jacobi: measure kernel launch");
        check(cudaMemcpyAsync(measured_host_.get() + slot, measurement(slot, vectors_),
                              sizeof(JacobiMeasurement), cudaMemcpyDeviceToHost, state_.stream),
              "cudaMemcpyAsync of a check");
        check(cudaEventRecord(measured_[slot].get(), state_.stream), "cudaEventRecord of a check");
      }
      current_ = 1 - current_;
    }
  }

  JacobiMeasurement measurement(int slot) override {
    check(cudaEventSynchronize(measured_[slot].get()), "cudaEventSynchronize of a check");
    return measured_host_.get()[slot];
  }

  void read_iterate(int slot, T* x) override {
    // On a stream of its own, so that it does not wait for iterations queued after the check.
    check(cudaStreamWaitEvent(download_.get(), measured_[slot].get(), 0), "cudaStreamWaitEvent");
    check(cudaMemcpyAsync(x, vector(kept_at_[slot]), sizeof(T) * static_cast<std::size_t>(n_),
                          cudaMemcpyDeviceToHost, download_.get()),
          "cudaMemcpyAsync of x");
    check(cudaStreamSynchronize(download_.get()), "cudaStreamSynchronize after the copy of x");
  }

  bool asynchronous() const override { return true; }

  // A check costs ~5 us of device time (measure kernel, 24-byte copy), 5 % of a
  // GEMV at 256 MiB (~90 us on an H100): one check per GiB of matrix read, i.e.
  // every 4th iteration at 256 MiB, every 2nd at 512 MiB, up to every 32nd for
  // small matrices, keeps checks near 1 % of the iterations.
  index_t default_check_every() const override {
    const double matrix_bytes = static_cast<double>(sizeof(T)) * static_cast<double>(n_) *
                                static_cast<double>(n_);
    const double every = std::ceil(static_cast<double>(index_t(1) << 30) / matrix_bytes);
    return static_cast<index_t>(std::clamp(every, 1.0, 32.0));
  }

  double transfer_seconds() const override { return transfer_seconds_; }

 private:
  static void check(cudaError_t status, const char* what) {
    fastmv::cuda::check(status, (std::string(kFunction) + ": " + what).c_str());
  }

  // Places the vectors in one allocation, 256-byte aligned; returns its size.
  std::size_t vector_bytes() {
    std::size_t total = 0;
    const auto place = [&](std::size_t bytes) {
      const std::size_t at = total;
      total += (bytes + 255) / 256 * 256;
      return at;
    };
    const std::size_t n_bytes = sizeof(T) * static_cast<std::size_t>(n_);
    for (auto& at : x_at_) at = place(sizeof(T) * static_cast<std::size_t>(augmented_));
    diagonal_at_ = place(n_bytes);
    c_at_ = place(n_bytes);
    for (auto& at : kept_at_) at = place(n_bytes);
    measured_at_ = place(2 * sizeof(JacobiMeasurement));
    return total;
  }
  T* vector(std::size_t at) const { return reinterpret_cast<T*>(vectors_.get() + at); }
  JacobiMeasurement* measurement(int slot, const DeviceArray<unsigned char>& vectors) const {
    return reinterpret_cast<JacobiMeasurement*>(vectors.get() + measured_at_) + slot;
  }

  fastmv::detail::CudaState& state_;
  fastmv::cuda::DeviceGuard guard_;
  index_t n_;
  bool row_major_;
  index_t augmented_;
  index_t ld_;
  double scale_;
  DeviceArray<T> matrix_;
  // Offsets in vectors_ (vector_bytes() places them).
  std::array<std::size_t, 2> x_at_{};
  std::size_t diagonal_at_ = 0;
  std::size_t c_at_ = 0;
  std::array<std::size_t, 2> kept_at_{};
  std::size_t measured_at_ = 0;
  DeviceArray<unsigned char> vectors_;
  PinnedArray<JacobiMeasurement> measured_host_;
  std::array<Event, 2> measured_;
  Stream download_;
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
