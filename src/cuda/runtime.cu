// CUDA contexts (stream, device, workspace), device pointer checks, and the device
// and pinned memory of fastmv/cuda.hpp.
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <string>

#include "cuda/runtime.hpp"
#include "cuda/state.hpp"
#include "fastmv/cuda.hpp"
#include "fastmv/error.hpp"

namespace fastmv {
namespace cuda {
namespace {

std::string checks_address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pointer);
  return text;
}

cudaMemoryType memory_type(const void* pointer) {
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return cudaMemoryTypeUnregistered;
  }
  return attributes.type;
}

}  // namespace

void* driver_function(const char* name) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(name, &function, 12000, cudaEnableDefault, &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    function = nullptr;
  }
  return function;
}

void check(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return;
  cudaGetLastError();  // clear a non-sticky error so that the context stays usable
  throw CudaError(std::string(what) + " failed: " + cudaGetErrorName(status) + ": " +
                      cudaGetErrorString(status),
                  static_cast<int>(status));
}

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    changed_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  if (changed_) cudaSetDevice(previous_);
}

std::shared_ptr<fastmv::detail::CudaState> make_state(int device) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw BackendUnavailable("fastmv::Context: the CUDA backend needs a CUDA device; none found");
  }
  if (device == -1) check(cudaGetDevice(&device), "fastmv::Context: cudaGetDevice");
  if (device < 0 || device >= count) {
    throw InvalidArgument("fastmv::Context", "cuda_device", std::to_string(device),
                          "must be -1 or a device ordinal < " + std::to_string(count));
  }
  auto state = std::make_shared<fastmv::detail::CudaState>();
  state->device = device;
  DeviceGuard guard(device);
  check(cudaStreamCreateWithFlags(&state->stream, cudaStreamNonBlocking),
        "fastmv::Context: cudaStreamCreateWithFlags");
  check(cudaDeviceGetAttribute(&state->multiprocessors, cudaDevAttrMultiProcessorCount, device),
        "fastmv::Context: cudaDeviceGetAttribute");
  int l2 = 0;
  check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device),
        "fastmv::Context: cudaDeviceGetAttribute");
  state->l2_bytes = static_cast<std::size_t>(l2);
  // Optional: a device that reports no memory clock or bus width leaves the bandwidth
  // unknown (0), which no rule that reads it takes as fast.
  int memory_khz = 0;
  int bus_bits = 0;
  if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) {
    state->memory_bytes_per_second = 2.0 * 1000.0 * memory_khz * (bus_bits / 8.0);
  } else {
    cudaGetLastError();
  }
  check(cudaDeviceGetAttribute(&state->compute_major, cudaDevAttrComputeCapabilityMajor, device),
        "fastmv::Context: cudaDeviceGetAttribute");
  return state;
}

int device_of(const fastmv::detail::CudaState& state) noexcept { return state.device; }
void* stream_of(const fastmv::detail::CudaState& state) noexcept { return state.stream; }

void synchronize(fastmv::detail::CudaState& state) {
  check(cudaStreamSynchronize(state.stream), "fastmv::Context::synchronize: cudaStreamSynchronize");
}

fastmv::detail::CudaState& state_of(const Context& context, const char* function) {
  if (context.cuda_state() == nullptr) {
    throw BackendUnavailable(std::string(function) + ": the context is not a CUDA context");
  }
  return *context.cuda_state();
}

// The allocation holding a device pointer, through the driver's cuPointerGetAttributes
// (found at run time, so that libfastmv does not link libcuda); [pointer, pointer + 1)
// where the driver does not say.
fastmv::detail::CudaState::VerifiedRange allocation_of(const void* pointer) {
  using Query = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  static const Query query = reinterpret_cast<Query>(fastmv::cuda::driver_function("cuPointerGetAttributes"));
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  fastmv::detail::CudaState::VerifiedRange range{address, address + 1};
  if (query != nullptr) {
    CUdeviceptr start = 0;
    std::size_t size = 0;
    CUpointer_attribute attributes[2] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    void* data[2] = {&start, &size};
    if (query(2, attributes, data, static_cast<CUdeviceptr>(address)) == CUDA_SUCCESS && start <= address &&
        address < start + size) {
      range = {static_cast<std::uintptr_t>(start), static_cast<std::uintptr_t>(start + size)};
    }
  }
  return range;
}

void require_device_pointer(fastmv::detail::CudaState& state, const char* function, const char* argument,
                            const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  if (pointer != nullptr) {
    std::lock_guard<std::mutex> lock(state.verified_mutex);
    for (const auto& known : state.verified) {
      if (known.begin <= address && address < known.end) return;
    }
  }
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw InvalidArgument(function, argument, checks_address(pointer),
                          std::string("is not memory CUDA knows (cudaPointerGetAttributes: ") +
                              cudaGetErrorString(status) + ")");
  }
  const bool device_memory = attributes.type == cudaMemoryTypeDevice;
  const bool managed = attributes.type == cudaMemoryTypeManaged;
  if (!device_memory && !managed) {
    throw InvalidArgument(
        function, argument, checks_address(pointer),
        std::string("is ") +
            (attributes.type == cudaMemoryTypeHost ? "pinned host memory" : "host memory") +
            "; the CUDA backend takes device memory of device " + std::to_string(state.device) +
            " (copy it there with fastmv::cuda::copy, or use a Cpu context)");
  }
  if (device_memory && attributes.device != state.device) {
    throw InvalidArgument(function, argument, checks_address(pointer),
                          "is memory of device " + std::to_string(attributes.device) +
                              ", but the context runs on device " + std::to_string(state.device));
  }
  const auto range = allocation_of(pointer);
  std::lock_guard<std::mutex> lock(state.verified_mutex);
  state.verified[state.next_verified++ % state.verified.size()] = range;
}

