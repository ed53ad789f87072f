// The element types of the tests (float, double, and the 16-bit storage types
// fastmv::half and fastmv::bfloat16, which do no arithmetic) behind one vocabulary:
// conversions to and from double, special values, unit roundoff and names.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "fastmv/half.hpp"

namespace fastmv_test {

template <typename T>
constexpr bool kIsHalfPrecision =
    std::is_same_v<T, fastmv::half> || std::is_same_v<T, fastmv::bfloat16>;

// The type of alpha, beta and the accumulation for A in TA: float, except double.
template <typename TA>
using Scalar = std::conditional_t<std::is_same_v<TA, double>, double, float>;

template <typename T>
double to_double(T value) {
  if constexpr (kIsHalfPrecision<T>) {
    return static_cast<double>(static_cast<float>(value));
  } else {
    return static_cast<double>(value);
  }
}

// Rounds once for float and double; through float for the 16-bit types (the tests
// only convert values for which this double rounding does not matter).
template <typename T>
T from_double(double value) {
  if constexpr (kIsHalfPrecision<T>) {
    return T(static_cast<float>(value));
  } else {
    return static_cast<T>(value);
  }
}

template <typename T>
T quiet_nan() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return fastmv::half::from_bits(0x7e00);
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return fastmv::bfloat16::from_bits(0x7fc0);
  } else {
    return std::numeric_limits<T>::quiet_NaN();
  }
}

template <typename T>
T infinity() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return fastmv::half::from_bits(0x7c00);
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return fastmv::bfloat16::from_bits(0x7f80);
  } else {
    return std::numeric_limits<T>::infinity();
  }
}

// Unit roundoff u = 2^-p for p significand bits (the implicit one included): the
// relative error of rounding a value to nearest in T, outside the subnormal range.
template <typename T>
constexpr double unit_roundoff() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return 0x1p-11;
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return 0x1p-8;
  } else {
    return std::numeric_limits<T>::epsilon() / 2;
  }
}

// The smallest positive subnormal: twice the largest absolute error of rounding a
// value in the subnormal range.
template <typename T>
constexpr double smallest_subnormal() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return 0x1p-24;
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return 0x1p-133;
  } else {
    return std::numeric_limits<T>::denorm_min();
  }
}

template <typename T>
const char* type_name() {
  if constexpr (std::is_same_v<T, fastmv::half>) {
    return "half";
  } else if constexpr (std::is_same_v<T, fastmv::bfloat16>) {
    return "bfloat16";
  } else if constexpr (std::is_same_v<T, float>) {
    return "float";
  } else {
    static_assert(std::is_same_v<T, double>, "float, double, half or bfloat16");
    return "double";
  }
}

// The precisions of one GEMV overload, as a type for typed tests: A in TA, x and y
// in TX (every overload of fastmv::gemv has x and y of one type).
template <typename TA_, typename TX_>
struct Precision {
  using TA = TA_;
  using TX = TX_;
  using TY = TX_;
};

// Typed-test names for Precision types: "bfloat16_float" and the like.
struct PrecisionNames {
  template <typename P>
  static std::string GetName(int) {
    return std::string(type_name<typename P::TA>()) + "_" + type_name<typename P::TX>();
  }
};

}  // namespace fastmv_test
