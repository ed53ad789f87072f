// Operands in the memory of the backend under test. The tests build every operand
// in a host GuardedBuffer (guarded_buffer.hpp); BackendCopy gives the pointers a
// call on the backend takes:
//   - Reference and Cpu take host pointers: the operand is the host buffer itself.
//   - Cuda takes device pointers: the whole host allocation (guards, gaps and NaN
//     padding included) is copied to device memory, so every pointer keeps its
//     offset within the allocation, and with it its misalignment (the host
//     allocation is 64-byte aligned, device memory 256-byte aligned). After the call
//     copy_to() brings the device contents back for the host-side checks.
//
//   BackendCopy<float> y_on_backend(context, y.buffer());
//   fastmv::gemv(context, ..., y_on_backend.pointer(y.data()), incy);
//   y_on_backend.copy_to(y.buffer());  // Cuda: waits for the call
#pragma once

#include <cstring>
#include <vector>

#include "common/backend_under_test.hpp"
#include "common/guarded_buffer.hpp"
#include "fastmv/cuda.hpp"

namespace fastmv_test {

constexpr bool kOperandsOnDevice = kBackend == fastmv::Backend::Cuda;

template <typename T>
class BackendCopy {
 public:
  BackendCopy(const fastmv::Context& context, const GuardedBuffer<T>& host)
      : context_(context), host_(&host) {
    if constexpr (kOperandsOnDevice) {
      const auto size = static_cast<index_t>(host.allocation_size());
      device_ = fastmv::cuda::DeviceBuffer<T>(context, size);
      fastmv::cuda::copy(context, device_.data(), host.allocation(), size);
    }
  }

  // The backend's pointer for `host_pointer`, a pointer into the host allocation
  // (or null, which stays null).
  T* pointer(T* host_pointer) { return translate(host_pointer); }
  const T* pointer(const T* host_pointer) { return translate(host_pointer); }

  // Copies the backend's contents over the host allocation (Cuda; the host
  // backends wrote it directly). Waits for the work queued before it.
  void copy_to(GuardedBuffer<T>& host) const {
    if constexpr (kOperandsOnDevice) {
      fastmv::cuda::copy(context_, host.allocation(), device_.data(),
                         static_cast<index_t>(host.allocation_size()));
    }
  }

  // The whole allocation as it is now in the backend's memory.
  std::vector<T> contents() const {
    if constexpr (kOperandsOnDevice) {
      std::vector<T> result(host_->allocation_size());
      fastmv::cuda::copy(context_, result.data(), device_.data(), device_.size());
      return result;
    } else {
      return host_->snapshot();
    }
  }

  // Whether the allocation is bitwise `snapshot` (a GuardedBuffer::snapshot()).
  bool equals(const std::vector<T>& snapshot) const {
    if constexpr (kOperandsOnDevice) {
      const std::vector<T> now = contents();
      return now.size() == snapshot.size() &&
             std::memcmp(now.data(), snapshot.data(), now.size() * sizeof(T)) == 0;
    } else {
      return host_->equals(snapshot);
    }
  }

 private:
  template <typename P>
  P* translate(P* host_pointer) {
    if constexpr (kOperandsOnDevice) {
      if (host_pointer == nullptr) return nullptr;
      return device_.data() + (host_pointer - host_->allocation());
    } else {
      return host_pointer;
    }
  }

  fastmv::Context context_;
  const GuardedBuffer<T>* host_;
  fastmv::cuda::DeviceBuffer<T> device_;
};

}  // namespace fastmv_test