Residence residence_of(fastmv::detail::CudaState& state, const char* function, const char* argument,
                       const void* pointer) {
  const auto address = reinterpret_cast<std::uintptr_t>(pointer);
  {
    std::lock_guard<std::mutex> lock(state.verified_mutex);
    for (const auto& known : state.verified) {
      if (known.begin <= address && address < known.end) return Residence::Device;
    }
  }
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return Residence::Pageable;
  }
  if (attributes.type == cudaMemoryTypeHost) return Residence::Pinned;
  if (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged) {
    return Residence::Pageable;
  }
  require_device_pointer(state, function, argument, pointer);  // the device, and the cache
  return Residence::Device;
}

void require_host_pointer(const char* function, const char* argument, const void* pointer) {
  if (memory_type(pointer) == cudaMemoryTypeDevice) {
    throw InvalidArgument(function, argument, checks_address(pointer),
                          std::string("is device memory; ") + function +
                              " takes host arrays on every backend and moves them itself");
  }
}

}  // namespace cuda

namespace detail {

CudaState::Workspace CudaState::workspace(std::size_t counters, std::size_t scratch_bytes) {
  if (counters > counters_ || scratch_bytes > scratch_bytes_) {
    // Grow geometrically, in stream order: work queued earlier keeps the old memory
    // until it has finished.
    const std::size_t new_counters = std::max<std::size_t>({counters, 2 * counters_, 4096});
    const std::size_t new_scratch = std::max<std::size_t>({scratch_bytes, 2 * scratch_bytes_, 1 << 20});
    const std::size_t counter_bytes = (new_counters * sizeof(unsigned) + 255) / 256 * 256;
    if (memory_ != nullptr) {
      cuda::check(cudaFreeAsync(memory_, stream), "fastmv: workspace cudaFreeAsync");
      memory_ = nullptr;
      counters_ = scratch_bytes_ = 0;
    }
    void* memory = nullptr;
    cuda::check(cudaMallocAsync(&memory, counter_bytes + new_scratch, stream),
                "fastmv: workspace cudaMallocAsync");
    cuda::check(cudaMemsetAsync(memory, 0, counter_bytes, stream), "fastmv: workspace cudaMemsetAsync");
    memory_ = memory;
    counters_ = counter_bytes / sizeof(unsigned);
    scratch_bytes_ = new_scratch;
  }
  const std::size_t counter_bytes = counters_ * sizeof(unsigned);
  return Workspace{static_cast<unsigned*>(memory_),
                   static_cast<char*>(memory_) + counter_bytes};
}

CudaState::SolverSet CudaState::take_solver_set() {
  if (!idle_solver_sets_.empty()) {
    const SolverSet set = idle_solver_sets_.back();
    idle_solver_sets_.pop_back();
    return set;
  }
  SolverSet set;
  try {
    cuda::check(cudaStreamCreateWithFlags(&set.side, cudaStreamNonBlocking),
                "fastmv: solver cudaStreamCreate");
    for (cudaEvent_t& event : set.events) {
      cuda::check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming),
                  "fastmv: solver cudaEventCreate");
    }
    cuda::check(cudaMallocHost(&set.pinned, SolverSet::kPinnedBytes), "fastmv: solver cudaMallocHost");
  } catch (...) {
    destroy(set);
    throw;
  }
  return set;
}

void CudaState::give_back(const SolverSet& set) { idle_solver_sets_.push_back(set); }

CudaState::HostPipeline& CudaState::host_pipeline(bool staged) {
  // Whatever a failed call created stays in pipeline_ and is freed with the state.
  HostPipeline& p = pipeline_;
  for (int i = 0; i < HostPipeline::kSlots; ++i) {
    if (p.streams[i] == nullptr) {
      cuda::check(cudaStreamCreateWithFlags(&p.streams[i], cudaStreamNonBlocking),
                  "fastmv: pipeline cudaStreamCreate");
    }
    if (p.done[i] == nullptr) {
      cuda::check(cudaEventCreateWithFlags(&p.done[i], cudaEventDisableTiming),
                  "fastmv: pipeline cudaEventCreate");
    }
    for (void** pinned : {&p.pinned_up[i], &p.pinned_down[i]}) {
      if (staged && *pinned == nullptr) {
        cuda::check(cudaMallocHost(pinned, HostPipeline::kSlotBytes), "fastmv: pipeline cudaMallocHost");
      }
    }
  }
  if (p.ready == nullptr) {
    cuda::check(cudaEventCreateWithFlags(&p.ready, cudaEventDisableTiming), "fastmv: pipeline cudaEventCreate");
  }
  if (p.device == nullptr) {
    cuda::check(cudaMalloc(&p.device, HostPipeline::kSlots * HostPipeline::kSlotBytes),
                "fastmv: pipeline cudaMalloc");
  }
  return p;
}

