// `fastmv bench gemv` on the CUDA backend.
//
// What each side computes at a point (A m x n in `layout`, lda tight, incx = incy = 1):
//   float, double: fastmv::gemv and cublasSgemv / cublasDgemv on the same A, x and y.
//   bf16, fp16:    fastmv::gemv with A in bf16 / fp16 and x, y in float, accumulating in
//                  float. cuBLAS has no routine that takes a float x with a half A: its
//                  side reads x in A's type, writes y in float and accumulates in float
//                  (CUBLAS_COMPUTE_32F). Two routines do that, and both are timed side by
//                  side with fastmv; the faster is reported as cuBLAS:
//                    cublasGemmEx, A and x (a k x 1 matrix) in CUDA_R_16BF / CUDA_R_16F,
//                      y in CUDA_R_32F (what torch.mv and most frameworks call);
//                    cublasTSSgemvStridedBatched / cublasHSSgemvStridedBatched, batch 1.
//                  x holds values exact in the half type, so both sides multiply the same
//                  numbers; GB/s counts each side's own bytes (cuBLAS's x is half as large).
// cuBLAS is column-major: a row-major A (lda) is the column-major A^T with the same lda,
// so op N on it is cuBLAS's OP_T with m and n swapped, and op T is OP_N.
#include "bench_gemv_cuda.hpp"

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cuda_tools.hpp"
#include "fastmv/cuda.hpp"
#include "gpu_sweep.hpp"
#include "progress.hpp"
#include "read_stream.cuh"

namespace fastmv_tool {
namespace {

using fastmv::Layout;
using fastmv::Op;

// ---------------------------------------------------------------------------- errors

// ---------------------------------------------------------------------------- element types

// The element types of a dtype: A (Matrix), fastmv's x and y (Vector, also alpha and
// beta), and the x cuBLAS reads (VendorVector).
struct Float32 {
  using Matrix = float;
  using Vector = float;
  using VendorVector = float;
  static constexpr const char* name = "float";
};
struct Float64 {
  using Matrix = double;
  using Vector = double;
  using VendorVector = double;
  static constexpr const char* name = "double";
};
struct BFloat16 {
  using Matrix = fastmv::bfloat16;
  using Vector = float;
  using VendorVector = fastmv::bfloat16;
  static constexpr const char* name = "bf16";
};
struct Float16 {
  using Matrix = fastmv::half;
  using Vector = float;
  using VendorVector = fastmv::half;
  static constexpr const char* name = "fp16";
};

// fastmv's 2-byte storage types have the bit layout of CUDA's (fastmv/half.hpp).
template <typename T>
struct DeviceType {
  using type = T;
};
template <>
struct DeviceType<fastmv::bfloat16> {
  using type = __nv_bfloat16;
};
template <>
struct DeviceType<fastmv::half> {
  using type = __half;
};
template <typename T>
typename DeviceType<T>::type* device_cast(T* pointer) {
  return reinterpret_cast<typename DeviceType<T>::type*>(pointer);
}
template <typename T>
const typename DeviceType<T>::type* device_cast(const T* pointer) {
  return reinterpret_cast<const typename DeviceType<T>::type*>(pointer);
}

// ---------------------------------------------------------------------------- kernels

__host__ __device__ std::uint64_t splitmix64(std::uint64_t state) {
  std::uint64_t z = state + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__device__ T from_float(float value) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(value);
  } else if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(value);
  } else {
    return static_cast<T>(value);
  }
}

// The values of fill_random_operands on the host: integers from {-4..-1, 1..4}, a
// function of the seed and the index only (two buffers filled with one seed hold the
// same numbers, whatever their types). Exact in every type benchmarked; products and
// partial sums stay integers below 2^24 for reductions up to 2^20, so every correct
// summation order in float gives exactly the reference's result.
template <typename T>
__global__ void fill_operands(T* data, std::size_t count, std::uint64_t base) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t bits = splitmix64(base + i);
    const int magnitude = static_cast<int>(bits & 3) + 1;
    data[i] = from_float<T>(static_cast<float>((bits & 4) != 0 ? -magnitude : magnitude));
  }
}

// ---------------------------------------------------------------------------- CUDA helpers

template <typename T>
void fill_on_device(T* data, std::size_t count, std::uint64_t seed, int blocks,
                    cudaStream_t stream) {
  if (count == 0) return;
  fill_operands<<<blocks, 256, 0, stream>>>(device_cast(data), count, splitmix64(seed));
  check_cuda(cudaGetLastError(), "fill_operands launch");
}

GpuInfo query_gpu(int device, cublasHandle_t cublas) {
  GpuInfo gpu;
  gpu.device = device;
  cudaDeviceProp properties{};
  check_cuda(cudaGetDeviceProperties(&properties, device), "cudaGetDeviceProperties");
  gpu.name = properties.name;
  gpu.compute_capability_major = properties.major;
  gpu.compute_capability_minor = properties.minor;
  gpu.multiprocessors = properties.multiProcessorCount;
  gpu.l2_bytes = static_cast<std::size_t>(properties.l2CacheSize);
  gpu.memory_bytes = properties.totalGlobalMem;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
  if (cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device) ==
          cudaSuccess &&
      cudaDeviceGetAttribute(&bus_width_bits, cudaDevAttrGlobalMemoryBusWidth, device) ==
          cudaSuccess) {
    gpu.memory_peak_gbps = 2.0 * memory_clock_khz * 1e3 * (bus_width_bits / 8.0) * 1e-9;
  }
  cudaGetLastError();
  gpu.driver_version = kernel_module_version();
  check_cuda(cudaDriverGetVersion(&gpu.cuda_driver_version), "cudaDriverGetVersion");
  check_cuda(cudaRuntimeGetVersion(&gpu.cuda_runtime_version), "cudaRuntimeGetVersion");
  check_cublas(cublasGetVersion(cublas, &gpu.cublas_version), "cublasGetVersion");
  return gpu;
}

