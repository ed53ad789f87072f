// CUDA-side definition of a CUDA context's state, and the error checking every CUDA
// call and launch goes through. Included by the .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "fastmv/context.hpp"
#include "fastmv/error.hpp"

namespace fastmv {
namespace cuda {

// Throws CudaError naming `what` (the fastmv function and the CUDA call) and CUDA's
// message, when `status` is not cudaSuccess.
void check(cudaError_t status, const char* what);
// A driver API function by name (CUDA 12.0 ABI), found at run time so that libfastmv
// does not link libcuda; null where the driver lacks it.
void* driver_function(const char* name);
// After a launch: the launch error, if any.
inline void check_launch(const char* what) { check(cudaGetLastError(), what); }

// Makes the state's device current for the lifetime of the guard and restores the
// caller's device afterwards.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool changed_ = false;
};

}  // namespace cuda

namespace detail {

struct CudaState {
  int device = 0;
  cudaStream_t stream = nullptr;
  int multiprocessors = 0;
  int compute_major = 0;  // compute capability: 9 and up have the TMA unit
  std::size_t l2_bytes = 0;
  // Peak DRAM bandwidth from the device's memory clock and bus width (double data
  // rate), bytes a second; 0 where the device does not report them. The GEMV
  // dispatcher reads it per SM to tell memory systems apart (H100 SXM about 25 GB/s an
  // SM, H200 about 37).
  double memory_bytes_per_second = 0;
  // The same, GB/s an SM (0 where unknown).
  double memory_gbps_per_sm() const {
    return multiprocessors > 0 ? memory_bytes_per_second / 1e9 / multiprocessors : 0.0;
  }

  // Guards the workspace and serialises the queueing of work that uses it, so that
  // copies of one context used from several threads stay correct.
  std::mutex mutex;

  // Scratch memory for split reductions, stream-ordered: zeroed `counters` first
  // (every kernel that uses one returns it to 0), then `bytes` of partial sums.
  // Call with `mutex` held; valid until the next call.
  struct Workspace {
    unsigned* counters;
    void* scratch;
  };
  Workspace workspace(std::size_t counters, std::size_t scratch_bytes);

  // The last allocations found to be device memory of this device, as address ranges
  // [begin, end) (asking CUDA costs about a microsecond a pointer, a third of a small
  // GEMV; operands carved out of one allocation, as caching allocators hand them out,
  // share one entry). Memory keeps its kind until freed; calling with freed memory is
  // undefined, as for any CUDA library.
  struct VerifiedRange {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
  };
  std::mutex verified_mutex;
  std::array<VerifiedRange, 16> verified{};
  unsigned next_verified = 0;

  // Pinned host buffers through which pageable host arrays go to the device
  // (cuda/staging.hpp), allocated on first use and kept with the context: pinning
  // memory costs more than copying it. `copied[i]` is recorded when the copy out of
  // `buffers[i]` has been queued. Call with `mutex` held.
  static constexpr int kStagingBuffers = 4;
  static constexpr std::size_t kStagingBytes = std::size_t(8) << 20;
  struct Staging {
    std::array<void*, kStagingBuffers> buffers{};
    std::array<cudaEvent_t, kStagingBuffers> copied{};
  };
  Staging& staging();

  // What a solver (fastmv::jacobi) keeps between calls: a second stream, events and a
  // little pinned memory. Creating them costs more than a small solve (on the H100's
  // host cudaMallocHost alone took 0.6-1.3 ms, and cudaFreeHost 0.2-0.3 ms). A solver
  // takes a set for its lifetime and gives it back once its work on them has
  // finished; solvers running at once on one context get a set each. Call both with
  // `mutex` held.
  struct SolverSet {
    static constexpr std::size_t kPinnedBytes = 4096;
    cudaStream_t side = nullptr;  // non-blocking
    std::array<cudaEvent_t, 3> events{};  // timing disabled
    void* pinned = nullptr;  // kPinnedBytes of page-locked host memory
  };
  SolverSet take_solver_set();
  void give_back(const SolverSet& set);

  // What calls on host arrays that stream them through the device keep between calls
  // (fastmv::transform4 on host arrays, kernels/transform4_kernels.hpp): kSlots
  // streams, each with a device buffer and, for pageable arrays, two pinned ones (the
  // chunk going up, the result coming down, so that the helper threads fill one while
  // they empty the other), so that one chunk goes up while another is computed and a
  // third comes down. 64 MiB of device memory; 128 MiB more of pinned memory once a
  // pageable array has been seen. Created on first use (`staged`: with the pinned
  // buffers); call with `mutex` held.
  struct HostPipeline {
    static constexpr int kSlots = 4;
    static constexpr std::size_t kSlotBytes = std::size_t(16) << 20;
    std::array<cudaStream_t, kSlots> streams{};  // non-blocking
    std::array<cudaEvent_t, kSlots> done{};      // the slot's last chunk is back on the host
    cudaEvent_t ready = nullptr;                 // the context stream's earlier work
    void* device = nullptr;                      // kSlots * kSlotBytes
    std::array<void*, kSlots> pinned_up{};       // kSlotBytes each, page-locked
    std::array<void*, kSlots> pinned_down{};
  };
  HostPipeline& host_pipeline(bool staged);

  ~CudaState();

 private:
  void* memory_ = nullptr;
  std::size_t counters_ = 0;
  std::size_t scratch_bytes_ = 0;
  Staging staging_;
  std::vector<SolverSet> idle_solver_sets_;
  HostPipeline pipeline_;
  static void destroy(const SolverSet& set);
};

}  // namespace detail
}  // namespace fastmv
