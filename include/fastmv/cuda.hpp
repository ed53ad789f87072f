// fastmv: device memory, pinned host memory and copies for the CUDA backend.
//
// These are usable in every build; without the CUDA backend (or without a device)
// they throw fastmv::BackendUnavailable. Failing CUDA calls throw fastmv::CudaError
// with CUDA's message.
//
//   fastmv::Context gpu(fastmv::Backend::Cuda);
//   fastmv::cuda::DeviceBuffer<float> A(gpu, m * n), x(gpu, n), y(gpu, m);
//   fastmv::cuda::copy(gpu, A.data(), host_A, m * n);     // host -> device
//   fastmv::gemv(gpu, ..., A.data(), ..., x.data(), 1, 0.0f, y.data(), 1);
//   fastmv::cuda::copy(gpu, host_y, y.data(), m);         // device -> host, waits
#pragma once

#include <cstddef>
#include <utility>

#include "fastmv/context.hpp"
#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv::cuda {

namespace detail {
// Untyped primitives behind the templates below.
FASTMV_API void* allocate_device(const Context& context, std::size_t bytes);
FASTMV_API void free_device(int device, void* pointer) noexcept;
FASTMV_API void* allocate_pinned(std::size_t bytes);
FASTMV_API void free_pinned(void* pointer) noexcept;
FASTMV_API void copy_bytes(const Context& context, void* destination, const void* source,
                           std::size_t bytes);
FASTMV_API std::size_t checked_bytes(const char* function, index_t count, std::size_t element);
}  // namespace detail

// Copies `count` elements between any two of host memory (pageable or pinned) and
// device memory, on the context's stream, after everything queued before it. A copy
// whose destination is host memory waits for its completion before returning (the
// data can be read at once); other copies return once queued (a pageable source
// may be reused at once: CUDA stages it first).
template <typename T>
void copy(const Context& context, T* destination, const T* source, index_t count) {
  detail::copy_bytes(context, destination, source,
                     detail::checked_bytes("fastmv::cuda::copy", count, sizeof(T)));
}

// `count` elements of device memory on the context's device, freed on destruction.
// Not initialised. Movable, not copyable.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const Context& context, index_t count)
      : data_(static_cast<T*>(detail::allocate_device(
            context, detail::checked_bytes("fastmv::cuda::DeviceBuffer", count, sizeof(T))))),
        size_(count),
        device_(context.cuda_device()) {}
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    DeviceBuffer(std::move(other)).swap(*this);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { detail::free_device(device_, data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  index_t size() const noexcept { return size_; }
  int device() const noexcept { return device_; }

  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(device_, other.device_);
  }

 private:
  T* data_ = nullptr;
  index_t size_ = 0;
  int device_ = -1;
};

// `count` elements of page-locked host memory (fast, asynchronous copies), freed on
// destruction. Not initialised. Movable, not copyable.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(index_t count)
      : data_(static_cast<T*>(detail::allocate_pinned(
            detail::checked_bytes("fastmv::cuda::PinnedBuffer", count, sizeof(T))))),
        size_(count) {}
  PinnedBuffer(PinnedBuffer&& other) noexcept { swap(other); }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    PinnedBuffer(std::move(other)).swap(*this);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  ~PinnedBuffer() { detail::free_pinned(data_); }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  index_t size() const noexcept { return size_; }
  T& operator[](index_t i) noexcept { return data_[i]; }
  const T& operator[](index_t i) const noexcept { return data_[i]; }

  void swap(PinnedBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

 private:
  T* data_ = nullptr;
  index_t size_ = 0;
};

// Replaces the CUDA GEMV dispatcher's tuning policy (which kernel, grid and rule each
// shape gets; FASTMV_CUDA_GEMV_POLICY's syntax, "name=value,...", applied over the
// defaults: src/cuda/gemv_cuda_policy.hpp) for the calls that start after it returns, in
// every context of the process; nullptr goes back to the environment's policy. A call
// already running on another thread keeps the policy it started with. Results stay
// correct under any valid policy; only speed changes. For benchmarks that compare
// dispatcher rules in one process (`fastmv bench gemv --variant`). Each distinct string
// is parsed once. A malformed one throws fastmv::InvalidArgument and changes nothing;
// without the CUDA backend it throws fastmv::BackendUnavailable.
FASTMV_API void set_gemv_policy(const char* policy);

}  // namespace fastmv::cuda