// The device's read bandwidth: read_stream over max(2 GiB, 16 x L2) (a quarter of the
// free memory at most), median of 15 timed passes after 2 untimed ones.
ReadCeiling measure_device_read_ceiling(const fastmv::Context& context, const GpuInfo& gpu,
                                        cudaStream_t stream) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t wanted = std::max<std::size_t>(std::size_t(2) << 30, 16 * gpu.l2_bytes);
  const std::size_t words = std::min(wanted, free_bytes / 4) / sizeof(uint4);
  ReadCeiling ceiling;
  ceiling.bytes = words * sizeof(uint4);
  ceiling.runs = 15;

  fastmv::cuda::DeviceBuffer<uint4> buffer(context, static_cast<index_t>(words));
  fastmv::cuda::DeviceBuffer<unsigned> sink(context, 1);
  check_cuda(cudaMemsetAsync(buffer.data(), 1, ceiling.bytes, stream), "cudaMemsetAsync");
  int blocks_per_multiprocessor = 0;
  check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_multiprocessor, read_stream<>,
                                                           kReadThreads, 0),
             "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  const int blocks = std::max(1, blocks_per_multiprocessor) * gpu.multiprocessors;
  ceiling.threads = blocks * kReadThreads;
  ceiling.method = "read_stream: grid-stride sum of 16-byte loads, 4 in flight per thread, " +
                   std::to_string(blocks) + " blocks x " + std::to_string(kReadThreads) +
                   " threads";

  Events events;
  std::vector<double> gbps;
  for (int run = -2; run < ceiling.runs; ++run) {
    check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord");
    read_stream<><<<blocks, kReadThreads, 0, stream>>>(buffer.data(), words, sink.data());
    check_cuda(cudaGetLastError(), "read_stream launch");
    check_cuda(cudaEventRecord(events[1], stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(events[1]), "read_stream");
    if (run >= 0)
      gbps.push_back(static_cast<double>(ceiling.bytes) / elapsed_s(events[0], events[1]) * 1e-9);
  }
  std::sort(gbps.begin(), gbps.end());
  ceiling.median_gbps = gbps[gbps.size() / 2];
  ceiling.max_gbps = gbps.back();
  return ceiling;
}

// ---------------------------------------------------------------------------- operands

// Each set's operands start 256-byte aligned, as cudaMalloc's do.
template <typename T>
std::size_t padded(std::size_t count) {
  constexpr std::size_t kElements = 256 / sizeof(T);
  return (count + kElements - 1) / kElements * kElements;
}

// Where a point's operands sit in the pool: set s uses A + s * matrix_stride, and so on.
struct PointLayout {
  index_t lda = 0;
  std::size_t matrix_elements = 0;
  std::size_t x_length = 0;
  std::size_t y_length = 0;
  std::size_t matrix_stride = 0;
  std::size_t x_stride = 0;
  std::size_t y_stride = 0;
  std::size_t sets = 1;
};

template <typename D>
constexpr bool kSeparateVendorX = !std::is_same_v<typename D::Vector, typename D::VendorVector>;

// Sets: enough to cover pool_bytes (>= 2 unless the pool is 0), as many as fit in budget.
template <typename D>
PointLayout layout_point(const PointSpec& spec, std::size_t pool_bytes, std::size_t budget) {
  using Matrix = typename D::Matrix;
  using Vector = typename D::Vector;
  PointLayout point;
  const bool row_major = spec.layout == Layout::RowMajor;
  point.lda = std::max<index_t>(1, row_major ? spec.shape.n : spec.shape.m);
  point.matrix_elements = static_cast<std::size_t>(point.lda) *
                          static_cast<std::size_t>(row_major ? spec.shape.m : spec.shape.n);
  point.x_length = static_cast<std::size_t>(spec.op == Op::NoTrans ? spec.shape.n : spec.shape.m);
  point.y_length = static_cast<std::size_t>(spec.op == Op::NoTrans ? spec.shape.m : spec.shape.n);
  point.matrix_stride = padded<Matrix>(point.matrix_elements);
  point.x_stride = padded<Vector>(point.x_length);
  point.y_stride = padded<Vector>(point.y_length);
  std::size_t set_bytes =
      point.matrix_stride * sizeof(Matrix) + (point.x_stride + point.y_stride) * sizeof(Vector);
  if (kSeparateVendorX<D>) set_bytes += point.x_stride * sizeof(typename D::VendorVector);
  if (set_bytes > budget) {
    throw std::runtime_error("one operand set needs " + format_bytes(set_bytes) +
                             " of device memory; " + format_bytes(budget) +
                             " is available to the benchmark");
  }
  const std::size_t wanted =
      pool_bytes == 0 ? 1 : std::max<std::size_t>(2, (pool_bytes + set_bytes - 1) / set_bytes);
  point.sets = std::min(wanted, budget / set_bytes);
  return point;
}

// Device buffers for A, x, cuBLAS's x (half dtypes) and y, grown as points need and
// refilled whenever they grow; never shrunk, except to make room within the budget.
template <typename D>
class DevicePool {
 public:
  using Matrix = typename D::Matrix;
  using Vector = typename D::Vector;
  using VendorVector = typename D::VendorVector;
  static constexpr std::uint64_t kMatrixSeed = 1, kXSeed = 2, kYSeed = 3;

  DevicePool(const fastmv::Context& context, cudaStream_t stream, int fill_blocks,
             std::size_t budget)
      : context_(context), stream_(stream), fill_blocks_(fill_blocks), budget_(budget) {}

  void reserve(const PointLayout& point) {
    const std::size_t matrix = point.sets * point.matrix_stride;
    const std::size_t x = point.sets * point.x_stride;
    const std::size_t vendor_x = kSeparateVendorX<D> ? x : 0;
    const std::size_t y = point.sets * point.y_stride;
    const std::size_t kept_bytes = std::max(size(matrices_), matrix) * sizeof(Matrix) +
                                   std::max(size(x_), x) * sizeof(Vector) +
                                   std::max(size(vendor_x_), vendor_x) * sizeof(VendorVector) +
                                   std::max(size(y_), y) * sizeof(Vector);
    if (kept_bytes > budget_) {  // free everything, then allocate just this point's sets
      release(matrices_);
      release(x_);
      release(vendor_x_);
      release(y_);
    }
    grow(matrices_, matrix, kMatrixSeed);
    grow(x_, x, kXSeed);
    grow(vendor_x_, vendor_x, kXSeed);  // same seed: the same numbers as x
    grow(y_, y, kYSeed);
  }

