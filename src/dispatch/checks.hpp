// Argument checks shared by the public entry points. They throw
// fastmv::InvalidArgument naming the function, the argument and its value.
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "fastmv/error.hpp"
#include "fastmv/types.hpp"

namespace fastmv::checks {

// Sizes multiplied out in 128 bits cannot overflow before they are compared.
__extension__ typedef __int128 wide_int;

inline std::string str(index_t value) { return std::to_string(value); }

inline std::string address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pointer);
  return text;
}

// Throws InvalidArgument when `condition` is false. The value and requirement are
// callables returning the message parts, so a passing check builds no strings:
// these checks run on every call, also for 16 x 16 problems that take ~100 ns.
template <typename Value, typename Requirement>
inline void require(bool condition, const char* function, const char* argument, Value&& value,
                    Requirement&& requirement) {
  if (__builtin_expect(!condition, 0)) {
    throw InvalidArgument(function, argument, value(), requirement());
  }
}

// The bytes [begin, end) an operand touches, and the offset in elements from the
// pointer the caller passed to the operand's logical element 0.
struct Span {
  std::uintptr_t begin;
  std::uintptr_t end;
  index_t first_element_offset;
};

inline bool overlap(const Span& a, const Span& b) { return a.begin < b.end && b.begin < a.end; }

namespace detail {
template <typename T, typename Value>
Span span_of(const char* function, const char* argument, Value&& value,
             const T* pointer, wide_int elements, index_t first_element_offset) {
  const wide_int bytes = elements * static_cast<wide_int>(sizeof(T));
  const auto begin = reinterpret_cast<std::uintptr_t>(pointer);
  require(bytes <= std::numeric_limits<std::ptrdiff_t>::max() &&
              bytes <= static_cast<wide_int>(std::numeric_limits<std::uintptr_t>::max() - begin),
          function, argument, value,
          [] { return "makes the operand span more memory than can be addressed"; });
  return Span{begin, begin + static_cast<std::uintptr_t>(bytes), first_element_offset};
}
}  // namespace detail

// A vector `name` of `length` > 0 elements with increment `inc` != 0 (BLAS
// convention: a negative increment starts at the end of the array).
template <typename T>
Span vector_span(const char* function, const char* name, const T* pointer, index_t length,
                 index_t inc) {
  const wide_int step = inc < 0 ? -static_cast<wide_int>(inc) : static_cast<wide_int>(inc);
  const wide_int last = static_cast<wide_int>(length - 1) * step;
  const index_t first_offset = inc < 0 ? static_cast<index_t>(last) : 0;
  return detail::span_of(
      function, name, [=] { return str(length) + " elements with increment " + str(inc); },
      pointer, last + 1, first_offset);
}

// `count` > 0 stored vectors of `length` > 0 elements, `ld` apart.
template <typename T>
Span matrix_span(const char* function, const T* pointer, index_t count, index_t length,
                 index_t ld) {
  const wide_int elements = static_cast<wide_int>(count - 1) * ld + length;
  return detail::span_of(function, "lda", [=] { return str(ld); }, pointer, elements, 0);
}

}  // namespace fastmv::checks

namespace fastmv::checks {

// The bytes `batch` > 0 copies of `one` span when copy b starts `stride` elements
// of size `element` after copy 0 (any sign).
inline Span batched_span(const char* function, const char* argument, const Span& one,
                         index_t stride, std::size_t element, index_t batch) {
  const wide_int shift = static_cast<wide_int>(batch - 1) * stride * static_cast<wide_int>(element);
  wide_int begin = static_cast<wide_int>(one.begin);
  wide_int end = static_cast<wide_int>(one.end);
  if (shift < 0) begin += shift; else end += shift;
  require(begin >= 0 && end <= static_cast<wide_int>(std::numeric_limits<std::uintptr_t>::max()),
          function, argument, [=] { return str(stride); },
          [] { return "makes the batch span more memory than can be addressed"; });
  return Span{static_cast<std::uintptr_t>(begin), static_cast<std::uintptr_t>(end),
              one.first_element_offset};
}

}  // namespace fastmv::checks
