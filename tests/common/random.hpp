// Random test inputs: one std::mt19937_64 per test, seeded from std::random_device
// unless FASTMV_TEST_SEED fixes the seed (to reproduce a failure, rerun the failing
// test with the seed its failure message prints).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>

#include "fastmv/half.hpp"

namespace fastmv_test {

// FASTMV_TEST_SEED when set (decimal or 0x-hex), else a fresh seed.
inline std::uint64_t test_seed() {
  if (const char* text = std::getenv("FASTMV_TEST_SEED"); text != nullptr && *text != '\0') {
    return std::strtoull(text, nullptr, 0);
  }
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

inline std::string seed_message(std::uint64_t seed) {
  return "random seed " + std::to_string(seed) +
         " (rerun with FASTMV_TEST_SEED=" + std::to_string(seed) +
         " and --gtest_filter=<this test> to reproduce)";
}

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  // Uniform in (-1, 1) and never 0: (2k + 1) * 2^-52 - 1 for a random 52-bit k is an
  // odd multiple of 2^-52 minus 1, computed exactly, so it cannot be 0 (nor round to
  // 0 in float, whose smallest normal is far below 2^-52). The 16-bit types round
  // through float and draw again in the rare case (|value| < 2^-25 for half) that
  // the value rounds to 0.
  template <typename T>
  T uniform_nonzero() {
    if constexpr (std::is_same_v<T, fastmv::half> || std::is_same_v<T, fastmv::bfloat16>) {
      for (;;) {
        const T value(static_cast<float>(uniform_double()));
        if ((value.bits & 0x7fffu) != 0) return value;
      }
    } else {
      return static_cast<T>(uniform_double());
    }
  }

  // A nonzero integer in [-bound, bound].
  int nonzero_integer(int bound) {
    const int magnitude = 1 + static_cast<int>(engine_() % static_cast<std::uint64_t>(bound));
    return (engine_() & 1) != 0 ? magnitude : -magnitude;
  }

 private:
  double uniform_double() {
    const std::uint64_t k = engine_() >> 12;
    return static_cast<double>(2 * k + 1) * 0x1p-52 - 1.0;
  }

  std::mt19937_64 engine_;
};

}  // namespace fastmv_test
