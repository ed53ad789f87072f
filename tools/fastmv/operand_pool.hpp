// Host memory for benchmark operands and the random values put in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace fastmv_tool {

// `count` uninitialised elements aligned to 2 MiB, so large buffers can sit on huge
// pages and every implementation sees the same alignment.
template <typename T>
class HostBuffer {
 public:
  HostBuffer() = default;
  explicit HostBuffer(std::size_t count);
  T* data() const noexcept { return data_.get(); }
  std::size_t size() const noexcept { return count_; }

 private:
  struct Free {
    void operator()(T* pointer) const noexcept { std::free(pointer); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t count_ = 0;
};

// Random integers from {-4..-1, 1..4}, filled by all OpenMP threads (first touch puts the
// pages near the threads that later stream them). Never zero, so no implementation can
// skip work on zeros; and products and their sums stay integers below 2^24 for reduction
// lengths up to 2^20, so every correct summation order gives exactly the same result.
template <typename T>
void fill_random_operands(T* data, std::size_t count, std::uint64_t seed);

}  // namespace fastmv_tool