void CudaState::destroy(const SolverSet& set) {
  if (set.side != nullptr) cudaStreamDestroy(set.side);
  for (cudaEvent_t event : set.events) {
    if (event != nullptr) cudaEventDestroy(event);
  }
  if (set.pinned != nullptr) cudaFreeHost(set.pinned);
}

CudaState::~CudaState() {
  int previous = -1;
  cudaGetDevice(&previous);
  cudaSetDevice(device);
  if (stream != nullptr) {
    cudaStreamSynchronize(stream);
    if (memory_ != nullptr) cudaFreeAsync(memory_, stream);
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
  }
  for (const SolverSet& set : idle_solver_sets_) destroy(set);
  for (int i = 0; i < HostPipeline::kSlots; ++i) {
    if (pipeline_.streams[i] != nullptr) {
      cudaStreamSynchronize(pipeline_.streams[i]);
      cudaStreamDestroy(pipeline_.streams[i]);
    }
    if (pipeline_.done[i] != nullptr) cudaEventDestroy(pipeline_.done[i]);
    if (pipeline_.pinned_up[i] != nullptr) cudaFreeHost(pipeline_.pinned_up[i]);
    if (pipeline_.pinned_down[i] != nullptr) cudaFreeHost(pipeline_.pinned_down[i]);
  }
  if (pipeline_.ready != nullptr) cudaEventDestroy(pipeline_.ready);
  if (pipeline_.device != nullptr) cudaFree(pipeline_.device);
  for (int i = 0; i < kStagingBuffers; ++i) {
    if (staging_.buffers[i] != nullptr) cudaFreeHost(staging_.buffers[i]);
    if (staging_.copied[i] != nullptr) cudaEventDestroy(staging_.copied[i]);
  }
  if (previous >= 0) cudaSetDevice(previous);
  cudaGetLastError();
}

}  // namespace detail

// --- fastmv/cuda.hpp
namespace cuda::detail {

std::size_t checked_bytes(const char* function, index_t count, std::size_t element) {
  if (count < 0 || static_cast<unsigned long long>(count) >
                       std::numeric_limits<std::size_t>::max() / element) {
    throw InvalidArgument(function, "count", std::to_string(count),
                          "must be >= 0 and small enough to address in bytes");
  }
  return static_cast<std::size_t>(count) * element;
}

void* allocate_device(const Context& context, std::size_t bytes) {
  fastmv::detail::CudaState& state = state_of(context, "fastmv::cuda::DeviceBuffer");
  if (bytes == 0) return nullptr;
  DeviceGuard guard(state.device);
  void* pointer = nullptr;
  check(cudaMalloc(&pointer, bytes),
        ("fastmv::cuda::DeviceBuffer: cudaMalloc of " + std::to_string(bytes) + " bytes").c_str());
  return pointer;
}

void free_device(int device, void* pointer) noexcept {
  if (pointer == nullptr) return;
  int previous = -1;
  cudaGetDevice(&previous);
  if (previous != device) cudaSetDevice(device);
  cudaFree(pointer);
  if (previous != device && previous >= 0) cudaSetDevice(previous);
  cudaGetLastError();
}

void* allocate_pinned(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  void* pointer = nullptr;
  check(cudaMallocHost(&pointer, bytes),
        ("fastmv::cuda::PinnedBuffer: cudaMallocHost of " + std::to_string(bytes) + " bytes").c_str());
  return pointer;
}

void free_pinned(void* pointer) noexcept {
  if (pointer != nullptr) cudaFreeHost(pointer);
  cudaGetLastError();
}

void copy_bytes(const Context& context, void* destination, const void* source, std::size_t bytes) {
  fastmv::detail::CudaState& state = state_of(context, "fastmv::cuda::copy");
  if (bytes == 0) return;
  if (destination == nullptr || source == nullptr) {
    throw InvalidArgument("fastmv::cuda::copy", destination == nullptr ? "destination" : "source",
                          "nullptr", "must point to the elements to copy");
  }
  DeviceGuard guard(state.device);
  check(cudaMemcpyAsync(destination, source, bytes, cudaMemcpyDefault, state.stream),
        "fastmv::cuda::copy: cudaMemcpyAsync");
  // Host destinations can be read on return; a pageable source can be reused.
  const cudaMemoryType to = memory_type(destination);
  const cudaMemoryType from = memory_type(source);
  if ((to != cudaMemoryTypeDevice && to != cudaMemoryTypeManaged) ||
      from == cudaMemoryTypeUnregistered) {
    check(cudaStreamSynchronize(state.stream), "fastmv::cuda::copy: cudaStreamSynchronize");
  }
}

}  // namespace cuda::detail
}  // namespace fastmv
