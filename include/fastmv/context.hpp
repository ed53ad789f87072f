// fastmv: the execution context. It chooses the backend and the CPU thread count;
// every operation takes one. Contexts are cheap to create and copy; a context may
// be used from several threads at once as long as none of them changes it.
#pragma once

#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

class FASTMV_API Context {
 public:
  // backend: Auto resolves once, here: Cuda when built with it and a device is
  // present, else Cpu. threads: CPU threads the Cpu backend may use; 0 means the
  // OpenMP default (OMP_NUM_THREADS, else the number of cores).
  // Throws BackendUnavailable for a backend this build or machine lacks, and
  // InvalidArgument for threads < 0.
  explicit Context(Backend backend = Backend::Auto, int threads = 0);

  // The backend operations run on (never Auto).
  Backend backend() const noexcept { return backend_; }
  // The thread count the Cpu backend uses (>= 1).
  int threads() const noexcept { return threads_; }
  void set_threads(int threads);

  // Whether this build and machine can run `backend`.
  static bool available(Backend backend);

 private:
  Backend backend_;
  int threads_;
};

}  // namespace fastmv
