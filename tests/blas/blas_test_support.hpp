// Helpers of the libfastmv_blas tests: fresh random data, BLAS vector indexing,
// bitwise comparison of buffers.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace blas_test {

// A fresh seed per test, printed with every failure through SCOPED_TRACE.
inline std::uint64_t fresh_seed() {
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) | device();
}

template <typename T>
std::vector<T> random_values(std::mt19937_64& engine, std::size_t count) {
  std::uniform_real_distribution<T> uniform(T(-1), T(1));
  std::vector<T> values(count);
  for (T& value : values) value = uniform(engine);
  return values;
}

// Elements of a BLAS vector of `length` elements with increment `inc` occupy
// 1 + (length - 1) * |inc| array elements; element i sits at
// i * inc (inc > 0) or (length - 1 - i) * |inc| (inc < 0).
inline std::size_t vector_extent(int length, int inc) {
  return length == 0 ? 0 : 1 + static_cast<std::size_t>(length - 1) * std::abs(inc);
}
inline std::size_t element_index(int i, int length, int inc) {
  return inc > 0 ? static_cast<std::size_t>(i) * inc
                 : static_cast<std::size_t>(length - 1 - i) * -inc;
}

template <typename T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

}  // namespace blas_test