  // y of the first `length` outputs of set 0 back to its initial values.
  void reset_first_y(std::size_t length) {
    fill_on_device(y_.data(), length, kYSeed, fill_blocks_, stream_);
  }

  const Matrix* matrix(const PointLayout& point, std::size_t set) const {
    return matrices_.data() + set * point.matrix_stride;
  }
  const Vector* x(const PointLayout& point, std::size_t set) const {
    return x_.data() + set * point.x_stride;
  }
  const VendorVector* vendor_x(const PointLayout& point, std::size_t set) const {
    if constexpr (kSeparateVendorX<D>) {
      return vendor_x_.data() + set * point.x_stride;
    } else {
      return x(point, set);
    }
  }
  Vector* y(const PointLayout& point, std::size_t set) { return y_.data() + set * point.y_stride; }

 private:
  template <typename T>
  static std::size_t size(const fastmv::cuda::DeviceBuffer<T>& buffer) {
    return static_cast<std::size_t>(buffer.size());
  }
  template <typename T>
  static void release(fastmv::cuda::DeviceBuffer<T>& buffer) {
    buffer = fastmv::cuda::DeviceBuffer<T>();
  }
  template <typename T>
  void grow(fastmv::cuda::DeviceBuffer<T>& buffer, std::size_t count, std::uint64_t seed) {
    if (size(buffer) >= count) return;
    release(buffer);  // first: the old and new buffers need not fit together
    buffer = fastmv::cuda::DeviceBuffer<T>(context_, static_cast<index_t>(count));
    fill_on_device(buffer.data(), count, seed, fill_blocks_, stream_);
  }

  const fastmv::Context& context_;
  cudaStream_t stream_;
  int fill_blocks_;
  std::size_t budget_;
  fastmv::cuda::DeviceBuffer<Matrix> matrices_;
  fastmv::cuda::DeviceBuffer<Vector> x_;
  fastmv::cuda::DeviceBuffer<VendorVector> vendor_x_;
  fastmv::cuda::DeviceBuffer<Vector> y_;
};

// ---------------------------------------------------------------------------- calls

// One implementation's GEMV at a point, queued on the stream on operand set `set`.
struct DeviceCall {
  std::string implementation;  // "fastmv", "fastmv:LABEL" (--variant), "cublas" or kReadFloor
  std::string routine;         // the function called
  std::function<void(std::size_t set)> enqueue;
};

// The point as cuBLAS's column-major view: `rows` x `cols` with leading dimension lda,
// transposed or not.
struct CublasView {
  int rows;
  int cols;
  int lda;
  cublasOperation_t op;
  int y_length;  // rows of op(view)
  int k;         // the reduction length
};

CublasView cublas_view(const PointSpec& spec, index_t lda) {
  const bool row_major = spec.layout == Layout::RowMajor;
  const bool transposed = (spec.op != Op::NoTrans) != row_major;
  const index_t rows = row_major ? spec.shape.n : spec.shape.m;
  const index_t cols = row_major ? spec.shape.m : spec.shape.n;
  if (rows > INT_MAX || cols > INT_MAX || lda > INT_MAX) {
    throw std::runtime_error("cuBLAS's 32-bit API takes sizes up to 2^31 - 1");
  }
  CublasView view{static_cast<int>(rows),
                  static_cast<int>(cols),
                  static_cast<int>(lda),
                  transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                  0,
                  0};
  view.y_length = transposed ? view.cols : view.rows;
  view.k = transposed ? view.rows : view.cols;
  return view;
}

// ---------------------------------------------------------------------------- timing

Timing summarize(std::vector<double> per_call, std::size_t calls_per_sample) {
  std::sort(per_call.begin(), per_call.end());
  Timing timing;
  timing.calls_per_sample = calls_per_sample;
  timing.samples = per_call.size();
  const std::size_t middle = per_call.size() / 2;
  timing.median_s =
      per_call.size() % 2 == 1 ? per_call[middle] : 0.5 * (per_call[middle - 1] + per_call[middle]);
  timing.min_s = per_call.front();
  return timing;
}

// Launched (without programmatic dependent launch) before every sample's start event:
// the sample's first kernel then starts only once the fence ends, whatever ran before.
// fastmv's kernels let the next kernel launch early (gemv_common.cuh); without the fence
// a sample behind fastmv's started otherwise than one behind cuBLAS's: with --variant,
// the default's samples (behind cuBLAS's) read up to 5 % slower than an identical
// variant's (behind fastmv's) at fp32 257^2 and 2561^2; with it, within 1 % (H100,
// sixty-ninth session). The 2.6-5 % that stayed at fp32 3073^2-4097^2 went with samples
// of 400 us instead of 100 (gpu_sampling_for, seventieth session).
__global__ void sample_fence() {}

