#include "fastmv/context.hpp"

#include <omp.h>

#include <string>

#include "cuda/runtime.hpp"
#include "fastmv/error.hpp"
#include "fastmv/info.hpp"

namespace fastmv {
namespace {

int default_threads() { return omp_get_max_threads() > 0 ? omp_get_max_threads() : 1; }

void check_threads(int threads) {
  if (threads < 0) {
    throw InvalidArgument("fastmv::Context", "threads", std::to_string(threads),
                          "must be >= 0 (0 means the OpenMP default)");
  }
}

}  // namespace

bool Context::available(Backend backend) {
  switch (backend) {
    case Backend::Auto:
    case Backend::Reference:
    case Backend::Cpu: return true;
    case Backend::Cuda: return cuda_built() && cuda_device_count() > 0;
  }
  return false;
}

Context::Context(Backend backend, int threads, int cuda_device) : backend_(backend), threads_(1) {
  check_threads(threads);
  if (backend != Backend::Auto && backend != Backend::Reference && backend != Backend::Cpu &&
      backend != Backend::Cuda) {
    throw InvalidArgument("fastmv::Context", "backend",
                          std::to_string(static_cast<int>(backend)), "is not a fastmv::Backend");
  }
  if (backend == Backend::Auto) {
    backend_ = available(Backend::Cuda) ? Backend::Cuda : Backend::Cpu;
  } else if (!available(backend)) {
    throw BackendUnavailable(
        std::string("fastmv::Context: backend '") + to_string(backend) +
        "' is not available in this build (CUDA code compiled: " + (cuda_built() ? "yes" : "no") +
        ", CUDA devices: " + std::to_string(cuda_device_count()) + ")");
  }
  if (backend_ == Backend::Cuda) cuda_ = cuda::make_state(cuda_device);
  threads_ = threads == 0 ? default_threads() : threads;
}

int Context::cuda_device() const noexcept { return cuda_ ? cuda::device_of(*cuda_) : -1; }

void* Context::cuda_stream() const noexcept { return cuda_ ? cuda::stream_of(*cuda_) : nullptr; }

void Context::synchronize() const {
  if (cuda_) cuda::synchronize(*cuda_);
}

void Context::set_threads(int threads) {
  check_threads(threads);
  threads_ = threads == 0 ? default_threads() : threads;
}

}  // namespace fastmv
