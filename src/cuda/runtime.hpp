// The CUDA backend's interface to the rest of the library, free of CUDA headers so
// that core/ and dispatch/ compile without the toolkit. Implemented by runtime.cu,
// or by runtime_stub.cpp in builds without CUDA (where every entry throws
// BackendUnavailable; no Cuda context can exist there).
#pragma once

#include <memory>

#include "fastmv/context.hpp"

namespace fastmv::cuda {

// A new stream and empty workspace on `device` (-1: the calling thread's current
// device). Throws InvalidArgument for a device that does not exist.
std::shared_ptr<fastmv::detail::CudaState> make_state(int device);
int device_of(const fastmv::detail::CudaState& state) noexcept;
void* stream_of(const fastmv::detail::CudaState& state) noexcept;
void synchronize(fastmv::detail::CudaState& state);

// The context's CUDA state; BackendUnavailable when the context is not a Cuda one.
detail::CudaState& state_of(const Context& context, const char* function);

// InvalidArgument unless `pointer` is device (or managed) memory usable on the
// state's device, found with cudaPointerGetAttributes.
void require_device_pointer(fastmv::detail::CudaState& state, const char* function, const char* argument,
                            const void* pointer);

// Where an array lives, for the calls that take device or host arrays on the CUDA
// backend and move host ones themselves (fastmv::transform4).
enum class Residence {
  Device,    // device memory of the state's device, or managed memory
  Pinned,    // page-locked host memory (cudaMallocHost, cudaHostRegister): DMA reads it
  Pageable,  // any other host memory: staged through pinned buffers
};
// InvalidArgument for device memory of another device.
Residence residence_of(fastmv::detail::CudaState& state, const char* function, const char* argument,
                       const void* pointer);

// InvalidArgument when `pointer` is device memory: for the calls that take host
// arrays on every backend and move them to the device themselves (fastmv::jacobi).
// Pinned, pageable and managed memory pass.
void require_host_pointer(const char* function, const char* argument, const void* pointer);

}  // namespace fastmv::cuda
