// fastmv: 16-bit floating-point storage types for mixed-precision operations.
//
// fastmv::half is IEEE binary16 and fastmv::bfloat16 is the upper half of an IEEE
// binary32. Both are plain 2-byte storage with the same bit layout as CUDA's __half
// and __nv_bfloat16, so device arrays of either can be passed with a
// reinterpret_cast. They do no arithmetic: convert to float, compute, convert back.
// Conversion from float rounds to nearest, ties to even; NaN stays NaN (quietened),
// Inf stays Inf, values too large for half become Inf. No flushing of subnormals.
#pragma once

#include <cstdint>
#include <cstring>

namespace fastmv {

namespace detail {
inline std::uint32_t float_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}
inline float bits_float(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
}  // namespace detail

struct bfloat16 {
  std::uint16_t bits;

  bfloat16() = default;
  explicit bfloat16(float value) {
    const std::uint32_t f = detail::float_bits(value);
    if ((f & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep the sign, quieten
      bits = static_cast<std::uint16_t>((f >> 16) | 0x0040u);
      return;
    }
    const std::uint32_t rounding = 0x7fffu + ((f >> 16) & 1u);  // to nearest, ties to even
    bits = static_cast<std::uint16_t>((f + rounding) >> 16);
  }
  explicit operator float() const { return detail::bits_float(std::uint32_t(bits) << 16); }
  static bfloat16 from_bits(std::uint16_t raw) {
    bfloat16 value;
    value.bits = raw;
    return value;
  }
};

struct half {
  std::uint16_t bits;

  half() = default;
  explicit half(float value) {
    const std::uint32_t f = detail::float_bits(value);
    const std::uint32_t sign = (f >> 16) & 0x8000u;
    const std::uint32_t magnitude = f & 0x7fffffffu;
    if (magnitude > 0x7f800000u) {  // NaN
      bits = static_cast<std::uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
      return;
    }
    if (magnitude >= 0x477ff000u) {  // rounds to >= 65520: Inf
      bits = static_cast<std::uint16_t>(sign | 0x7c00u);
      return;
    }
    if (magnitude < 0x38800000u) {  // below the smallest normal half (2^-14): subnormal or 0
      // Scale into the subnormal grid (units of 2^-24) with round-to-nearest-even,
      // done exactly in float: adding 0.5 shifts the value's ulp to 2^-24.
      const float scaled = detail::bits_float(magnitude) + 0.5f;
      bits = static_cast<std::uint16_t>(sign | (detail::float_bits(scaled) - 0x3f000000u));
      return;
    }
    const std::uint32_t rounding = 0xfffu + ((magnitude >> 13) & 1u);
    bits = static_cast<std::uint16_t>(sign | ((magnitude - 0x38000000u + rounding) >> 13));
  }
  explicit operator float() const {
    const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
    const std::uint32_t exponent = (bits >> 10) & 0x1fu;
    const std::uint32_t mantissa = bits & 0x3ffu;
    if (exponent == 0x1f) return detail::bits_float(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
      const float value = float(mantissa) * 5.9604644775390625e-8f;
      return detail::bits_float(sign | detail::float_bits(value));
    }
    return detail::bits_float(sign | ((exponent + 112) << 23) | (mantissa << 13));
  }
  static half from_bits(std::uint16_t raw) {
    half value;
    value.bits = raw;
    return value;
  }
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2, "2-byte storage types");

}  // namespace fastmv
