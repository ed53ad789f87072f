#include "operand_pool.hpp"

#include <new>

namespace fastmv_tool {
namespace {

constexpr std::size_t kAlignment = std::size_t(2) << 20;

// splitmix64: a counter-based generator, so each element's value depends only on the
// seed and its index, whatever the thread count.
std::uint64_t splitmix64(std::uint64_t state) {
  std::uint64_t z = state + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

template <typename T>
HostBuffer<T>::HostBuffer(std::size_t count) : count_(count) {
  const std::size_t bytes = (count * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
  data_.reset(static_cast<T*>(std::aligned_alloc(kAlignment, bytes == 0 ? kAlignment : bytes)));
  if (!data_) throw std::bad_alloc();
}

template <typename T>
void fill_random_operands(T* data, std::size_t count, std::uint64_t seed) {
  const std::uint64_t base = splitmix64(seed);
#pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint64_t bits = splitmix64(base + i);
    const int magnitude = static_cast<int>(bits & 3) + 1;
    data[i] = static_cast<T>((bits & 4) != 0 ? -magnitude : magnitude);
  }
}

template class HostBuffer<float>;
template class HostBuffer<double>;
template void fill_random_operands<float>(float*, std::size_t, std::uint64_t);
template void fill_random_operands<double>(double*, std::size_t, std::uint64_t);

}  // namespace fastmv_tool
