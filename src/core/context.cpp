#include "fastmv/context.hpp"

#include <omp.h>

#include <string>

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
    // The CUDA kernels are the next milestone; until they exist no context can
    // run on the GPU, even in a build with FASTMV_CUDA and a device present.
    case Backend::Cuda: return false;
  }
  return false;
}

Context::Context(Backend backend, int threads) : backend_(backend), threads_(1) {
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
        ", CUDA devices: " + std::to_string(cuda_device_count()) +
        "; the CUDA GEMV kernels are not part of this version)");
  }
  threads_ = threads == 0 ? default_threads() : threads;
}

void Context::set_threads(int threads) {
  check_threads(threads);
  threads_ = threads == 0 ? default_threads() : threads;
}

}  // namespace fastmv
