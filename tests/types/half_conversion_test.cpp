// fastmv::half (IEEE binary16) and fastmv::bfloat16 conversions from and to float:
// round to nearest, ties to even, at every rounding boundary of both types
// (subnormals included); overflow to Inf; NaN stays NaN, quietened, sign kept;
// no flushing of subnormals; exact round trips of every finite value.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "fastmv/half.hpp"

namespace {

using fastmv::bfloat16;
using fastmv::half;

float from_bits(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}
std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

std::string hex(std::uint32_t bits) {
  std::ostringstream text;
  text << "0x" << std::hex << bits;
  return text.str();
}

template <typename T>
std::uint16_t convert(float value) {
  return T(value).bits;
}

template <typename T>
float widen(std::uint16_t bits) {
  return static_cast<float>(T::from_bits(bits));
}

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(HalfConversion, ExactValues) {
  EXPECT_EQ(convert<half>(0.0f), 0x0000);
  EXPECT_EQ(convert<half>(-0.0f), 0x8000);
  EXPECT_EQ(convert<half>(1.0f), 0x3c00);
  EXPECT_EQ(convert<half>(-2.0f), 0xc000);
  EXPECT_EQ(convert<half>(0.5f), 0x3800);
  EXPECT_EQ(convert<half>(65504.0f), 0x7bff);         // largest finite
  EXPECT_EQ(convert<half>(0x1p-14f), 0x0400);         // smallest normal
  EXPECT_EQ(convert<half>(0x1p-24f), 0x0001);         // smallest subnormal
  EXPECT_EQ(convert<half>(1023 * 0x1p-24f), 0x03ff);  // largest subnormal
  EXPECT_EQ(convert<half>(-3 * 0x1p-24f), 0x8003);
}

TEST(HalfConversion, RoundsToNearestEven) {
  EXPECT_EQ(convert<half>(1.0f + 0x1p-11f), 0x3c00);             // tie: down to even
  EXPECT_EQ(convert<half>(1.0f + 3 * 0x1p-11f), 0x3c02);         // tie: up to even
  EXPECT_EQ(convert<half>(1.0f + 0x1p-11f + 0x1p-23f), 0x3c01);  // just above the tie
  EXPECT_EQ(convert<half>(1.0f + 0x1p-11f - 0x1p-24f), 0x3c00);  // just below the tie
  EXPECT_EQ(convert<half>(-(1.0f + 3 * 0x1p-11f)), 0xbc02);
  // Subnormal range: ties between multiples of 2^-24.
  EXPECT_EQ(convert<half>(0x1p-25f), 0x0000);  // tie: to 0 (even)
  EXPECT_EQ(convert<half>(0x1p-25f + 0x1p-40f), 0x0001);
  EXPECT_EQ(convert<half>(3 * 0x1p-25f), 0x0002);  // tie: up to even
  EXPECT_EQ(convert<half>(0x1p-26f), 0x0000);
  EXPECT_EQ(convert<half>(-0x1p-26f), 0x8000);            // sign of zero kept
  EXPECT_EQ(convert<half>(0x1p-14f - 0x1p-25f), 0x0400);  // tie at the normal boundary
  EXPECT_EQ(convert<half>(std::numeric_limits<float>::denorm_min()), 0x0000);
}

TEST(HalfConversion, OverflowsToInfinity) {
  EXPECT_EQ(convert<half>(65519.0f), 0x7bff);  // below the midpoint to 2^16
  EXPECT_EQ(convert<half>(65520.0f), 0x7c00);  // the midpoint: ties to even, 2^16: Inf
  EXPECT_EQ(convert<half>(-65520.0f), 0xfc00);
  EXPECT_EQ(convert<half>(1e10f), 0x7c00);
  EXPECT_EQ(convert<half>(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(convert<half>(-std::numeric_limits<float>::max()), 0xfc00);
  EXPECT_EQ(convert<half>(kInf), 0x7c00);
  EXPECT_EQ(convert<half>(-kInf), 0xfc00);
}

TEST(HalfConversion, NanStaysNan) {
  // Quiet and signalling NaNs, payloads in the high or only in the low bits (which
  // a plain shift would turn into Inf), both signs.
  for (const std::uint32_t nan :
       {0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0x7fffffffu, 0xffc00000u, 0xff800001u}) {
    const std::uint16_t bits = convert<half>(from_bits(nan));
    SCOPED_TRACE("float NaN " + hex(nan) + " -> half " + hex(bits));
    EXPECT_EQ(bits & 0x7c00, 0x7c00);
    EXPECT_NE(bits & 0x0200, 0) << "not a quiet NaN";
    EXPECT_EQ(bits >> 15, nan >> 31) << "sign lost";
  }
}

TEST(HalfConversion, ToFloat) {
  EXPECT_EQ(widen<half>(0x0001), 0x1p-24f);
  EXPECT_EQ(widen<half>(0x03ff), 1023 * 0x1p-24f);
  EXPECT_EQ(widen<half>(0x0400), 0x1p-14f);
  EXPECT_EQ(widen<half>(0x7bff), 65504.0f);
  EXPECT_EQ(widen<half>(0x8001), -0x1p-24f);
  EXPECT_EQ(bits_of(widen<half>(0x8000)), 0x80000000u);
  EXPECT_EQ(widen<half>(0x7c00), kInf);
  EXPECT_EQ(widen<half>(0xfc00), -kInf);
  EXPECT_TRUE(std::isnan(widen<half>(0x7e00)));
  EXPECT_TRUE(std::isnan(widen<half>(0x7c01)));
  EXPECT_TRUE(std::signbit(widen<half>(0xfe00)));
}

// Every non-NaN half survives half -> float -> half; every NaN stays NaN.
template <typename T>
void check_round_trips(std::uint16_t exponent_mask) {
  for (std::uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const auto value = static_cast<std::uint16_t>(bits);
    const bool nan = (value & exponent_mask) == exponent_mask && (value & ~exponent_mask & 0x7fff);
    const float wide = widen<T>(value);
    if (nan) {
      ASSERT_TRUE(std::isnan(wide)) << hex(bits);
      ASSERT_EQ(convert<T>(wide) & exponent_mask, exponent_mask) << hex(bits);
      ASSERT_NE(convert<T>(wide) & ~exponent_mask & 0x7fff, 0) << hex(bits);
    } else {
      ASSERT_EQ(convert<T>(wide), value) << hex(bits);
    }
  }
}

// Between every two adjacent finite values of T (both signs): the midpoint, exact in
// float, rounds to the one with an even significand; the floats just below and
// above it round down and up. `largest` is T's largest finite bit pattern.
template <typename T>
void check_every_rounding_boundary(std::uint16_t largest) {
  for (std::uint16_t lower = 0; lower < largest; ++lower) {
    const auto upper = static_cast<std::uint16_t>(lower + 1);
    const double exact_midpoint = (double(widen<T>(lower)) + double(widen<T>(upper))) / 2;
    const auto midpoint = static_cast<float>(exact_midpoint);
    ASSERT_EQ(double(midpoint), exact_midpoint);
    const std::uint16_t even = (lower & 1) == 0 ? lower : upper;
    for (const std::uint16_t sign : {0x0000, 0x8000}) {
      const float s = sign != 0 ? -1.0f : 1.0f;
      const auto where = [&] {
        return "between " + hex(sign | lower) + " and " + hex(sign | upper);
      };
      ASSERT_EQ(convert<T>(s * midpoint), sign | even) << where();
      ASSERT_EQ(convert<T>(s * std::nextafter(midpoint, 0.0f)), sign | lower) << where();
      ASSERT_EQ(convert<T>(s * std::nextafter(midpoint, kInf)), sign | upper) << where();
    }
  }
}

TEST(HalfConversion, ExhaustiveRoundTrips) { check_round_trips<half>(0x7c00); }
TEST(HalfConversion, ExhaustiveRoundingBoundaries) { check_every_rounding_boundary<half>(0x7bff); }

TEST(Bfloat16Conversion, ExactValues) {
  EXPECT_EQ(convert<bfloat16>(0.0f), 0x0000);
  EXPECT_EQ(convert<bfloat16>(-0.0f), 0x8000);
  EXPECT_EQ(convert<bfloat16>(1.0f), 0x3f80);
  EXPECT_EQ(convert<bfloat16>(-2.0f), 0xc000);
  EXPECT_EQ(convert<bfloat16>(from_bits(0x7f7f0000u)), 0x7f7f);  // largest finite
  EXPECT_EQ(convert<bfloat16>(0x1p-126f), 0x0080);               // smallest normal
  EXPECT_EQ(convert<bfloat16>(0x1p-133f), 0x0001);               // smallest subnormal, kept
  EXPECT_EQ(widen<bfloat16>(0x0001), 0x1p-133f);
  EXPECT_EQ(widen<bfloat16>(0x3f80), 1.0f);
  EXPECT_EQ(bits_of(widen<bfloat16>(0xc0a0)), 0xc0a00000u);
}

TEST(Bfloat16Conversion, RoundsToNearestEven) {
  EXPECT_EQ(convert<bfloat16>(1.0f + 0x1p-8f), 0x3f80);      // tie: down to even
  EXPECT_EQ(convert<bfloat16>(1.0f + 3 * 0x1p-8f), 0x3f82);  // tie: up to even
  EXPECT_EQ(convert<bfloat16>(1.0f + 0x1p-8f + 0x1p-23f), 0x3f81);
  EXPECT_EQ(convert<bfloat16>(1.0f + 0x1p-8f - 0x1p-23f), 0x3f80);
  // Float subnormals: bfloat16 has the same exponent range, rounding continues.
  EXPECT_EQ(convert<bfloat16>(from_bits(0x00000001u)), 0x0000);
  EXPECT_EQ(convert<bfloat16>(from_bits(0x00008000u)), 0x0000);  // tie: to 0 (even)
  EXPECT_EQ(convert<bfloat16>(from_bits(0x00018000u)), 0x0002);  // tie: up to even
  EXPECT_EQ(convert<bfloat16>(from_bits(0x80018001u)), 0x8002);
}

TEST(Bfloat16Conversion, OverflowsToInfinity) {
  EXPECT_EQ(convert<bfloat16>(from_bits(0x7f7f7fffu)), 0x7f7f);  // below the midpoint
  EXPECT_EQ(convert<bfloat16>(from_bits(0x7f7f8000u)), 0x7f80);  // the midpoint: to even, Inf
  EXPECT_EQ(convert<bfloat16>(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(convert<bfloat16>(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(convert<bfloat16>(kInf), 0x7f80);
  EXPECT_EQ(convert<bfloat16>(-kInf), 0xff80);
  EXPECT_EQ(widen<bfloat16>(0x7f80), kInf);
}

TEST(Bfloat16Conversion, NanStaysNan) {
  for (const std::uint32_t nan : {0x7fc00000u, 0x7f800001u, 0x7fa00000u, 0x7fffffffu, 0xffc00000u,
                                  0xff800001u, 0x7f80ffffu}) {
    const std::uint16_t bits = convert<bfloat16>(from_bits(nan));
    SCOPED_TRACE("float NaN " + hex(nan) + " -> bfloat16 " + hex(bits));
    EXPECT_EQ(bits & 0x7f80, 0x7f80);
    EXPECT_NE(bits & 0x0040, 0) << "not a quiet NaN";
    EXPECT_EQ(bits >> 15, nan >> 31) << "sign lost";
  }
  EXPECT_TRUE(std::isnan(widen<bfloat16>(0x7fc0)));
  EXPECT_TRUE(std::isnan(widen<bfloat16>(0xff81)));
}

TEST(Bfloat16Conversion, ExhaustiveRoundTrips) { check_round_trips<bfloat16>(0x7f80); }
TEST(Bfloat16Conversion, ExhaustiveRoundingBoundaries) {
  check_every_rounding_boundary<bfloat16>(0x7f7f);
}

}  // namespace
