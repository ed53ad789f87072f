// Operand storage that catches out-of-bounds and stray accesses.
//
// Every operand lives in its own 64-byte-aligned allocation:
//
//   [front guard][data ...][back guard]
//
// The data pointer is 64-byte aligned plus `misalign` elements (tests use 1 so that
// vectorised code sees misaligned operands, and 0 for the aligned variant). Guards,
// the gaps of strided vectors and the padding of matrices (lda > rows) hold a
// sentinel NaN: a kernel that reads them produces NaN (caught by the value check),
// a kernel that writes them changes their bits (caught by the guard check).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>
#include <vector>

#include "fastmv/half.hpp"
#include "fastmv/types.hpp"

namespace fastmv_test {

using fastmv::index_t;

// A quiet NaN with a recognisable payload.
template <typename T>
T sentinel() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return fastmv::half::from_bits(0x7e5a);
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return fastmv::bfloat16::from_bits(0x7fe5);
  } else if constexpr (std::is_same_v<T, float>) {
    const std::uint32_t bits = 0x7fe5a5a5u;
    T value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  } else {
    static_assert(std::is_same_v<T, double>, "float, double, half or bfloat16");
    const std::uint64_t bits = 0x7ffa5a5a5a5a5a5aull;
    T value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  }
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <typename T>
class GuardedBuffer {
 public:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::size_t kGuardElements = 2 * kAlignment / sizeof(T);

  GuardedBuffer(std::size_t size, std::size_t misalign)
      : size_(size), front_(kGuardElements + misalign), total_(front_ + size + kGuardElements) {
    const std::size_t bytes = (total_ * sizeof(T) + kAlignment - 1) / kAlignment * kAlignment;
    storage_ = static_cast<T*>(std::aligned_alloc(kAlignment, bytes));
    if (storage_ == nullptr) throw std::bad_alloc();
    std::fill(storage_, storage_ + total_, sentinel<T>());
  }
  GuardedBuffer(const GuardedBuffer&) = delete;
  GuardedBuffer& operator=(const GuardedBuffer&) = delete;
  ~GuardedBuffer() { std::free(storage_); }

  T* data() { return storage_ + front_; }
  const T* data() const { return storage_ + front_; }
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }

  // The whole allocation, guards included: for bitwise before/after comparisons,
  // and to mirror the operand in device memory (tests/common/backend_memory.hpp).
  T* allocation() { return storage_; }
  const T* allocation() const { return storage_; }
  std::size_t allocation_size() const { return total_; }
  std::vector<T> snapshot() const { return std::vector<T>(storage_, storage_ + total_); }
  bool equals(const std::vector<T>& snapshot) const {
    return snapshot.size() == total_ &&
           std::memcmp(snapshot.data(), storage_, total_ * sizeof(T)) == 0;
  }
  bool guards_intact() const {
    for (std::size_t i = 0; i < front_; ++i) {
      if (!same_bits(storage_[i], sentinel<T>())) return false;
    }
    for (std::size_t i = front_ + size_; i < total_; ++i) {
      if (!same_bits(storage_[i], sentinel<T>())) return false;
    }
    return true;
  }

 private:
  std::size_t size_;
  std::size_t front_;
  std::size_t total_;
  T* storage_;
};

// A BLAS vector of `length` logical elements with increment `inc` != 0: element i
// sits at i * inc for inc > 0 and at (length - 1 - i) * |inc| for inc < 0. The
// |inc| - 1 elements between logical ones are gaps that hold the sentinel.
template <typename T>
class StridedVector {
 public:
  StridedVector(const std::vector<T>& values, index_t inc, std::size_t misalign)
      : length_(static_cast<index_t>(values.size())),
        inc_(inc),
        buffer_(length_ == 0 ? 0 : static_cast<std::size_t>(1 + (length_ - 1) * step()), misalign) {
    for (index_t i = 0; i < length_; ++i) at(i) = values[static_cast<std::size_t>(i)];
  }

  T* data() { return buffer_.data(); }
  const T* data() const { return buffer_.data(); }
  index_t length() const { return length_; }
  index_t inc() const { return inc_; }
  T& at(index_t i) { return buffer_[position(i)]; }
  const T& at(index_t i) const { return buffer_[position(i)]; }
  GuardedBuffer<T>& buffer() { return buffer_; }
  const GuardedBuffer<T>& buffer() const { return buffer_; }

  // Guards and every gap element still hold the sentinel.
  bool gaps_and_guards_intact() const {
    if (!buffer_.guards_intact()) return false;
    const std::size_t stride = static_cast<std::size_t>(step());
    for (std::size_t element = 0; element < buffer_.size(); element += stride) {
      const std::size_t gap_end = std::min(element + stride, buffer_.size());
      for (std::size_t p = element + 1; p < gap_end; ++p) {
        if (!same_bits(buffer_[p], sentinel<T>())) return false;
      }
    }
    return true;
  }

 private:
  index_t step() const { return inc_ < 0 ? -inc_ : inc_; }
  std::size_t position(index_t i) const {
    return static_cast<std::size_t>(inc_ > 0 ? i * inc_ : (length_ - 1 - i) * step());
  }

  index_t length_;
  index_t inc_;
  GuardedBuffer<T> buffer_;
};

// A dense m x n matrix in `layout` with leading dimension ld: (i, j) sits at
// i * ld + j (row-major) or j * ld + i (column-major). The allocation holds exactly
// (stored vectors - 1) * ld + stored length elements, so the last stored vector
// ends at the back guard; padding between stored vectors holds the sentinel.
template <typename T>
class GuardedMatrix {
 public:
  GuardedMatrix(fastmv::Layout layout, index_t m, index_t n, index_t ld, std::size_t misalign)
      : layout_(layout), m_(m), n_(n), ld_(ld), buffer_(storage_size(layout, m, n, ld), misalign) {}

  static std::size_t storage_size(fastmv::Layout layout, index_t m, index_t n, index_t ld) {
    const bool row_major = layout == fastmv::Layout::RowMajor;
    const index_t count = row_major ? m : n;
    const index_t length = row_major ? n : m;
    return count == 0 || length == 0 ? 0 : static_cast<std::size_t>((count - 1) * ld + length);
  }

  T* data() { return buffer_.data(); }
  const T* data() const { return buffer_.data(); }
  fastmv::Layout layout() const { return layout_; }
  index_t rows() const { return m_; }
  index_t cols() const { return n_; }
  index_t ld() const { return ld_; }
  std::size_t offset(index_t i, index_t j) const {
    return static_cast<std::size_t>(layout_ == fastmv::Layout::RowMajor ? i * ld_ + j
                                                                        : j * ld_ + i);
  }
  T& operator()(index_t i, index_t j) { return buffer_[offset(i, j)]; }
  const T& operator()(index_t i, index_t j) const { return buffer_[offset(i, j)]; }
  GuardedBuffer<T>& buffer() { return buffer_; }
  const GuardedBuffer<T>& buffer() const { return buffer_; }

 private:
  fastmv::Layout layout_;
  index_t m_, n_, ld_;
  GuardedBuffer<T> buffer_;
};

}  // namespace fastmv_test