// Times `calls` at one point. A sample is a batch of back-to-back calls on the stream
// between two events, sized to last min_sample_s; a call's time is the sample's over its
// calls, which for small problems includes the launch overhead a caller looping over
// GEMVs sees. Samples go round-robin, one per call in turn, so that clock and thermal
// drift move all alike; they are queued in groups of kSamplesPerSync per call behind an
// untimed lead-in batch, so that no start event finds the stream idle (it would count
// one launch latency), and each behind a sample_fence, so that every sample starts
// alike. `cursor` is the set the next call uses; it walks the whole pool.
std::vector<Timing> time_on_stream(const std::vector<const DeviceCall*>& calls, std::size_t sets,
                                   const SamplingPolicy& policy, cudaStream_t stream,
                                   Events& events, std::size_t& cursor) {
  constexpr std::size_t kSamplesPerSync = 8;
  constexpr std::size_t kMaxBatch = std::size_t(1) << 20;
  auto enqueue = [&](const DeviceCall& call, std::size_t count) {
    for (std::size_t i = 0; i < count; ++i) {
      call.enqueue(cursor);
      cursor = cursor + 1 == sets ? 0 : cursor + 1;
    }
  };
  // One batch alone, from an idle stream: for warming up and sizing only.
  auto time_batch = [&](const DeviceCall& call, std::size_t count) {
    check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord");
    enqueue(call, count);
    check_cuda(cudaEventRecord(events[1], stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(events[1]), call.routine + " (warm-up)");
    return elapsed_s(events[0], events[1]);
  };

  // Warm-up: grow the batch until it lasts min_sample_s, and run for warm_up_s at least.
  std::vector<std::size_t> batches;
  for (const DeviceCall* call : calls) {
    std::size_t batch = 1;
    double seconds = time_batch(*call, batch);
    double warmed_s = seconds;
    while (batch < kMaxBatch && (seconds < policy.min_sample_s || warmed_s < policy.warm_up_s)) {
      if (seconds < policy.min_sample_s) {
        const double wanted = 1.25 * policy.min_sample_s / std::max(seconds, 1e-9);
        batch = std::min(
            kMaxBatch, static_cast<std::size_t>(
                           std::ceil(static_cast<double>(batch) * std::clamp(wanted, 2.0, 100.0))));
      }
      seconds = time_batch(*call, batch);
      warmed_s += seconds;
    }
    batches.push_back(batch);
  }
  // Every call then samples the same number of calls, the largest batch, so that a
  // sample's fixed costs (its first kernel starting behind the fence, its last one's
  // tail) weigh alike on every implementation's calls.
  const std::size_t common_batch = *std::max_element(batches.begin(), batches.end());
  std::fill(batches.begin(), batches.end(), common_batch);

  std::vector<std::vector<double>> per_call(calls.size());
  std::vector<double> sampled_s(calls.size(), 0.0);
  for (;;) {
    std::vector<std::size_t> wanted;
    for (std::size_t i = 0; i < calls.size(); ++i) {
      if (per_call[i].size() < policy.max_samples &&
          (per_call[i].size() < static_cast<std::size_t>(policy.repeats) ||
           sampled_s[i] < policy.min_time_s)) {
        wanted.push_back(i);
      }
    }
    if (wanted.empty()) break;
    enqueue(*calls[wanted.front()], batches[wanted.front()]);  // lead-in, untimed
    std::vector<std::size_t> owners;  // owners[p]: the call timed by event pair p
    for (std::size_t round = 0; round < kSamplesPerSync; ++round) {
      for (std::size_t i : wanted) {
        const std::size_t pair = owners.size();
        sample_fence<<<1, 1, 0, stream>>>();
        check_cuda(cudaGetLastError(), "sample_fence");
        check_cuda(cudaEventRecord(events[2 * pair], stream), "cudaEventRecord");
        enqueue(*calls[i], batches[i]);
        check_cuda(cudaEventRecord(events[2 * pair + 1], stream), "cudaEventRecord");
        owners.push_back(i);
      }
    }
    check_cuda(cudaEventSynchronize(events[2 * owners.size() - 1]), "timed calls");
    for (std::size_t pair = 0; pair < owners.size(); ++pair) {
      const std::size_t i = owners[pair];
      const double seconds = elapsed_s(events[2 * pair], events[2 * pair + 1]);
      sampled_s[i] += seconds;
      per_call[i].push_back(seconds / static_cast<double>(batches[i]));
    }
  }

  std::vector<Timing> timings;
  for (std::size_t i = 0; i < calls.size(); ++i)
    timings.push_back(summarize(per_call[i], batches[i]));
  return timings;
}

// ---------------------------------------------------------------------------- correctness

// The outputs checked: all of y when short, else its first and last kWindow elements
// (where tails and block edges go wrong), fewer when the reduction is so long that the
// host copy of A would exceed kMaxCheckedElements.
std::vector<std::pair<std::size_t, std::size_t>> checked_windows(std::size_t y_length,
                                                                 std::size_t reduction_length) {
  constexpr std::size_t kWindow = 128;
  constexpr std::size_t kMaxCheckedElements = std::size_t(1) << 24;
  const std::size_t window = std::clamp<std::size_t>(
      kMaxCheckedElements / std::max<std::size_t>(reduction_length, 1), 1, kWindow);
  if (y_length <= 2 * window) return {{0, y_length}};
  return {{0, window}, {y_length - window, window}};
}

template <typename T>
void copy_to_host(T* host, const T* device, std::size_t count, cudaStream_t stream) {
  check_cuda(cudaMemcpyAsync(host, device, count * sizeof(T), cudaMemcpyDeviceToHost, stream),
             "cudaMemcpyAsync to the host");
}

// fastmv's Reference backend on the host, on the outputs of `windows` of set 0.
template <typename D>
class Oracle {
 public:
  using Matrix = typename D::Matrix;
  using Vector = typename D::Vector;

  Oracle(const PointSpec& spec, const PointLayout& point, DevicePool<D>& pool, Vector alpha,
         Vector beta, cudaStream_t stream)
      : spec_(spec), point_(point), pool_(pool), stream_(stream) {
    reduction_length_ = static_cast<index_t>(point.x_length);
    windows_ = checked_windows(point.y_length, point.x_length);
    pool.reset_first_y(point.y_length);
    initial_y_ = read_y();  // the values every checked call starts from
    std::vector<Vector> x(point.x_length);
    copy_to_host(x.data(), pool.x(point, 0), x.size(), stream);

    // Outputs along the contiguous direction of A (row-major T, column-major N) read a
    // band of columns of every line; the others read whole lines.
    const bool row_major = spec.layout == Layout::RowMajor;
    const bool contiguous = (spec.op != Op::NoTrans) == row_major;
    const std::size_t k = point.x_length;
    const std::size_t lda = static_cast<std::size_t>(point.lda);
    const fastmv::Context reference(fastmv::Backend::Reference);
    std::size_t offset = 0;
    for (const auto& [first, count] : windows_) {
      const std::size_t lines = contiguous ? k : count;
      const std::size_t width = contiguous ? count : k;
      const Matrix* source = pool.matrix(point, 0) + (contiguous ? first : first * lda);
      std::vector<Matrix> band(lines * width);
      if (width == lda) {
        copy_to_host(band.data(), source, band.size(), stream);
      } else {
        check_cuda(
            cudaMemcpy2DAsync(band.data(), width * sizeof(Matrix), source, lda * sizeof(Matrix),
                              width * sizeof(Matrix), lines, cudaMemcpyDeviceToHost, stream),
            "cudaMemcpy2DAsync to the host");
      }
      check_cuda(cudaStreamSynchronize(stream), "copying A to the host");
      const index_t m = spec.op == Op::NoTrans ? static_cast<index_t>(count) : spec.shape.m;
      const index_t n = spec.op == Op::NoTrans ? spec.shape.n : static_cast<index_t>(count);
      std::vector<Vector> y(initial_y_.begin() + offset, initial_y_.begin() + offset + count);
      fastmv::gemv(reference, spec.layout, spec.op, m, n, alpha, band.data(),
                   static_cast<index_t>(width), x.data(), 1, beta, y.data(), 1);
      reference_.insert(reference_.end(), y.begin(), y.end());
      offset += count;
    }
  }

  // Runs `call` once on set 0 from the initial y and compares. The tolerance is the CPU
  // benchmark's, 4 eps sqrt(k) max(|y_ref|, 1) with eps of the accumulation type (float
  // for bf16 and fp16 too): the data make every correct result exact (fill_operands), and
  // x is the same numbers on both sides, so the half inputs add no rounding, and a single
  // dropped or misplaced product (>= 1) fails up to k ~ 10^5.
  void check(const DeviceCall& call, ImplementationResult& result) {
    pool_.reset_first_y(point_.y_length);
    call.enqueue(0);
    const std::vector<Vector> y = read_y();
    double largest = 1;
    for (Vector value : reference_)
      largest = std::max(largest, std::abs(static_cast<double>(value)));
    result.tolerance = 4.0 * std::numeric_limits<Vector>::epsilon() *
                       std::sqrt(static_cast<double>(reduction_length_)) * largest;
    result.max_error = 0;
    bool finite = true;
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double error = std::abs(static_cast<double>(y[i]) - static_cast<double>(reference_[i]));
      if (!std::isfinite(error)) finite = false;
      result.max_error = std::max(result.max_error, error);
    }
    if (!finite) result.max_error = std::numeric_limits<double>::infinity();
    result.correct = finite && result.max_error <= result.tolerance;
  }

 private:
  std::vector<Vector> read_y() {
    std::vector<Vector> y;
    for (const auto& [first, count] : windows_) {
      const std::size_t offset = y.size();
      y.resize(offset + count);
      copy_to_host(y.data() + offset, pool_.y(point_, 0) + first, count, stream_);
    }
    check_cuda(cudaStreamSynchronize(stream_), "copying y to the host");
    return y;
  }

  const PointSpec& spec_;
  const PointLayout& point_;
  DevicePool<D>& pool_;
  cudaStream_t stream_;
  index_t reduction_length_ = 0;
  std::vector<std::pair<std::size_t, std::size_t>> windows_;
  std::vector<Vector> initial_y_;
  std::vector<Vector> reference_;
};

