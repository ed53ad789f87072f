// fastmv: the execution context. It chooses the backend, the CPU thread count and,
// for the CUDA backend, the device and the stream; every operation takes one.
//
// Contexts are cheap to copy: copies share the CUDA stream and workspace. A context
// may be used from several threads at once as long as none of them changes it; on
// the CUDA backend their calls are then ordered on the one stream.
//
// CUDA backend: operations are asynchronous with respect to the host. They are
// queued on the context's stream and return; synchronize() waits for them, and
// fastmv::cuda::copy to host memory waits by itself. Operands are device pointers
// (as for cuBLAS); host pointers and pointers to another device are rejected.
// On compute capability 9 and up, fastmv's GEMV kernels use programmatic dependent
// launch: each waits for the work queued before it, and lets the next kernel start
// early. A kernel of yours queued after one of them with programmatic stream
// serialization must call cudaGridDependencySynchronize() before it reads their
// results, as CUDA asks of every such kernel; ordinary launches need nothing.
#pragma once

#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

#include <memory>

namespace fastmv {

namespace detail {
struct CudaState;  // the stream, device and workspace of a CUDA context
}

class FASTMV_API Context {
 public:
  // backend: Auto resolves once, here: Cuda when built with it and a device is
  // present, else Cpu. threads: CPU threads the Cpu backend may use; 0 means the
  // OpenMP default (OMP_NUM_THREADS, else the number of cores).
  // cuda_device: the device a Cuda context runs on; -1 means the calling thread's
  // current device. A Cuda context creates its own non-blocking stream.
  // Throws BackendUnavailable for a backend this build or machine lacks, and
  // InvalidArgument for threads < 0 or a device that does not exist.
  explicit Context(Backend backend = Backend::Auto, int threads = 0, int cuda_device = -1);

  // The backend operations run on (never Auto).
  Backend backend() const noexcept { return backend_; }

  // The thread count the Cpu backend uses (>= 1).
  int threads() const noexcept { return threads_; }
  void set_threads(int threads);

  // CUDA backend: the device ordinal, and the cudaStream_t (as void*) operations are
  // queued on. -1 and nullptr for the other backends.
  int cuda_device() const noexcept;
  void* cuda_stream() const noexcept;

  // Waits until every operation queued on this context has finished, and reports a
  // failure of one of them (fastmv::CudaError). Returns at once on the CPU backends.
  void synchronize() const;

  // Whether this build and machine can run `backend`.
  static bool available(Backend backend);

  // Internal: the CUDA state (null for the other backends).
  detail::CudaState* cuda_state() const noexcept { return cuda_.get(); }

 private:
  Backend backend_;
  int threads_;
  std::shared_ptr<detail::CudaState> cuda_;
};

}  // namespace fastmv
