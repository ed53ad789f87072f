// Switches read from the environment by the test programs.
#pragma once

#include <cstdlib>
#include <cstring>

namespace fastmv_test {

// FASTMV_TEST_QUICK=1 shrinks the largest problems (sizes 1000 and 4099 leave the
// full shape cross, tall-skinny and short-wide use 20011 instead of 100003) so that
// sanitizer builds, which run the double-loop oracle ~10x slower, finish in minutes.
// tests/gemv/CMakeLists.txt sets it for every test when FASTMV_SANITIZE is ON. The
// Cuda program also uses it under compute-sanitizer: it then keeps the mixed-precision
// and batched problems at the sizes of the CPU backends and skips the 4 GiB matrix.
inline bool quick_mode() {
  const char* text = std::getenv("FASTMV_TEST_QUICK");
  return text != nullptr && *text != '\0' && std::strcmp(text, "0") != 0;
}

}  // namespace fastmv_test