// ---------------------------------------------------------------------------- the harness

// The read floor's DeviceCall::implementation, and the smallest A it is timed at.
constexpr const char* kReadFloor = "read floor";
constexpr double kReadFloorMinBytes = 8.0 * 1024 * 1024;

class CudaGemvBench {
 public:
  CudaGemvBench(const GemvBenchOptions& options, const fastmv::Context& context,
                GemvBenchReport& report, cudaStream_t stream, cublasHandle_t cublas,
                bool run_cublas, std::size_t budget)
      : options_(options),
        context_(context),
        report_(report),
        stream_(stream),
        cublas_(cublas),
        run_cublas_(run_cublas),
        budget_(budget),
        fill_blocks_(8 * report.gpu->multiprocessors),
        sink_(context, 1) {
    int per_multiprocessor = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor,
                                                             read_stream<true>, kReadThreads, 0),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    floor_blocks_ = std::max(1, per_multiprocessor) * report.gpu->multiprocessors;
  }

  // Every point of one dtype, round after round; a point reports the median of its
  // rounds (for cuBLAS, of each round's fastest routine).
  template <typename D>
  void run_dtype(const std::vector<PointSpec>& specs, Progress& progress, std::size_t& index) {
    DevicePool<D> pool(context_, stream_, fill_blocks_, budget_);
    const std::size_t first_point = report_.points.size();
    std::vector<std::vector<std::vector<Timing>>> rounds_of(
        specs.size());  // [point][implementation]
    std::vector<std::vector<Timing>> floor_rounds_of(specs.size());  // [point]
    for (int round = 0; round < report_.rounds; ++round) {
      for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto start = std::chrono::steady_clock::now();
        std::string name = describe_point(D::name, specs[i]);
        if (report_.rounds > 1) name += " (round " + std::to_string(round + 1) + ")";
        progress.running(index, name, "timing");
        PointResult result = run_point<D>(specs[i], pool);
        if (round == 0) {
          rounds_of[i].resize(result.implementations.size());
          report_.points.push_back(result);
        }
        PointResult& merged = report_.points[first_point + i];
        for (std::size_t j = 0; j < result.implementations.size(); ++j) {
          const ImplementationResult& measured = result.implementations[j];
          ImplementationResult& kept = merged.implementations[j];
          if (!measured.correct && kept.correct) kept = measured;  // keep the failure
          kept.max_error = std::max(kept.max_error, measured.max_error);
          if (measured.timing.samples > 0) rounds_of[i][j].push_back(measured.timing);
        }
        if (result.read_floor.samples > 0) floor_rounds_of[i].push_back(result.read_floor);
        progress.done(
            index, name,
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        ++index;
      }
    }
    for (std::size_t i = 0; i < specs.size(); ++i) {
      PointResult& merged = report_.points[first_point + i];
      for (std::size_t j = 0; j < merged.implementations.size(); ++j) {
        if (!rounds_of[i][j].empty())
          merged.implementations[j].timing = combine_rounds(rounds_of[i][j]);
      }
      if (!floor_rounds_of[i].empty()) merged.read_floor = combine_rounds(floor_rounds_of[i]);
    }
  }

 private:
  template <typename D>
  PointResult run_point(const PointSpec& spec, DevicePool<D>& pool) {
    using Matrix = typename D::Matrix;
    using Vector = typename D::Vector;
    using VendorVector = typename D::VendorVector;
    const Vector alpha = static_cast<Vector>(options_.alpha);
    const Vector beta = static_cast<Vector>(options_.beta);
    const double m = static_cast<double>(spec.shape.m);
    const double n = static_cast<double>(spec.shape.n);
    const double x_length = spec.op == Op::NoTrans ? n : m;
    const double y_length = spec.op == Op::NoTrans ? m : n;
    const double y_passes = options_.beta != 0 ? 2 : 1;  // y read and written, or written

    PointResult result;
    result.dtype = D::name;
    result.layout = spec.layout;
    result.op = spec.op;
    result.shape = spec.shape;
    result.lda =
        std::max<index_t>(1, spec.layout == Layout::RowMajor ? spec.shape.n : spec.shape.m);
    result.matrix_bytes = sizeof(Matrix) * m * n;
    result.bytes = result.matrix_bytes + sizeof(Vector) * (x_length + y_passes * y_length);
    result.flops = 2 * m * n;
    const double vendor_bytes = result.matrix_bytes + sizeof(VendorVector) * x_length +
                                sizeof(Vector) * y_passes * y_length;

    ImplementationResult fastmv_result;
    fastmv_result.name = "fastmv";
    fastmv_result.routine = "fastmv::gemv";
    fastmv_result.bytes = result.bytes;
    ImplementationResult cublas_result;
    cublas_result.name = "cublas";
    cublas_result.bytes = vendor_bytes;
    // --variant: fastmv again under each policy, after cuBLAS in the point's results.
    std::vector<ImplementationResult> variant_results(options_.variants.size());
    for (std::size_t v = 0; v < variant_results.size(); ++v) {
      variant_results[v].name = kVariantPrefix + options_.variants[v].first;
      variant_results[v].routine = "fastmv::gemv";
      variant_results[v].bytes = result.bytes;
    }
    auto finish = [&] {
      result.implementations.push_back(std::move(fastmv_result));
      if (run_cublas_) result.implementations.push_back(std::move(cublas_result));
      for (auto& variant : variant_results) result.implementations.push_back(std::move(variant));
      return result;
    };

    PointLayout point;
    try {
      point = layout_point<D>(spec, report_.pool_bytes, budget_);
      pool.reserve(point);
    } catch (const std::exception& error) {
      fastmv_result.error = cublas_result.error = error.what();
      for (auto& variant : variant_results) variant.error = error.what();
      return finish();
    }
    result.pool_sets = point.sets;
    const index_t lda = point.lda;

    // With --variant every fastmv call first installs its policy (the environment's for
    // "fastmv"); each text was parsed before the sweep, so that is an atomic store.
    const bool switching = !options_.variants.empty();
    const auto fastmv_call = [&, lda, switching](const char* policy) {
      return [&, lda, switching, policy](std::size_t set) {
        if (switching) fastmv::cuda::set_gemv_policy(policy);
        fastmv::gemv(context_, spec.layout, spec.op, spec.shape.m, spec.shape.n, alpha,
                     pool.matrix(point, set), lda, pool.x(point, set), 1, beta,
                     pool.y(point, set), 1);
      };
    };
    std::vector<DeviceCall> calls;
    calls.push_back({"fastmv", "fastmv::gemv", fastmv_call(nullptr)});
    for (const auto& [label, policy] : options_.variants) {
      calls.push_back({kVariantPrefix + label, "fastmv::gemv", fastmv_call(policy.c_str())});
    }
    if (run_cublas_) {
      try {
        add_cublas_calls<D>(spec, point, pool, alpha, beta, calls);
      } catch (const std::exception& error) {
        cublas_result.error = error.what();
      }
    }
    if (result.matrix_bytes >= kReadFloorMinBytes) add_read_floor_call<D>(point, pool, calls);

    // One untimed call of each first: an implementation that throws is reported, not timed.
    std::vector<const DeviceCall*> timed;
    std::string cublas_errors;
    for (const DeviceCall& call : calls) {
      try {
        call.enqueue(0);
        check_cuda(cudaStreamSynchronize(stream_), call.routine);
        timed.push_back(&call);
      } catch (const std::exception& error) {
        const cudaError_t state = cudaStreamSynchronize(stream_);
        if (state != cudaSuccess) {  // a sticky error: nothing more can run in this process
          throw std::runtime_error(call.routine + " at " + describe_point(D::name, spec) +
                                   " broke the CUDA context (" + cudaGetErrorString(state) +
                                   "): " + error.what());
        }
        if (call.implementation == kReadFloor) {
          throw std::runtime_error("the read floor at " + describe_point(D::name, spec) + ": " +
                                   error.what());
        } else if (call.implementation == "fastmv") {
          fastmv_result.error = error.what();
        } else if (ImplementationResult* variant = find_variant(variant_results, call)) {
          variant->error = error.what();
        } else {
          cublas_errors += (cublas_errors.empty() ? "" : "; ") + std::string(error.what());
        }
      }
    }

    try {
      time_and_check(spec, point, pool, timed, fastmv_result, cublas_result, variant_results,
                     result.read_floor);
    } catch (const std::exception& error) {
      throw std::runtime_error(describe_point(D::name, spec) + ": " + error.what());
    }
    if (run_cublas_ && cublas_result.routine.empty() && cublas_result.error.empty()) {
      cublas_result.error = cublas_errors;
    }
    return finish();
  }

  // Times the calls that ran, keeps cuBLAS's fastest routine, then checks fastmv and
  // that routine against the Reference backend on the host (set 0).
  template <typename D>
  void time_and_check(const PointSpec& spec, const PointLayout& point, DevicePool<D>& pool,
                      const std::vector<const DeviceCall*>& timed,
                      ImplementationResult& fastmv_result, ImplementationResult& cublas_result,
                      std::vector<ImplementationResult>& variant_results, Timing& read_floor) {
    std::size_t cursor = 0;
    const std::vector<Timing> timings =
        time_on_stream(timed, point.sets, report_.sampling, stream_, events_, cursor);
    const DeviceCall* best_cublas = nullptr;
    for (std::size_t i = 0; i < timed.size(); ++i) {
      if (timed[i]->implementation == "fastmv") {
        fastmv_result.timing = timings[i];
      } else if (ImplementationResult* variant = find_variant(variant_results, *timed[i])) {
        variant->timing = timings[i];
      } else if (timed[i]->implementation == kReadFloor) {
        read_floor = timings[i];
      } else {
        cublas_result.routines.emplace_back(timed[i]->routine, timings[i]);
        if (best_cublas == nullptr || timings[i].median_s < cublas_result.timing.median_s) {
          best_cublas = timed[i];
          cublas_result.timing = timings[i];
          cublas_result.routine = timed[i]->routine;
        }
      }
    }
    std::sort(cublas_result.routines.begin(), cublas_result.routines.end(),
              [](const auto& a, const auto& b) { return a.second.median_s < b.second.median_s; });
    if (timed.empty()) return;
    Oracle<D> oracle(spec, point, pool, static_cast<typename D::Vector>(options_.alpha),
                     static_cast<typename D::Vector>(options_.beta), stream_);
    for (const DeviceCall* call : timed) {
      if (call->implementation == "fastmv") oracle.check(*call, fastmv_result);
      if (ImplementationResult* variant = find_variant(variant_results, *call)) oracle.check(*call, *variant);
      if (call == best_cublas) oracle.check(*call, cublas_result);
    }
  }

  // The --variant result that `call` times, or nullptr.
  static ImplementationResult* find_variant(std::vector<ImplementationResult>& variant_results,
                                            const DeviceCall& call) {
    for (auto& variant : variant_results) {
      if (variant.name == call.implementation) return &variant;
    }
    return nullptr;
  }

  // The read floor (PointResult::read_floor): read_stream over the set's A, rounded up to
  // whole 16-byte words (a set starts 256-byte aligned and its stride is padded to 256
  // bytes, so the last word stays inside it), launched early as fastmv's kernels are.
  template <typename D>
  void add_read_floor_call(const PointLayout& point, DevicePool<D>& pool,
                           std::vector<DeviceCall>& calls) {
    const std::size_t words =
        (point.matrix_elements * sizeof(typename D::Matrix) + sizeof(uint4) - 1) / sizeof(uint4);
    const int blocks = floor_blocks_;
    unsigned* sink = sink_.data();
    const cudaStream_t stream = stream_;
    calls.push_back({kReadFloor, "read_stream (early launch)",
                     [=, &pool, &point](std::size_t set) {
                       const auto* data = reinterpret_cast<const uint4*>(pool.matrix(point, set));
                       check_cuda(launch_read_stream(/*early=*/true, blocks, stream, data, words, sink),
                                  "read_stream launch (the read floor)");
                     }});
  }

  // The cuBLAS routines that compute this dtype's product (see the top of this file).
  template <typename D>
  void add_cublas_calls(const PointSpec& spec, const PointLayout& point, DevicePool<D>& pool,
                        typename D::Vector alpha, typename D::Vector beta,
                        std::vector<DeviceCall>& calls) {
    using Matrix = typename D::Matrix;
    const CublasView view = cublas_view(spec, point.lda);
    const cublasHandle_t handle = cublas_;
    if constexpr (std::is_same_v<Matrix, float> || std::is_same_v<Matrix, double>) {
      constexpr bool single = std::is_same_v<Matrix, float>;
      calls.push_back(
          {"cublas", single ? "cublasSgemv" : "cublasDgemv", [=, &pool, &point](std::size_t set) {
             if constexpr (single) {
               check_cublas(cublasSgemv(handle, view.op, view.rows, view.cols, &alpha,
                                        pool.matrix(point, set), view.lda,
                                        pool.vendor_x(point, set), 1, &beta, pool.y(point, set), 1),
                            "cublasSgemv");
             } else {
               check_cublas(cublasDgemv(handle, view.op, view.rows, view.cols, &alpha,
                                        pool.matrix(point, set), view.lda,
                                        pool.vendor_x(point, set), 1, &beta, pool.y(point, set), 1),
                            "cublasDgemv");
             }
           }});
    } else {
      constexpr bool brain = std::is_same_v<Matrix, fastmv::bfloat16>;
      constexpr cudaDataType half_type = brain ? CUDA_R_16BF : CUDA_R_16F;
      // y (y_length x 1) = alpha op(view) x (k x 1) + beta y, float accumulation.
      calls.push_back({"cublas", "cublasGemmEx", [=, &pool, &point](std::size_t set) {
                         check_cublas(
                             cublasGemmEx(handle, view.op, CUBLAS_OP_N, view.y_length, 1, view.k,
                                          &alpha, pool.matrix(point, set), half_type, view.lda,
                                          pool.vendor_x(point, set), half_type, std::max(1, view.k),
                                          &beta, pool.y(point, set), CUDA_R_32F,
                                          std::max(1, view.y_length), CUBLAS_COMPUTE_32F,
                                          CUBLAS_GEMM_DEFAULT),
                             "cublasGemmEx");
                       }});
      const long long matrix_stride = static_cast<long long>(point.matrix_stride);
      const long long x_stride = static_cast<long long>(point.x_stride);
      const long long y_stride = static_cast<long long>(point.y_stride);
      calls.push_back(
          {"cublas", brain ? "cublasTSSgemvStridedBatched" : "cublasHSSgemvStridedBatched",
           [=, &pool, &point](std::size_t set) {
             const auto* A = device_cast(pool.matrix(point, set));
             const auto* x = device_cast(pool.vendor_x(point, set));
             if constexpr (brain) {
               check_cublas(
                   cublasTSSgemvStridedBatched(handle, view.op, view.rows, view.cols, &alpha, A,
                                               view.lda, matrix_stride, x, 1, x_stride, &beta,
                                               pool.y(point, set), 1, y_stride, 1),
                   "cublasTSSgemvStridedBatched");
             } else {
               check_cublas(
                   cublasHSSgemvStridedBatched(handle, view.op, view.rows, view.cols, &alpha, A,
                                               view.lda, matrix_stride, x, 1, x_stride, &beta,
                                               pool.y(point, set), 1, y_stride, 1),
                   "cublasHSSgemvStridedBatched");
             }
           }});
    }
  }

  const GemvBenchOptions& options_;
  const fastmv::Context& context_;
  GemvBenchReport& report_;
  cudaStream_t stream_;
  cublasHandle_t cublas_;
  bool run_cublas_;
  std::size_t budget_;
  int fill_blocks_;
  int floor_blocks_ = 1;  // read_stream<true>'s resident blocks, every SM
  fastmv::cuda::DeviceBuffer<unsigned> sink_;
  Events events_;
};

}  // namespace

void run_gemv_bench_cuda(const GemvBenchOptions& options, const fastmv::Context& context,
                         GemvBenchReport& report) {
  const std::vector<std::string> known = {"float", "double", "bf16", "fp16"};
  const std::vector<std::string> dtypes =
      options.dtypes.empty() ? std::vector<std::string>{"float", "bf16", "fp16"} : options.dtypes;
  for (const auto& dtype : dtypes) {
    if (std::find(known.begin(), known.end(), dtype) != known.end()) continue;
    throw std::invalid_argument("--dtype " + dtype +
                                ": the GPU benchmark runs float, double, bf16 and fp16");
  }

  check_cuda(cudaSetDevice(context.cuda_device()), "cudaSetDevice");
  const auto stream = static_cast<cudaStream_t>(context.cuda_stream());
  CublasHandle cublas(stream);
  report.gpu = query_gpu(context.cuda_device(), cublas.get());
  report.threads = 1;
  report.rounds = options.rounds > 0 ? options.rounds : 1;
  report.sampling = gpu_sampling_for(options.sweep);
  if (options.repeats) report.sampling.repeats = *options.repeats;
  if (options.min_time_s) report.sampling.min_time_s = *options.min_time_s;
  if (options.min_sample_s) report.sampling.min_sample_s = *options.min_sample_s;
  report.pool_bytes = options.pool_bytes.value_or(
      std::max<std::size_t>(8 * report.gpu->l2_bytes, std::size_t(512) << 20));
  report.read_ceiling = measure_device_read_ceiling(context, *report.gpu, stream);

  // Whatever the operand pools may use: the free memory less a reserve for cuBLAS's and
  // fastmv's workspaces and the host-side checks' staging.
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  check_cuda(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  const std::size_t reserve = std::max<std::size_t>(std::size_t(1) << 30, free_bytes / 10);
  const std::size_t budget = free_bytes > reserve ? free_bytes - reserve : 0;

  const bool run_cublas =
      options.vendors.empty() ||
      std::find(options.vendors.begin(), options.vendors.end(), "cublas") != options.vendors.end();
  const std::string cublas_version = std::to_string(report.gpu->cublas_version / 10000) + "." +
                                     std::to_string(report.gpu->cublas_version / 100 % 100) + "." +
                                     std::to_string(report.gpu->cublas_version % 100);
  report.implementations.push_back(
      {"fastmv", true,
       std::string("fastmv ") + FASTMV_VERSION_STRING + ", backend cuda, device " +
           std::to_string(context.cuda_device()) + " (" + report.gpu->name + ")"});
  const std::string cublas_description =
      "cuBLAS " + cublas_version +
      ": cublasSgemv / cublasDgemv; bf16 and fp16 with x in A's type, y float, float accumulation: "
      "the faster of cublasGemmEx and cublas{T,H}SSgemvStridedBatched per point";
  report.implementations.push_back(
      {"cublas", run_cublas,
       run_cublas ? cublas_description : "skipped: not in --vendors (" + cublas_description + ")"});
  // --variant: every policy parsed now (a bad one stops the run before it starts), then
  // the environment's back in force.
  for (const auto& [label, policy] : options.variants) {
    try {
      fastmv::cuda::set_gemv_policy(policy.c_str());
    } catch (const std::exception& error) {
      fastmv::cuda::set_gemv_policy(nullptr);
      throw std::invalid_argument("--variant " + label + ": " + error.what());
    }
    report.implementations.push_back(
        {kVariantPrefix + label, true,
         "fastmv with FASTMV_CUDA_GEMV_POLICY=" + (policy.empty() ? "(the defaults)" : policy) +
             " (fastmv::cuda::set_gemv_policy before each call), in the same round-robin"});
  }
  // (Without --variant the bench never calls set_gemv_policy, so that this binary also runs
  // against an older libfastmv: tools/ab_gemv.sh's LABEL=@LIBDIR.)
  if (!options.variants.empty()) fastmv::cuda::set_gemv_policy(nullptr);

  std::vector<PointSpec> specs;
  for (const Shape& shape :
       options.shapes.empty() ? gpu_sweep_shapes(options.sweep) : options.shapes) {
    for (Layout layout : options.layouts) {
      for (Op op : options.ops) specs.push_back({layout, op, shape});
    }
  }
  Progress progress(options.progress,
                    specs.size() * dtypes.size() * static_cast<std::size_t>(report.rounds));
  CudaGemvBench bench(options, context, report, stream, cublas.get(), run_cublas, budget);
  std::size_t index = 0;
  for (const auto& dtype : known) {  // a fixed order, whatever the order of --dtype
    if (std::find(dtypes.begin(), dtypes.end(), dtype) == dtypes.end()) continue;
    if (dtype == "float") bench.run_dtype<Float32>(specs, progress, index);
    if (dtype == "double") bench.run_dtype<Float64>(specs, progress, index);
    if (dtype == "bf16") bench.run_dtype<BFloat16>(specs, progress, index);
    if (dtype == "fp16") bench.run_dtype<Float16>(specs, progress, index);
  }
  check_cuda(cudaStreamSynchronize(stream), "the benchmark's last calls");
  if (!options.variants.empty()) fastmv::cuda::set_gemv_policy(nullptr);
}

}  // namespace fastmv_tool
